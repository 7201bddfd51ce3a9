import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { isInsideRoot } from './path-inside.js';

/**
 * Finding the programs clawcode starts itself (git, bubblewrap, prlimit, an editor) so that no folder a
 * project can write supplies one: PATH often holds `./node_modules/.bin` or `bin` (npx, npm scripts,
 * direnv), and a command run earlier may have planted a program of the same name there.
 */

/** The real location of an executable regular file, or null. */
function executableAt(path: string): string | null {
  try {
    if (!statSync(path).isFile()) return null;
    accessSync(path, constants.X_OK);
    return realpathSync(path);
  } catch {
    return null;
  }
}

/**
 * The real location of a path (symlinks resolved), or the path itself when it does not resolve: how a project
 * root is compared with PATH folders and program locations.
 */
export function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The first of `names` found on `pathValue` in a folder that is absolute and, like the program's real
 * location, outside `realRoot`.
 *
 * @param names      file names to look for, in order of preference within each folder
 * @param realRoot   the project root (real path), or null for none
 * @param pathValue  a PATH value (`:`-separated on POSIX)
 * @returns the absolute path as found on PATH (not resolved), or null
 */
export function executableOutside(names: readonly string[], realRoot: string | null, pathValue: string): string | null {
  for (const dir of pathValue.split(delimiter)) {
    if (!dir || !isAbsolute(dir) || (realRoot && isInsideRoot(realRoot, realOrSelf(dir)))) continue;
    for (const name of names) {
      const candidate = join(dir, name);
      const real = executableAt(candidate);
      if (real && !(realRoot && isInsideRoot(realRoot, real))) return candidate;
    }
  }
  return null;
}

/**
 * A PATH value without relative folders and without folders inside `realRoot`, for a program clawcode
 * starts through a shell on the person's behalf (the editor): the shell then finds no program the
 * project supplies.
 */
export function pathOutside(realRoot: string | null, pathValue: string): string {
  return pathValue
    .split(delimiter)
    .filter((dir) => dir && isAbsolute(dir) && !(realRoot && isInsideRoot(realRoot, realOrSelf(dir))))
    .join(delimiter);
}
