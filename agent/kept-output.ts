import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { clawcodeHome } from '../utils/home.js';
import { writeFileDurable } from '../utils/journal/durable-write.js';
import { canonicalRoot } from '../utils/journal/store.js';
import { getProjectHash } from '../utils/project-hash.js';
import type { SavedPlan } from './plan-file.js';
import { makeDirs } from '../utils/make-dirs.js';

// What a model produced and was paid for, kept under the clawcode home (owner-only, like the journal): the last
// plan of each project, so a declined or failed plan can be applied later (`clawcode apply --last`), and
// replies that held no usable plan, so a person can read or mend them.

/** `<home>/plans/<projectHash>.json`: the last plan made for a project, in the `--plan-out` format. */
async function lastPlanPath(rootDir: string, homeDir?: string): Promise<string> {
  return join(homeDir ?? clawcodeHome(), 'plans', `${getProjectHash(await canonicalRoot(rootDir))}.json`);
}

/**
 * Keep `saved` as the project's last plan, replacing the one before.
 * @returns the file's path
 * @throws IoError when the clawcode home cannot be written (callers treat keeping as best effort)
 */
export async function keepLastPlan(rootDir: string, saved: SavedPlan, homeDir?: string): Promise<string> {
  const path = await lastPlanPath(rootDir, homeDir);
  await makeDirs(join(path, '..'), 0o700);
  await writeFileDurable(path, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  return path;
}

/**
 * The project's last plan as text (for `clawcode apply --last`), or undefined when none was kept.
 * @throws Error for a kept file that exists but cannot be read
 */
export async function readLastPlan(rootDir: string, homeDir?: string): Promise<string | undefined> {
  const path = await lastPlanPath(rootDir, homeDir);
  return readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
}

/**
 * Most reply files kept; older ones are deleted as new ones come. A server that answers every task with junk
 * at the reply cap (4,000,000 characters, twice with the repair) added 8 MB to the home per run, for good.
 */
export const MAX_KEPT_REPLIES = 20;

/**
 * Keep model replies that gave no plan, one file each: `<home>/replies/<time>-<n>.txt`, the newest
 * MAX_KEPT_REPLIES in all (the names sort by time).
 * @param texts  the replies in the order they came (the first request's, then the repair request's)
 * @returns the files' paths, in the same order
 * @throws IoError when the clawcode home cannot be written
 */
export async function keepUnusedReplies(
  texts: readonly string[],
  homeDir?: string,
  now = new Date(),
): Promise<string[]> {
  const dir = join(homeDir ?? clawcodeHome(), 'replies');
  await makeDirs(dir, 0o700);
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const paths: string[] = [];
  for (const [index, text] of texts.entries()) {
    const path = join(dir, `${stamp}-${index + 1}.txt`);
    await writeFileDurable(path, text, { mode: 0o600 });
    paths.push(path);
  }
  const kept = (await readdir(dir)).filter((name) => name.endsWith('.txt')).sort();
  for (const old of kept.slice(0, Math.max(0, kept.length - MAX_KEPT_REPLIES)))
    await rm(join(dir, old), { force: true });
  return paths;
}
