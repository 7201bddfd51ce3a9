import { spawn } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from './fixture.js';

// Shared by the SIGKILL tests of the journal (tests/utils/journal/kill.test.ts, undo-kill.test.ts): a child
// script that applies or undoes a run, killed at a chosen point, and the tree snapshots compared after.

/** Every entry under `dir` (folders end in `/`) with its bytes (base64) and permission bits (octal). */
export async function snapshotTree(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const full = join(entry.parentPath, entry.name);
    const rel = full.slice(dir.length + 1);
    const mode = ((await stat(full)).mode & 0o777).toString(8);
    out.set(
      entry.isDirectory() ? `${rel}/` : rel,
      entry.isDirectory() ? mode : `${mode}:${(await readFile(full)).toString('base64')}`,
    );
  }
  return out;
}

/**
 * Write the many-file fixture into `root`: 40 existing files in 5 folders (src/mod0/file0.ts executable,
 * src/mod2/file7.ts binary), and their new texts plus 20 new files in new folders under gen/.
 * @returns the bytes written (`oldFiles`) and the text each path is to have after the run (`newFiles`)
 */
export async function writeManyFiles(
  root: string,
): Promise<{ oldFiles: Map<string, Buffer>; newFiles: Map<string, string> }> {
  const oldFiles = new Map<string, Buffer>();
  const newFiles = new Map<string, string>();
  for (let i = 0; i < 40; i += 1) {
    const path = `src/mod${i % 5}/file${i}.ts`;
    const bytes =
      i === 7 ? Buffer.from([0, 255, 1, 254, 10]) : Buffer.from(`export const v${i} = ${i};\n`.repeat(50 + i));
    await mkdir(join(root, `src/mod${i % 5}`), { recursive: true });
    await writeFile(join(root, path), bytes);
    oldFiles.set(path, bytes);
    newFiles.set(path, `export const v${i} = ${i * 100}; // changed\n`.repeat(60 + i));
  }
  await chmod(join(root, 'src/mod0/file0.ts'), 0o755);
  for (let i = 0; i < 20; i += 1)
    newFiles.set(`gen/part${i % 4}/deep/new${i}.ts`, `export const n${i} = true;\n`.repeat(40));
  return { oldFiles, newFiles };
}

/** When to kill the child: `delayMs` after it has printed "ready" and then `count` lines starting with `marker`. */
export interface KillPlan {
  marker: string;
  count: number;
  delayMs: number;
}

/**
 * Run `tests/support/<script>` under tsx with `args`; kill it with SIGKILL as `kill` says, or let it finish
 * when `kill` is undefined. The child prints `ready`, a marker line per file, then `done <ms>`.
 * @returns whether it was killed, and the ms it reported when it finished
 * @throws when it exits non-zero without being killed (its stderr in the message)
 */
export function runKillableChild(
  script: string,
  args: string[],
  kill?: KillPlan,
): Promise<{ killed: boolean; ms?: number }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'tests/support', script), ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let armed = false;
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (kill === undefined || armed || !out.startsWith('ready\n')) return;
      if (out.split('\n').filter((line) => line.startsWith(kill.marker)).length >= kill.count) {
        armed = true;
        setTimeout(() => child.kill('SIGKILL'), kill.delayMs);
      }
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal === 'SIGKILL') return resolvePromise({ killed: true });
      if (code !== 0) return reject(new Error(`child failed (${code}): ${err}`));
      const ms = /done (\d+)/.exec(out)?.[1];
      resolvePromise({ killed: false, ms: ms === undefined ? undefined : Number(ms) });
    });
  });
}
