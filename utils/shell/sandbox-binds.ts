import { lstatSync, mkdirSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, relative } from 'node:path';
import { findControlPaths } from '../policy/git-control.js';
import { isInsideRoot } from '../path-inside.js';

/**
 * How the sandbox keeps the control paths of a project root (utils/policy/git-control.ts) out of a command's
 * reach, and how clawcode notices afterwards if one changed anyway:
 * - each control path is bound read-only onto itself;
 * - every folder between the root and a control path is bound onto itself too: a mount point cannot be
 *   renamed or removed (EBUSY), so `mv libs libs.orig && mkdir -p libs/foo/.git …` cannot put a new
 *   control path where the old one was;
 * - a control path that does not exist yet (a `core.hooksPath` folder before `npm install`, an include
 *   target, the `.git` of an uninitialised submodule) gets an empty read-only stand-in for the run (a folder
 *   for a `.git`, else a file: a hooks "folder" that is a file holds no hook), so nothing can be created
 *   there, and is removed afterwards;
 * - after the command the discovery runs again and each path's device and inode are compared
 *   ({@link controlChange}): a control path that appeared, moved or was replaced is named in one line.
 */

/** Where a control path stood before a command: `dev:ino:kind`, or `missing`. */
export type ControlSnapshot = Map<string, string>;

function identity(path: string): string {
  try {
    const info = lstatSync(path);
    const kind = info.isDirectory() ? 'dir' : info.isSymbolicLink() ? 'link' : 'file';
    return `${info.dev}:${info.ino}:${kind}`;
  } catch {
    return 'missing';
  }
}

/**
 * Whether every entry from `root` (exclusive) down to `dir` (inclusive) is a folder, none a symlink: the only
 * folders bound writable onto themselves or given a stand-in. bubblewrap follows a symlink in a bind's
 * destination, so a folder on the way named through a committed `link -> ../../etc` (a `commondir` or
 * `core.hooksPath` through it) was the folder it leads to, outside the root, bound writable.
 *
 * @param root  the project root (absolute); `dir` inside it
 */
function plainFolders(root: string, dir: string): boolean {
  if (!isInsideRoot(root, dir)) return false;
  for (let at = dir; at !== root; at = dirname(at)) {
    try {
      if (!lstatSync(at).isDirectory()) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * The control paths of `root` now, each with its identity.
 *
 * @param root  the project root, real path
 */
export async function controlSnapshot(root: string): Promise<ControlSnapshot> {
  const snap: ControlSnapshot = new Map();
  for (const path of await findControlPaths(root)) snap.set(path, identity(path));
  return snap;
}

/**
 * What changed among the control paths of `root` since `before`, as one line naming the first path, or
 * undefined when nothing did. Run after the command (and after the sandbox's stand-ins are removed).
 */
export async function controlChange(root: string, before: ControlSnapshot): Promise<string | undefined> {
  const after = await controlSnapshot(root);
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  for (const path of paths) {
    const was = before.get(path) ?? 'missing';
    const now = after.get(path) ?? identity(path);
    if (was === now) continue;
    const shown = relative(root, path) || '.';
    const what = was === 'missing' ? 'appeared' : now === 'missing' ? 'was moved or removed' : 'was moved or replaced';
    return `the command changed a control path: ${shown} ${what}; check it before you run git or a hook there`;
  }
  return undefined;
}

/** Bind arguments for the control paths of a run, and what to undo once the command has exited. */
export interface ControlBinds {
  /** bubblewrap arguments binding the folders on the way onto themselves (give them first) */
  ways: string[];
  /** bubblewrap arguments binding the control paths read-only (give them after) */
  readOnly: string[];
  /** remove the stand-ins and the folders made for them (only while empty); never throws */
  cleanup: () => void;
}

/**
 * The binds that keep `paths` (absolute, inside `root`) as they are for one command.
 *
 * @param root     the project root (absolute), already bound writable
 * @param paths    control paths, existing or not; nested ones are covered by their parent's bind
 * @param already  paths the caller binds read-only itself (their folders on the way are still bound here)
 */
export function controlBinds(root: string, paths: readonly string[], already: readonly string[]): ControlBinds {
  const covered = [...already];
  const readOnly: string[] = [];
  for (const path of [...paths].sort()) {
    if (!isInsideRoot(root, path) || path === root || covered.some((c) => isInsideRoot(c, path))) continue;
    covered.push(path);
    readOnly.push(path);
  }
  const madeDirs: string[] = [];
  const madeFiles: string[] = [];
  const ways = new Set<string>();
  for (const path of [...readOnly, ...already]) {
    for (let dir = dirname(path); dir !== root && isInsideRoot(root, dir); dir = dirname(dir)) ways.add(dir);
  }
  // Folders on the way that do not exist yet (a stand-in's parents) are made now, so they can be bound too;
  // parents first, and only below plain folders: a mkdir through a symlink makes a folder where it leads.
  for (const dir of [...ways].sort()) {
    if (identity(dir) !== 'missing') continue;
    if (!plainFolders(root, dirname(dir))) {
      ways.delete(dir);
      continue;
    }
    try {
      mkdirSync(dir);
      madeDirs.push(dir);
    } catch {
      ways.delete(dir);
    }
  }
  const wayArgs: string[] = [];
  for (const dir of [...ways].sort()) if (plainFolders(root, dir)) wayArgs.push('--bind', dir, dir);
  const readOnlyArgs: string[] = [];
  for (const path of readOnly) {
    // A symlink cannot be bound onto (a mount follows it); its target is a control path of its own. A path
    // reached through one leads elsewhere: out of the root, read-only already; inside it, found at its real name.
    if (identity(path).endsWith(':link') || !plainFolders(root, dirname(path))) continue;
    if (identity(path) === 'missing') {
      try {
        // A `.git` stand-in is an empty folder (git then looks further up, as without one); others an empty file.
        if (basename(path) === '.git') {
          mkdirSync(path);
          madeDirs.push(path);
        } else {
          writeFileSync(path, '', { flag: 'wx' });
          madeFiles.push(path);
        }
      } catch {
        continue;
      }
    }
    readOnlyArgs.push('--ro-bind', path, path);
  }
  const cleanup = (): void => {
    for (const file of madeFiles) {
      try {
        if (lstatSync(file).isFile() && lstatSync(file).size === 0) unlinkSync(file);
      } catch {
        // gone already
      }
    }
    for (const dir of madeDirs.reverse()) {
      try {
        rmdirSync(dir); // only while empty
      } catch {
        // something is in it: leave it
      }
    }
  };
  return { ways: wayArgs, readOnly: readOnlyArgs, cleanup };
}
