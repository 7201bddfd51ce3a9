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
import { lstat, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  findRepository,
  gitControlledPaths,
  personIncludeTargets,
  runInRepo,
  type GitControlled,
  type GitRepo,
} from '../git/repo.js';
import { realLocation } from './real-path.js';
import { readRegularFile } from '../regular-file.js';
import { isInsideRoot } from '../path-inside.js';

/**
 * Whether a folder has the shape git takes for a git directory, by git's own test (`is_git_directory`,
 * setup.c), read generously: a HEAD entry (a file, or a symlink, which git accepts when it points into
 * `refs/`), and either a `commondir` file (objects and refs then live in the folder it names) or
 * `objects/` and `refs/` that lead to folders (symlinks to folders count, as git's `access()` follows them).
 */
async function isGitDirShape(dir: string): Promise<boolean> {
  const entry = (name: string) => lstat(path.join(dir, name)).catch(() => undefined);
  const folder = (name: string) => stat(path.join(dir, name)).catch(() => undefined);
  const [head, commondir, objects, refs] = await Promise.all([
    entry('HEAD'),
    entry('commondir'),
    folder('objects'),
    folder('refs'),
  ]);
  if (!head || !(head.isFile() || head.isSymbolicLink())) return false;
  return Boolean(commondir || (objects?.isDirectory() && refs?.isDirectory()));
}

/** Entries that, written beside a HEAD, complete the shape of a git directory. */
const COMPLETES_GIT_DIR = new Set(['commondir', 'objects', 'refs']);

/** Whether `dir` holds a HEAD entry (a file or a symlink), so a git directory is one entry away. */
async function holdsHead(dir: string): Promise<boolean> {
  const head = await lstat(path.join(dir, 'HEAD')).catch(() => undefined);
  return Boolean(head && (head.isFile() || head.isSymbolicLink()));
}

/**
 * Why a path (real, project-relative) is controlled by git beyond its name, or undefined: it lies in a
 * folder shaped as a git directory (the root included), in the repository's git directory, or at or under
 * a path the repository's configuration reads or runs.
 *
 * @param realRoot  the project root, real path
 * @param realRel   where the path really leads, relative to `realRoot`, `/` separators
 * @param askedRel  the path as asked (before symlinks), relative to `realRoot`
 */
export async function gitControlReason(
  realRoot: string,
  realRel: string,
  askedRel: string = realRel,
): Promise<string | undefined> {
  const segments = realRel.split('/');
  for (let i = 0; i < segments.length; i++) {
    const folder = segments.slice(0, i).join('/');
    const dir = path.join(realRoot, folder);
    if (await isGitDirShape(dir)) {
      return folder === ''
        ? 'the project root has the shape of a git directory (HEAD, objects/, refs/)'
        : `it is inside ${folder}/, which has the shape of a git directory (HEAD, objects/, refs/)`;
    }
    if (COMPLETES_GIT_DIR.has(segments[i]!.toLowerCase()) && (await holdsHead(dir)))
      return `${folder || 'the project root'} holds a HEAD: ${segments[i]} there would make it a git directory`;
  }
  const abs = path.join(realRoot, ...segments);
  const asked = path.join(realRoot, ...askedRel.split('/'));
  const person = (await personIncludeTargets()).find((t) => isInsideRoot(t, abs) || isInsideRoot(t, asked));
  if (person) return `your git configuration includes ${path.relative(realRoot, person)}`;
  const controlled = await gitControlledPaths(realRoot);
  // Fail closed: a configuration that cannot be listed may name any path here as a hook or an include.
  if (controlled === null)
    return "the repository's git configuration cannot be listed whole (`git config --list` fails, prints over 8 MiB or times out), so nothing in it can be told apart from what git runs";
  if (controlled.gitDirs.some((dir) => isInsideRoot(dir, abs)))
    return 'it is inside the git directory of the repository';
  // Both where the path really leads and the path as asked: configuration may name either spelling.
  const hit = controlled.named.find((c) => isInsideRoot(c, abs) || isInsideRoot(c, asked));
  if (hit) return `git's configuration reads or runs ${path.relative(realRoot, hit) || '.'}`;
  return undefined;
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
 * repository's git directory and configuration-named paths when inside the root, the folder a
 * `commondir` file names, and the entries that make the root itself a git directory when it is one. In
 * `node_modules/` only each installed package's own `.git` is looked for; the walk does not enter symlinked
 * folders or what it found.
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
      // A `commondir` file sends git to another folder for objects, refs and config: that one too. It comes
      // with the project: read as a regular file only (a symlink to a FIFO or `/dev/tty` would block for good).
      const common = await readRegularFile(await realLocation(path.join(dir, 'commondir')), 4096);
      const target = common?.bytes.toString('utf8').split('\n')[0]?.trim();
      if (target) {
        const abs = path.resolve(dir, target);
        if (isInsideRoot(realRoot, abs) && abs !== realRoot) found.add(abs);
      }
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
      else if (entry.isDirectory() && entry.name === 'node_modules') seen += await packageGitDirs(abs, found);
      else if (entry.isDirectory()) stack.push(abs);
    }
  }
  // The root itself, once shaped as a git directory, is one for the person's next git there (no `.git`, or a
  // `git -C` given the folder): what completes its shape is a control path, so one a command adds is noticed.
  if (await isGitDirShape(realRoot))
    for (const name of COMPLETES_GIT_DIR) {
      const entry = path.join(realRoot, name);
      if (await lstat(entry).catch(() => undefined)) found.add(entry);
    }
  const repo = await findRepository(realRoot);
  const named = [
    ...allControlled(await gitControlledPaths(realRoot)),
    ...(repo ? await submoduleGitFiles(repo) : []),
    ...(await personIncludeTargets()),
  ];
  for (const p of named) if (isInsideRoot(realRoot, p) && p !== realRoot) found.add(p);
  return [...found].sort();
}

