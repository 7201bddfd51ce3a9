/**
 * Control paths that git and the tools of its hooks execute or obey, beyond the fixed names of
 * utils/policy/paths.ts: git directories found on disk under any name (a folder holding a HEAD file, an
 * `objects/` and a `refs/` folder: what `git init --separate-git-dir=.repo` makes, what a `.git` file's
 * `gitdir:` line points to, or what a plan or command would plant to be taken for a repository), and the
 * files the repository's own configuration names inside the work tree (include targets, the
 * `core.hooksPath` folder, programs given by path). A plan never writes them; the sandbox binds them
 * read-only (utils/shell/sandbox.ts).
 */
import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { findRepository } from '../git/repo.js';

/** Whether a folder has the shape git takes for a git directory: HEAD a file, objects/ and refs/ folders. */
async function isGitDirShape(dir: string): Promise<boolean> {
  const [head, objects, refs] = await Promise.all(
    ['HEAD', 'objects', 'refs'].map((name) => lstat(path.join(dir, name)).catch(() => undefined)),
  );
  return Boolean(head?.isFile() && objects?.isDirectory() && refs?.isDirectory());
}

/**
 * Why a path (real, project-relative) is controlled by git beyond its name, or undefined: it lies in a
 * folder shaped as a git directory (the root included), in the repository's git directory, or at or under
 * a path the repository's configuration reads or runs.
 *
 * @param realRoot  the project root, real path
 * @param realRel   where the path really leads, relative to `realRoot`, `/` separators
 */
export async function gitControlReason(realRoot: string, realRel: string): Promise<string | undefined> {
  const segments = realRel.split('/');
  for (let i = 0; i < segments.length; i++) {
    const folder = segments.slice(0, i).join('/');
    if (await isGitDirShape(path.join(realRoot, folder))) {
      return folder === ''
        ? 'the project root has the shape of a git directory (HEAD, objects/, refs/)'
        : `it is inside ${folder}/, which has the shape of a git directory (HEAD, objects/, refs/)`;
    }
  }
  const repo = await findRepository(realRoot);
  if (!repo) return undefined;
  const abs = path.join(realRoot, ...segments);
  if (within(repo.gitDir, abs) || within(repo.commonDir, abs))
    return 'it is inside the git directory of the repository';
  const named = repo.controlPaths.find((c) => within(c, abs));
  if (named) return `git's configuration reads or runs ${path.relative(realRoot, named) || '.'}`;
  return undefined;
}

function within(dir: string, target: string): boolean {
  const rel = path.relative(dir, target);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

/** Names of entries that git or the tools of hooks obey wherever they are (folded as paths.ts folds). */
const CONTROL_ENTRY = /^(\.git|\.hg|\.svn|\.bzr|\.jj|\.clawcode|\.husky)$/i;
const HOOK_TOOL_FILE =
  /^(\.pre-commit-config\.ya?ml|\.lintstagedrc.*|lint-staged\.config\..*|\.?lefthook(-local)?\.ya?ml)$/i;

/** Most entries looked at when listing a project's control paths; past it the walk stops. */
const MAX_WALK_ENTRIES = 500_000;

/**
 * Every control path that exists in a project, for the sandbox to bind read-only: version-control and
 * clawcode folders and `.husky/` at any depth, hook tool configurations (`.pre-commit-config.yaml`,
 * `.lintstagedrc*`, `lint-staged.config.*`, `lefthook.yml`), folders shaped as git directories, and the
 * repository's git directory and configuration-named paths when inside the root. The walk does not enter
 * `node_modules/` (installed packages, which git never visits), symlinked folders or what it found.
 *
 * @param realRoot  the project root, real path
 * @returns absolute paths, parents before children; never throws
 */
export async function findControlPaths(realRoot: string): Promise<string[]> {
  const found = new Set<string>();
  let seen = 0;
  const stack = [realRoot];
  while (stack.length > 0 && seen < MAX_WALK_ENTRIES) {
    const dir = stack.pop()!;
    if (dir !== realRoot && (await isGitDirShape(dir))) {
      found.add(dir);
      continue;
    }
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    seen += entries.length;
    for (const entry of entries) {
      const abs = path.join(dir, entry.name);
      if (CONTROL_ENTRY.test(entry.name) || HOOK_TOOL_FILE.test(entry.name)) found.add(abs);
      else if (entry.isDirectory() && entry.name !== 'node_modules') stack.push(abs);
    }
  }
  const repo = await findRepository(realRoot);
  if (repo) {
    for (const p of [repo.gitDir, repo.commonDir, ...repo.controlPaths]) if (within(realRoot, p)) found.add(p);
  }
  return [...found].sort();
}

/**
 * The scanner's side of {@link gitControlReason}, for a whole listing at once: a test for the
 * project-relative paths that lie in a folder shaped as a git directory (found through the HEAD files
 * the listing names) or at or under a configuration-named path.
 *
 * @param listed  every path the scan saw, project-relative (`/` separators)
 * @returns the test, or null when nothing in the listing is controlled this way
 */
export async function gitControlledFilter(
  realRoot: string,
  listed: readonly string[],
): Promise<((rel: string) => boolean) | null> {
  const prefixes: string[] = [];
  if (await isGitDirShape(realRoot)) return () => true;
  for (const rel of listed) {
    const slash = rel.lastIndexOf('/');
    if (slash === -1 || rel.slice(slash + 1).toLowerCase() !== 'head') continue;
    const folder = rel.slice(0, slash);
    if (await isGitDirShape(path.join(realRoot, folder))) prefixes.push(`${folder}/`);
  }
  const repo = await findRepository(realRoot);
  for (const p of repo ? [repo.gitDir, repo.commonDir, ...repo.controlPaths] : []) {
    const rel = path.relative(realRoot, p).split(path.sep).join('/');
    if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) prefixes.push(rel, `${rel}/`);
  }
  if (prefixes.length === 0) return null;
  return (rel) => prefixes.some((p) => (p.endsWith('/') ? rel.startsWith(p) : rel === p));
}
