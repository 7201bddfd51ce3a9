import { isAbsolute, relative, sep } from 'node:path';

/**
 * Whether `target` is `root` itself or lies below it, by the paths alone (both absolute; pass real paths where
 * symlinks matter). A name that merely starts with two dots (`..cache`) is inside.
 *
 * @returns true for `root` and everything under it; false for its parent, siblings and other drives
 */
export function isInsideRoot(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