/**
 * Where the `.git` of each submodule of the repository goes (`<path>/.git` of every gitlink in the index),
 * checked out or not: an uninitialised submodule's folder is empty, and a `.git` made there is what the
 * person's next `git status` obeys.
 *
 * @returns absolute paths; empty when git fails
 */
async function submoduleGitFiles(repo: GitRepo): Promise<string[]> {
  const run = await runInRepo(repo, ['ls-files', '--stage', '-z'], { cwd: repo.workTree });
  if (!run.ok) return [];
  return run.stdout
    .toString('utf8')
    .split('\0')
    .filter((rec) => rec.startsWith('160000 '))
    .map((rec) => path.join(repo.workTree, rec.slice(rec.indexOf('\t') + 1), '.git'));
}

/**
 * The `.git` of each package installed straight under a `node_modules/` folder (`pkg/.git`, `@scope/pkg/.git`:
 * a dependency checked out from git, or vendored with its history), added to `found`. Deeper folders are
 * not walked: a large install holds hundreds of thousands of entries.
 *
 * @returns how many entries were looked at
 */
async function packageGitDirs(modules: string, found: Set<string>): Promise<number> {
  const list = async (dir: string): Promise<Dirent[]> =>
    readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[]);
  const packages: string[] = [];
  const top = await list(modules);
  for (const entry of top) {
    if (!entry.isDirectory()) continue;
    const abs = path.join(modules, entry.name);
    if (!entry.name.startsWith('@')) packages.push(abs);
    else for (const scoped of await list(abs)) if (scoped.isDirectory()) packages.push(path.join(abs, scoped.name));
  }
  for (const pkg of packages) {
    const git = path.join(pkg, '.git');
    if (await lstat(git).catch(() => undefined)) found.add(git);
  }
  return top.length + packages.length;
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
  for (let i = 0; i < listed.length; i++) {
    const rel = listed[i]!;
    const slash = rel.lastIndexOf('/');
    // Only a four-character name lowercases to `head` (lowercasing never shortens a string).
    if (slash === -1 || rel.length - slash !== 5 || rel.slice(slash + 1).toLowerCase() !== 'head') continue;
    const folder = rel.slice(0, slash);
    if (await isGitDirShape(path.join(realRoot, folder))) prefixes.push(`${folder}/`);
  }
  for (const p of [...allControlled(await gitControlledPaths(realRoot)), ...(await personIncludeTargets())]) {
    const rel = path.relative(realRoot, p).split(path.sep).join('/');
    if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) prefixes.push(rel, `${rel}/`);
  }
  if (prefixes.length === 0) return null;
  return (rel) => prefixes.some((p) => (p.endsWith('/') ? rel.startsWith(p) : rel === p));
}

/** Every path of `controlled`; none when the configuration could not be listed (a caller that can refuse does). */
function allControlled(controlled: GitControlled | null): string[] {
  return controlled ? [...controlled.gitDirs, ...controlled.named] : [];
}
