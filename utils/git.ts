import { execFile } from 'node:child_process';
import { ClawcodeError } from './errors.js';

/** A git command failed where clawcode needed it to work (`--commit`). Exit 1. */
export class GitError extends ClawcodeError {
  constructor(message: string, options: { code?: string; hint?: string; cause?: unknown } = {}) {
    super(message, { code: options.code ?? 'git_failed', exitCode: 1, hint: options.hint, cause: options.cause });
  }
}

/** Options shared by the git helpers; everything is optional and meant for tests. */
export interface GitOptions {
  /** the git executable (default `git` from PATH) */
  gitPath?: string;
  /** base environment (default `process.env`); prompts and locale are always overridden */
  env?: NodeJS.ProcessEnv;
  /** per git call, in ms (default 15 000) */
  timeoutMs?: number;
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

interface GitRun {
  ok: boolean;
  stdout: string;
  stderr: string;
  /** git itself is not installed */
  missing: boolean;
}

function runGit(rootDir: string, args: readonly string[], options: GitOptions = {}): Promise<GitRun> {
  const env = { ...(options.env ?? process.env), GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0' };
  return new Promise((resolvePromise) => {
    execFile(
      options.gitPath ?? 'git',
      ['--no-optional-locks', '-c', 'core.quotepath=off', '-C', rootDir, ...args],
      { env, timeout: options.timeoutMs ?? 15_000, maxBuffer: 32 * 1024 * 1024, windowsHide: true },
      (error, stdout, stderr) => {
        const missing = (error as { code?: unknown } | null)?.code === 'ENOENT';
        resolvePromise({ ok: error === null, stdout: String(stdout), stderr: String(stderr), missing });
      },
    );
  });
}

/**
 * Git facts for a folder. Never throws: no git, no repo or a broken repo all give `isRepo: false`.
 */
export async function getGitInfo(rootDir: string, options: GitOptions = {}): Promise<GitInfo> {
  const top = await runGit(rootDir, ['rev-parse', '--show-toplevel'], options);
  if (!top.ok) return { isRepo: false, branch: null, topLevel: null };
  const branch = await runGit(rootDir, ['symbolic-ref', '--quiet', '--short', 'HEAD'], options);
  let name = branch.ok ? branch.stdout.trim() : null;
  if (name === null) {
    const sha = await runGit(rootDir, ['rev-parse', '--short', 'HEAD'], options);
    name = sha.ok ? `(detached ${sha.stdout.trim()})` : null;
  }
  return { isRepo: true, branch: name, topLevel: top.stdout.trim() };
}

/** True when `rootDir` is inside a git work tree (false when git is not installed). */
export async function isGitRepo(rootDir: string, options: GitOptions = {}): Promise<boolean> {
  return (await getGitInfo(rootDir, options)).isRepo;
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
  const prefix = await runGit(rootDir, ['rev-parse', '--show-prefix'], options);
  if (!prefix.ok) return [];
  const status = await runGit(
    rootDir,
    ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--', ...paths.map(literal)],
    options,
  );
  if (!status.ok) return [];
  const base = prefix.stdout.trim();
  const dirty: DirtyFile[] = [];
  for (const entry of status.stdout.split('\0')) {
    if (entry.length < 4) continue;
    const topPath = entry.slice(3);
    if (!topPath.startsWith(base)) continue;
    dirty.push({ path: topPath.slice(base.length), status: entry.slice(0, 2) });
  }
  return dirty;
}

/**
 * Commit exactly `paths` (their working-tree state, including deletions and new files) with
 * `message`, leaving every other staged or unstaged change as it was: `git add -A -- paths`, then
 * `git commit --only -- paths`, which commits those paths alone from a temporary index. Hooks run.
 *
 * @param paths  project-relative paths with `/` separators (matched literally, never as globs)
 * @returns the new commit's full hash
 * @throws GitError (exit 1) git missing, not a repo, nothing to commit, no identity, a hook refused
 */
export async function commitFiles(
  rootDir: string,
  paths: readonly string[],
  message: string,
  options: GitOptions = {},
): Promise<{ commit: string }> {
  if (paths.length === 0) throw new GitError('Nothing to commit: no files given', { code: 'git_nothing_to_commit' });
  const info = await runGit(rootDir, ['rev-parse', '--show-toplevel'], options);
  if (info.missing) throw new GitError('Cannot commit: git is not installed', { code: 'git_missing' });
  if (!info.ok) throw new GitError(`Cannot commit: ${rootDir} is not a git repository`, { code: 'git_not_a_repo' });
  const specs = paths.map(literal);
  const add = await runGit(rootDir, ['add', '-A', '--', ...specs], options);
  if (!add.ok) throw new GitError(`git add failed: ${firstLine(add.stderr)}`);
  const commit = await runGit(rootDir, ['commit', '--only', '--quiet', '-m', message, '--', ...specs], options);
  if (!commit.ok) {
    const why = firstLine(commit.stderr) || firstLine(commit.stdout);
    const identity = /tell me who you are|user\.email|user\.name/i.test(commit.stderr);
    throw new GitError(`git commit failed: ${why}`, {
      hint: identity ? 'Set git user.name and user.email, then commit the applied files yourself.' : undefined,
    });
  }
  const head = await runGit(rootDir, ['rev-parse', 'HEAD'], options);
  return { commit: head.stdout.trim() };
}

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
