import { readdirSync, realpathSync, type Dirent } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { ClawcodeError } from '../errors.js';
import { findRepository, runInRepo, runOutsideRepository, withConfig, type GitRepo } from './repo.js';
import type { GitOptions, GitRun } from './run.js';

/** A git command failed where clawcode needed it to work (`--commit`). Exit 1. */
export class GitError extends ClawcodeError {
  constructor(message: string, options: { code?: string; hint?: string; cause?: unknown } = {}) {
    super(message, { code: options.code ?? 'git_failed', exitCode: 1, hint: options.hint, cause: options.cause });
  }
}

/** Git facts about a project folder, for the header and the apply warnings. */
export interface GitInfo {
  /** false when the folder is not inside a work tree or git is not installed */
  isRepo: boolean;
  /** branch name; `HEAD` detached at a commit shows as `(detached abc1234)`; `null` when not a repo */
  branch: string | null;
  /** absolute path of the work tree's top folder, `null` when not a repo */
  topLevel: string | null;
}

/** A file with uncommitted changes. `status` is git's two-letter porcelain code (`' M'`, `'A '`, `'??'`). */
export interface DirtyFile {
  /** project-relative path with `/` separators */
  path: string;
  status: string;
}

/**
 * Git facts for a folder. Never throws: no git, no repo or a broken repo all give `isRepo: false`.
 */
export async function getGitInfo(rootDir: string, options: GitOptions = {}): Promise<GitInfo> {
  const repo = await findRepository(rootDir, options);
  if (!repo) return { isRepo: false, branch: null, topLevel: null };
  const branch = await git(repo, ['symbolic-ref', '--quiet', '--short', 'HEAD'], options);
  let name = branch.ok ? text(branch).trim() : null;
  if (name === null) {
    const sha = await git(repo, ['rev-parse', '--short', 'HEAD'], options);
    name = sha.ok ? `(detached ${text(sha).trim()})` : null;
  }
  return { isRepo: true, branch: name, topLevel: repo.workTree };
}

/** True when `rootDir` is inside a git work tree (false when git is not installed). */
export async function isGitRepo(rootDir: string, options: GitOptions = {}): Promise<boolean> {
  return (await findRepository(rootDir, options)) !== null;
}

/**
 * Which of `paths` have uncommitted changes: staged, unstaged or untracked (the warning before an
 * apply). Returns `[]` when the folder is not a repo or git is missing. Ignored files are not listed.
 *
 * @param paths  project-relative paths with `/` separators; paths outside the project are ignored
 */
export async function dirtyFiles(
  rootDir: string,
  paths: readonly string[],
  options: GitOptions = {},
): Promise<DirtyFile[]> {
  if (paths.length === 0) return [];
  const repo = await findRepository(rootDir, options);
  if (!repo) return [];
  // git matches every entry against every pathspec: thousands of them (a plan of 12,000 patches) made this
  // quadratic. Past a few, the project folder is the pathspec and the paths are picked from its status.
  const specs = paths.length <= MAX_PATHSPECS ? paths.map(literal) : ['.'];
  const status = await git(
    repo,
    [
      'status',
      '--porcelain=v1',
      '-z',
      '--untracked-files=all',
      '--no-renames',
      '--ignore-submodules=all',
      '--',
      ...specs,
    ],
    options,
  );
  if (!status.ok) return [];
  const base = repo.prefix;
  const wanted = new Set(paths);
  const dirty: DirtyFile[] = [];
  for (const entry of text(status).split('\0')) {
    if (entry.length < 4) continue;
    const topPath = entry.slice(3);
    if (!topPath.startsWith(base) || !wanted.has(topPath.slice(base.length))) continue;
    dirty.push({ path: topPath.slice(base.length), status: entry.slice(0, 2) });
  }
  return dirty;
}

/**
 * Commit exactly `paths` (their working-tree state, including deletions and new files) with
 * `message`, leaving every other staged or unstaged change as it was: `git add -A -- paths`, then
 * `git commit --only -- paths`, which commits those paths alone from a temporary index. No hook runs and
 * the commit is not signed unless `hooks` is set (then git runs the repository's hooks and signs as
 * configured); no other program named by git configuration runs either way (utils/git/run.ts).
 *
 * @param paths  project-relative paths with `/` separators (matched literally, never as globs)
 * @returns the new commit's full hash
 * @throws GitError (exit 1) git missing, not a repo, nothing to commit, no identity, a hook refused
 */
