import { realpath, readdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_IGNORE_DIRS } from '../agent/context/scan-rules.js';
import { ClawcodeError, UsageError } from '../utils/errors.js';
import { isGitRepo } from '../utils/git/ops.js';
import { isProjectFolder } from './interactive/projects.js';

/**
 * Files a folder that is not a project may hold before clawcode asks first: a project's source tree rarely
 * holds more outside git, while /usr (116,838 files here) took 148 s and 1.9 GB to scan for `context`.
 */
const NON_PROJECT_FILE_LIMIT = 5_000;

const SKIPPED = new Set(DEFAULT_IGNORE_DIRS);

/** The person said no to scanning a folder: nothing was read. Exit 0; the message is said plainly. */
export class FolderDeclinedError extends ClawcodeError {
  constructor(rootDir: string) {
    super(`Nothing was read in ${rootDir}.`, { code: 'folder_declined', exitCode: 0 });
  }
}

/**
 * Why scanning `rootDir` deserves a question first, or undefined when it is a project: the home folder (always),
 * or a folder that is neither inside a git work tree nor marked as a project (package.json, go.mod, …) and holds
 * more than {@link NON_PROJECT_FILE_LIMIT} files (counted up to that limit, the scan's ignored folders skipped).
 *
 * @param home  the home folder (default: the user's)
 * @returns one line saying what the folder is, for the question or the refusal
 */
async function folderConcern(rootDir: string, home = homedir()): Promise<string | undefined> {
  const real = async (p: string): Promise<string> => realpath(p).catch(() => resolve(p));
  if ((await real(rootDir)) === (await real(home))) {
    return `${rootDir} is your home folder: clawcode would read every file under it`;
  }
  if ((await isProjectFolder(rootDir)) || (await isGitRepo(rootDir))) return undefined;
  const limit = NON_PROJECT_FILE_LIMIT;
  if ((await countFilesUpTo(rootDir, limit + 1)) <= limit) return undefined;
  return `${rootDir} is not a project (no git repository, no package.json or the like) and holds more than ${limit.toLocaleString('en-US')} files`;
}

/**
 * Before a scan: ask in a terminal (default no), refuse without one, when {@link folderConcern} finds a reason.
 *
 * @param options.anyFolder  `--any-folder`: scan without asking
 * @param options.confirm    the yes/no question (a terminal); absent when nobody can be asked
 * @throws UsageError (code `not_a_project`, exit 2) when nobody can be asked; FolderDeclinedError on a no
 */
export async function checkProjectFolder(
  rootDir: string,
  options: { anyFolder?: boolean; confirm?: (question: string) => Promise<boolean>; home?: string },
): Promise<void> {
  if (options.anyFolder) return;
  const concern = await folderConcern(rootDir, options.home);
  if (!concern) return;
  if (!options.confirm) {
    throw new UsageError(`${concern}; not scanned.`, {
      code: 'not_a_project',
      hint: 'Run clawcode in your project folder (or --dir <project>), or pass --any-folder to scan this one.',
    });
  }
  if (!(await options.confirm(`${concern}. Scan it anyway?`))) throw new FolderDeclinedError(rootDir);
}

/** Files under `dir` (symlinks and the scan's ignored folders skipped), counting stops at `stopAt`. */
async function countFilesUpTo(dir: string, stopAt: number): Promise<number> {
  let count = 0;
  const queue = [dir];
  while (queue.length > 0 && count < stopAt) {
    const entries = await readdir(queue.shift()!, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.isFile()) count += 1;
      else if (entry.isDirectory() && !SKIPPED.has(entry.name)) queue.push(join(entry.parentPath, entry.name));
    }
  }
  return count;
}
