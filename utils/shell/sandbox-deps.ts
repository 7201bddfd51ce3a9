import { lstatSync, mkdirSync, readdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { isControlPath } from '../policy/paths.js';

/**
 * The installed dependencies of a project, read-only to a command that runs without a person's yes. They are
 * generated folders (the tree guard, tree-guard.ts, lets a command change them), but the person runs their code
 * outside any sandbox afterwards: a test script that rewrote `node_modules/.bin/vitest`, or put a `.pth` file in a
 * virtualenv's `site-packages`, ran with the person's keys and network at their next `npx vitest` or `python`, and
 * nothing showed it. Their cache folders stay writable (test runners and bundlers keep caches there).
 */

/** Folders below a `node_modules` that tools write while they build or test: bound writable again. */
const CACHES = ['.cache', '.vite', '.vite-temp', '.vitest'];

/** How deep below the root dependency folders are looked for (`packages/app/node_modules` is depth 3). */
const MAX_DEPTH = 4;
/** Most folders looked into; a larger tree is searched only that far (breadth first). */
const MAX_FOLDERS = 5000;

function isDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The dependency folders of `root`: every `node_modules` and every virtualenv (a folder holding `pyvenv.cfg`)
 * within {@link MAX_DEPTH} levels, not looking inside either, nor inside control paths.
 *
 * @param root  the real project root
 * @returns absolute paths, shallowest first
 */
export function dependencyFolders(root: string): string[] {
  const found: string[] = [];
  let level = [''];
  let seen = 0;
  for (let depth = 0; depth < MAX_DEPTH && level.length > 0; depth += 1) {
    const next: string[] = [];
    for (const rel of level) {
      if ((seen += 1) > MAX_FOLDERS) return found;
      let names: string[];
      try {
        names = readdirSync(join(root, rel));
      } catch {
        continue;
      }
      for (const name of names) {
        const child = rel === '' ? name : `${rel}/${name}`;
        const abs = join(root, child);
        if (isControlPath(child) || !isDir(abs)) continue;
        if (name === 'node_modules' || exists(join(abs, 'pyvenv.cfg'))) found.push(abs);
        else next.push(child);
      }
    }
    level = next;
  }
  return found;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * bubblewrap arguments that bind each dependency folder read-only, then its caches writable (a missing cache
 * folder is made for the run and removed afterwards while empty). Give them after every other bind inside the root.
 *
 * @param root  the real project root, bound writable already
 * @returns the arguments and a cleanup to call once the command has exited (never throws)
 */
export function dependencyBinds(root: string): { args: string[]; cleanup: () => void } {
  const args: string[] = [];
  const made: string[] = [];
  for (const folder of dependencyFolders(root)) {
    args.push('--ro-bind', folder, folder);
    if (!folder.endsWith('node_modules')) continue;
    for (const cache of CACHES) {
      const path = join(folder, cache);
      if (!exists(path)) {
        try {
          mkdirSync(path);
          made.push(path);
        } catch {
          continue;
        }
      }
      if (isDir(path)) args.push('--bind', path, path);
    }
  }
  const cleanup = (): void => {
    for (const path of made) {
      try {
        rmdirSync(path); // only while empty
      } catch {
        // the command kept a cache there: left
      }
    }
  };
  return { args, cleanup };
}
