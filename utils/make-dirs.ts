import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * `mkdir -p` for clawcode's own folders (the home folder and what is under it), used instead of Node's
 * `mkdir(path, { recursive: true })`: where a file system answers mkdir with ENOENT under a folder that exists
 * (`/proc`, `/sys`-like pseudo file systems, a FUSE mount), Node's recursive mkdir retries the parent and the child
 * forever, in a libuv worker that even SIGTERM cannot stop (the exit waits for it). Here each missing folder is made
 * once, top down, and any failure is thrown as it came.
 *
 * @param path  absolute or relative to the working folder
 * @param mode  permission bits for the folders made (e.g. 0o700), before the umask
 * @throws the first mkdir/stat errno error (ENOENT, EACCES, ENOTDIR, EROFS…); ENOTDIR when a part is a file
 */
export async function makeDirs(path: string, mode: number): Promise<void> {
  // A few stat and mkdir calls, once per folder: done synchronously, one walk for both entry points.
  makeDirsSync(path, mode);
}

/** makeDirs, synchronously (for the few writers that are synchronous); same contract. */
export function makeDirsSync(path: string, mode: number): void {
  const missing: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    let info;
    try {
      info = statSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (info) {
      if (!info.isDirectory()) throw notDir(dir);
      break;
    }
    missing.push(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir, { mode });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(dir).isDirectory()) throw error;
    }
  }
}

function notDir(dir: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: 'ENOTDIR', path: dir });
}
