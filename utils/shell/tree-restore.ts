import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { KeptEntry } from './tree-guard.js';

/**
 * How the tree guard (tree-guard.ts) puts a project back after a command broke its rule. It runs once the
 * command's sandbox is gone (its pid namespace ends with it), so nothing of the command can race these steps; a
 * path is still never written through a symlink: whatever the command left where a folder of the path was (a file,
 * a symlink out of the project) is removed and the folder made again.
 */

let seq = 0;

function kindOf(path: string): 'dir' | 'other' | 'missing' {
  try {
    return lstatSync(path).isDirectory() ? 'dir' : 'other';
  } catch {
    return 'missing';
  }
}

/**
 * Put one kept file or symlink back at `rel`, byte for byte with its permission bits, through a temp file and a
 * rename; a folder the command left in its place is removed first.
 *
 * @param root  the real project root; `rel` a project-relative path with `/` separators
 * @returns false when a step failed (the file is then named to the person); never throws
 */
export function restoreEntry(root: string, rel: string, entry: KeptEntry): boolean {
  let dir = root;
  const temp = join(root, dirname(rel), `.clawcode-restore-${process.pid}-${++seq}`);
  try {
    for (const part of rel.split('/').slice(0, -1)) {
      dir = join(dir, part);
      const kind = kindOf(dir);
      if (kind === 'other') unlinkSync(dir);
      if (kind !== 'dir') mkdirSync(dir);
      // A folder the command closed to its owner (`chmod 000 src`) is opened to the owner again to be written.
      else if ((lstatSync(dir).mode & 0o700) !== 0o700) chmodSync(dir, (lstatSync(dir).mode & 0o7777) | 0o700);
    }
    const path = join(root, rel);
    if (kindOf(path) === 'dir') rmSync(path, { recursive: true, force: true });
    if (entry.kind === 'link') symlinkSync(entry.target!, temp);
    else {
      writeFileSync(temp, entry.content!, { flag: 'wx', mode: 0o600 });
      chmodSync(temp, entry.mode);
    }
    renameSync(temp, path);
    return true;
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // never made
    }
    return false;
  }
}

/**
 * Remove files a command added (each a file or symlink whose folders are all real folders), then the folders
 * that held them when they are empty and no path of `before` lies under them.
 *
 * @param root    the real project root
 * @param added   project-relative paths the command made
 * @param before  project-relative paths present before the command
 * @returns the paths removed, sorted; never throws
 */
export function removeNewFiles(root: string, added: readonly string[], before: ReadonlySet<string>): string[] {
  const keptDirs = foldersOf(before);
  const removed: string[] = [];
  const emptied = new Set<string>();
  for (const rel of [...added].sort()) {
    const parents: string[] = [];
    for (let d = dirname(rel); d !== '.'; d = dirname(d)) parents.push(d);
    if (parents.some((d) => kindOf(join(root, d)) !== 'dir') || kindOf(join(root, rel)) !== 'other') continue;
    try {
      unlinkSync(join(root, rel));
      removed.push(rel);
      for (const d of parents) if (!keptDirs.has(d)) emptied.add(d);
    } catch {
      // gone already, or not removable: left in place
    }
  }
  // Deepest first, so a folder emptied by removing its subfolder goes too.
  for (const d of [...emptied].sort((a, b) => b.length - a.length)) {
    try {
      rmdirSync(join(root, d));
    } catch {
      // not empty: something else is in it
    }
  }
  return removed;
}

/**
 * Remove the empty folders a command made below `dir` (git lists no folder, so these are not among the files it
 * added): every folder that holds no path of `keptDirs`' and ends up empty, deepest first. Symlinks are not
 * followed, nor are folders in `skip` (generated ones) entered.
 *
 * @param dir       a project-relative folder that held kept files ('' for the root)
 * @param keptDirs  project-relative folders that held a path before the command
 */
export function pruneNewFolders(
  root: string,
  dir: string,
  keptDirs: ReadonlySet<string>,
  skip: (rel: string) => boolean,
): void {
  let names: string[];
  try {
    names = readdirSync(join(root, dir));
  } catch {
    return;
  }
  for (const name of names) {
    const rel = dir === '' ? name : `${dir}/${name}`;
    if (kindOf(join(root, rel)) !== 'dir' || skip(rel)) continue;
    pruneNewFolders(root, rel, keptDirs, skip);
    if (keptDirs.has(rel)) continue;
    try {
      rmdirSync(join(root, rel));
    } catch {
      // not empty
    }
  }
}

/** The folders (project-relative, `/` separators) that hold each of `paths`, all the way up. */
export function foldersOf(paths: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const rel of paths) for (let d = dirname(rel); d !== '.' && !out.has(d); d = dirname(d)) out.add(d);
  return out;
}