export async function commitFiles(
  rootDir: string,
  paths: readonly string[],
  message: string,
  options: GitOptions & { hooks?: boolean } = {},
): Promise<{ commit: string }> {
  if (paths.length === 0) throw new GitError('Nothing to commit: no files given', { code: 'git_nothing_to_commit' });
  const found = await findRepository(rootDir, options);
  const repo = found && (await withConfig(found, options));
  if (!repo) {
    const version = await gitVersion(options);
    if (version.missing) throw new GitError('Cannot commit: git is not installed', { code: 'git_missing' });
    throw new GitError(`Cannot commit: ${rootDir} is not a git repository`, { code: 'git_not_a_repo' });
  }
  const outside = leadOutside([repo.gitDir, repo.commonDir]);
  if (outside !== undefined) {
    throw new GitError(`Cannot commit: the git directory leads outside itself (${outside})`, {
      code: 'git_dir_outside',
      hint: 'A symlink inside .git sends git to another folder; commit the applied files yourself.',
    });
  }
  const specs = paths.map(literal);
  const add = await git(repo, ['add', '-A', '--', ...specs], options);
  if (!add.ok) throw new GitError(`git add failed: ${firstLine(add.stderr)}`);
  const commit = await git(repo, ['commit', '--only', '--quiet', '-m', message, '--', ...specs], options);
  if (!commit.ok) {
    const why = firstLine(commit.stderr) || firstLine(text(commit));
    const identity = /tell me who you are|user\.email|user\.name/i.test(commit.stderr);
    throw new GitError(`git commit failed: ${why}`, {
      hint: identity ? 'Set git user.name and user.email, then commit the applied files yourself.' : undefined,
    });
  }
  const head = await git(repo, ['rev-parse', 'HEAD'], options);
  return { commit: text(head).trim() };
}

/** Most entries of a git directory looked at before a commit; a bigger one is not committed into. */
const MAX_GIT_DIR_ENTRIES = 500_000;

/**
 * The first symlink inside the git directories that leads out of the one it is in, since a commit writes
 * through them: a downloaded tree whose `.git/objects` and `.git/refs` were symlinks to another repository had
 * `--commit` add commits to that repository's branch. git itself keeps no such link.
 *
 * @param dirs  real paths of the git directory and the common directory
 * @returns the link's path (or a note that the folder is too big to check), or undefined when there is none
 */
function leadOutside(dirs: readonly string[]): string | undefined {
  let seen = 0;
  for (const base of new Set(dirs)) {
    const stack = [base];
    while (stack.length > 0) {
      const dir = stack.pop()!;
      let entries: Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (++seen > MAX_GIT_DIR_ENTRIES) return `over ${MAX_GIT_DIR_ENTRIES} entries to check`;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) stack.push(path);
        else if (entry.isSymbolicLink()) {
          let real: string;
          try {
            real = realpathSync(path);
          } catch {
            continue; // a dangling link: git writes nothing through it
          }
          const rel = relative(base, real);
          if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return path;
        }
      }
    }
  }
  return undefined;
}

/** `git --version` run outside any repository, to tell "no git" from "not a repository". */
function gitVersion(options: GitOptions): Promise<GitRun> {
  return runOutsideRepository(['--version'], options);
}

function git(repo: GitRepo, args: readonly string[], options: GitOptions & { hooks?: boolean }): Promise<GitRun> {
  return runInRepo(repo, args, options);
}

function text(run: GitRun): string {
  return run.stdout.toString('utf8');
}

/** Most paths `dirtyFiles` passes to git as pathspecs; more are filtered from the status of the whole folder. */
const MAX_PATHSPECS = 64;

/** A literal pathspec, so `*`, `?` and `:` in file names are never pattern magic. */
function literal(path: string): string {
  return `:(literal)${path}`;
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? ''
  );
}

/**
 * The editor the person configured for git: the last `core.editor` of the system and global configuration
 * (and what they include), read with no repository, so a project's own `.git/config` or include never
 * names the program. The guard's own `core.editor` (command scope) is skipped.
 *
 * @returns the command line as written, or undefined when none is configured or git is missing
 */
export async function configuredEditor(options: GitOptions = {}): Promise<string | undefined> {
  const run = await runOutsideRepository(['config', '--get-all', '--show-scope', '-z', 'core.editor'], options);
  if (!run.ok) return undefined;
  // "-z --show-scope": scope NUL value NUL, per value.
  const parts = text(run).split('\0');
  let editor: string | undefined;
  for (let i = 0; i + 1 < parts.length; i += 2)
    if (parts[i] !== 'command' && parts[i + 1]!.trim()) editor = parts[i + 1]!.trim();
  return editor;
}
