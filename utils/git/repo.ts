import { lstatSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { configControlPaths, driverGuard, parseConfigList, realTail, type ConfigEntry } from './config-guard.js';
export { driverGuard } from './config-guard.js';
import { COMMIT_PROGRAMS_OFF, GIT_GUARD, spawnGit, type GitOptions, type GitRun } from './run.js';
import { isInsideRoot } from '../path-inside.js';
import { readRegularText } from '../regular-file.js';

/**
 * The repository of a project, found once per process and root: git discovers it from the root (no
 * folder with HEAD, objects/ and refs/ is ever taken for one, `safe.bareRepository=explicit`), and it
 * counts only when its work tree's top folder holds the `.git` that leads to it. Every later call names
 * it with `--git-dir`/`--work-tree`, so a git directory that a plan or a command plants afterwards is
 * never obeyed. Its configuration is read once to switch off the programs it names per driver
 * (`filter.<name>.clean`, `diff.<name>.textconv`, `hook.<name>.command` …) and to find the files inside
 * the project that git reads or runs (include targets, the hooks folder), which are control paths.
 */

/** A repository as clawcode uses it. Paths are absolute real paths. */
export interface GitRepo {
  /** the project root this repository was found for */
  root: string;
  /** the git directory of the work tree (`.git`, or where a `.git` file points) */
  gitDir: string;
  /** the directory shared by linked work trees (equals gitDir for the main one) */
  commonDir: string;
  /** the top folder of the work tree */
  workTree: string;
  /** the project root relative to the top folder, `''` or ending in `/` (`pkg/`) */
  prefix: string;
  /** `--git-dir`, `--work-tree` and the guard, for every call */
  prefixArgs: string[];
  /** settings that switch off hooks and signing (left out when the person asked for hooks) */
  commitProgramsOff: string[];
  /**
   * Files and folders inside the work tree that git reads as configuration or runs: configuration files
   * pulled in by `include.path`/`includeIf`, the `core.hooksPath` folder, the programs that
   * configuration values name by a path inside the tree.
   */
  controlPaths: string[];
}

/**
 * What discovery found for a root: the repository clawcode uses, and the paths git obeys there whether or not
 * clawcode uses the repository (`null` when a repository was found but its configuration could not be listed).
 */
interface Discovery {
  repo: GitRepo | null;
  controlled: GitControlled | null;
}

/** The paths git obeys for a repository, absolute: its git directories, and what its configuration names. */
export interface GitControlled {
  /** the work tree's git directory and the one shared by linked work trees (the same folder for the main one) */
  gitDirs: string[];
  /** include targets, the hooks folder, programs given by path (`GitRepo.controlPaths`) */
  named: string[];
}

const repos = new Map<string, Promise<Discovery>>();

/**
 * The repository of a project root, found on the first call for that root (and git and environment)
 * and remembered for the life of the process. Never throws.
 *
 * @param rootDir  the project root (absolute, or relative to the working folder)
 * @returns the repository, or null: no git, not inside a work tree, a refused bare shape, or a
 *          configuration that cannot be listed whole or whose driver names cannot be written as `-c` settings
 */
export function findRepository(rootDir: string, options: GitOptions = {}): Promise<GitRepo | null> {
  return discovery(rootDir, options).then((d) => d.repo);
}

/**
 * The paths inside or beside a project that git obeys for the repository found from its root, whether
 * clawcode uses that repository or refused it (a foreign git directory, a driver name it cannot switch off):
 * its git directories and the paths its configuration names. The person's next git run there still obeys
 * them, so they stay control paths. Never throws.
 *
 * @returns the paths; both lists empty when git finds no repository; null when it finds one whose configuration could
 *          not be listed whole (over 8 MiB, past the time limit, a malformed include): nothing there can be
 *          told apart from what git reads or runs
 */
export function gitControlledPaths(rootDir: string, options: GitOptions = {}): Promise<GitControlled | null> {
  return discovery(rootDir, options).then((d) => d.controlled);
}

function discovery(rootDir: string, options: GitOptions): Promise<Discovery> {
  let realRoot: string;
  try {
    realRoot = realpathSync(rootDir);
  } catch {
    return Promise.resolve({ repo: null, controlled: { gitDirs: [], named: [] } });
  }
  const env = options.env ?? process.env;
  const key = [realRoot, options.gitPath, env.PATH, env.HOME, env.GIT_CONFIG_GLOBAL, env.GIT_CONFIG_NOSYSTEM].join(
    '\0',
  );
  let repo = repos.get(key);
  if (!repo) {
    repo = discover(realRoot, options);
    repos.set(key, repo);
  }
  return repo;
}

async function discover(realRoot: string, options: GitOptions): Promise<Discovery> {
  const none: Discovery = { repo: null, controlled: { gitDirs: [], named: [] } };
  const find = (args: string[], maxBytes?: number): Promise<GitRun> =>
    spawnGit({ cwd: realRoot, realRoot, prefix: GIT_GUARD, args, maxBytes }, options);
  // Both discover the same repository (`git config` runs no program); side by side, finding costs one spawn.
  const [paths, config] = await Promise.all([
    find(['rev-parse', '--path-format=absolute', '--absolute-git-dir', '--git-common-dir', '--show-toplevel']),
    find(CONFIG_LIST, CONFIG_MAX_BYTES),
  ]);
  if (!paths.ok) return none;
  const [gitDirRaw, commonRaw, topRaw] = paths.stdout.toString('utf8').split('\n');
  if (!gitDirRaw || !commonRaw || !topRaw) return none;
  const gitDir = realOrNull(gitDirRaw);
  const commonDir = realOrNull(commonRaw);
  const workTree = realOrNull(topRaw);
  if (!gitDir || !commonDir || !workTree || !leadsTo(workTree, gitDir)) return none;
  const prefix = relative(workTree, realRoot).split(sep).join('/');
  if (prefix.startsWith('..') || isAbsolute(prefix)) return none;
  const where = { root: realRoot, gitDir, commonDir, workTree, prefix: prefix === '' ? '' : `${prefix}/` };
  const repo = await withConfig(where, options, config);
  const gitDirs = [gitDir, commonDir];
  if (repo) return { repo, controlled: { gitDirs, named: repo.controlPaths } };
  // Refused, but the person's own git still obeys this repository there: what it names stays controlled.
  if (!config.ok) return { repo: null, controlled: null };
  const entries = parseConfigList(config.stdout, workTree);
  return { repo: null, controlled: { gitDirs, named: configControlPaths(entries, workTree, gitDir, commonDir) } };
}

const CONFIG_LIST = ['config', '-z', '--list', '--show-origin'];
const CONFIG_MAX_BYTES = 8 << 20;

/**
 * The repository with its configuration read now: the per-driver guard and the configuration-named
 * control paths. Called when the repository is found, and again right before a commit, so a driver
 * defined since (by the person, or in a file a policy gap let through) is switched off too.
 *
 * @param listed  `git config -z --list --show-origin` run from the root already (when finding it)
 * @returns null when a driver name cannot be written as a `-c` setting, or the configuration could not be
 *          listed whole (git failed, printed over 8 MiB, or took past the time limit)
 */
export async function withConfig(
  where: Pick<GitRepo, 'root' | 'gitDir' | 'commonDir' | 'workTree' | 'prefix'>,
  options: GitOptions = {},
  listed?: GitRun,
): Promise<GitRepo | null> {
  const base = [`--git-dir=${where.gitDir}`, `--work-tree=${where.workTree}`, ...GIT_GUARD];
  const config =
    listed ??
    (await spawnGit(
      { cwd: where.root, realRoot: where.root, prefix: base, args: CONFIG_LIST, maxBytes: CONFIG_MAX_BYTES },
      options,
    ));
  // A listing that failed (over the byte limit, past the time limit) names no driver to switch off, and git
  // would still run each one it reads: the repository is then not used, never used unguarded.
  if (!config.ok) return null;
  // git moves to the work tree's top folder before it reads configuration: a discovered repository's origins
  // (`.git/config`) are relative to it, not to a project folder below it.
  const entries = parseConfigList(config.stdout, where.workTree);
  if (!ownGitDir(where, entries)) return null;
  const guard = driverGuard(entries.map((e) => e.key));
  if (guard === null) return null;
  return {
    ...where,
    prefixArgs: [...base, ...guard.always],
    commitProgramsOff: [...COMMIT_PROGRAMS_OFF, ...guard.commit],
    controlPaths: configControlPaths(entries, where.workTree, where.gitDir, where.commonDir),
  };
}

/**
 * Whether the git directory (and the directory shared with other work trees) is this work tree's own, so
 * clawcode may read its index and commit into it: a git directory inside the work tree with no other shared
 * one; a linked work tree's, kept by git at `<common>/worktrees/<id>` with a `gitdir` file naming this
 * tree's `.git`; or one elsewhere whose `core.worktree` names this tree (a submodule's, an absorbed one).
 * A `.git` file or a `commondir` file comes with a downloaded tree and may name any repository on the
 * machine (`gitdir: ../dotfiles/.git`): `--commit` then committed into it. The other repository never
 * names this tree back.
 */
function ownGitDir(
  where: Pick<GitRepo, 'gitDir' | 'commonDir' | 'workTree'>,
  entries: readonly ConfigEntry[],
): boolean {
  const { gitDir, commonDir, workTree } = where;
  if (gitDir !== commonDir) {
    if (dirname(gitDir) !== join(commonDir, 'worktrees')) return false;
    const back = readRegularText(join(gitDir, 'gitdir'), 4096, true)?.trim();
    return Boolean(back) && realOrNull(resolve(gitDir, back!)) === realOrNull(join(workTree, '.git'));
  }
  if (isInsideRoot(workTree, gitDir)) return true;
  const own = join(gitDir, 'config');
  return entries.some(
    (e) =>
      e.key === 'core.worktree' &&
      e.file !== undefined &&
      realOrNull(e.file) === own &&
      realOrNull(resolve(gitDir, e.value)) === workTree,
  );
}

function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/**
 * Whether the work tree's top folder holds the `.git` of `gitDir`: the folder itself, or a `.git` file
 * whose `gitdir:` line points to it (a linked work tree, a submodule, `--separate-git-dir`). What git
 * found any other way (`core.worktree` elsewhere, a bare shape taken by an older git) is not used.
 */
function leadsTo(workTree: string, gitDir: string): boolean {
  const dotGit = join(workTree, '.git');
  const info = lstatQuiet(dotGit);
  if (info?.isDirectory()) return realOrNull(dotGit) === gitDir;
  if (!info?.isFile()) return false;
  const line = /^gitdir: (.*)$/m.exec(readRegularText(dotGit, 4096, true) ?? '')?.[1]?.trim();
  return line !== undefined && realOrNull(resolve(workTree, line)) === gitDir;
}

function lstatQuiet(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** Run git on a repository: `--git-dir`, `--work-tree`, the guard, and (unless `hooks`) hooks and signing off. */
export function runInRepo(
  repo: GitRepo,
  args: readonly string[],
  options: GitOptions & { cwd?: string; maxBytes?: number; hooks?: boolean } = {},
): Promise<GitRun> {
  return spawnGit(
    {
      cwd: options.cwd ?? repo.root,
      realRoot: repo.workTree,
      prefix: [...repo.prefixArgs, ...(options.hooks ? [] : repo.commitProgramsOff)],
      args,
      maxBytes: options.maxBytes,
      personEnv: options.hooks,
    },
    options,
  );
}

/**
 * Run git with no repository: in `/`, so git discovers none of the project's (only `/.git` or `/`
 * itself could be found, and `/` as a bare shape is refused), with the guard and hooks off.
 */
export function runOutsideRepository(args: readonly string[], options: GitOptions = {}): Promise<GitRun> {
  return spawnGit({ cwd: '/', realRoot: null, prefix: [...GIT_GUARD, ...COMMIT_PROGRAMS_OFF], args }, options);
}

/**
 * Run git on the repository of `rootDir` (found once, programs off) from the root and split its
 * NUL-separated output (`-z` listings).
 *
 * @returns the non-empty records, or null when there is no repository, git fails, or prints over `maxBytes`
 */
export async function gitRecords(
  rootDir: string,
  args: readonly string[],
  options: GitOptions & { maxBytes?: number } = {},
): Promise<string[] | null> {
  const repo = await findRepository(rootDir, options);
  return repo ? recordsInRepo(repo, args, { ...options, cwd: rootDir }) : null;
}

/**
 * `gitRecords` on a repository already found: git is spawned before this returns, so a caller that then
 * runs synchronous work (loading a cache) has git running beside it rather than waiting for it.
 *
 * @param options.cwd  the folder git runs in (default the project root)
 * @returns the non-empty records, or null when git fails, times out or prints over `maxBytes`
 */
export function recordsInRepo(
  repo: GitRepo,
  args: readonly string[],
  options: GitOptions & { cwd?: string; maxBytes?: number } = {},
): Promise<string[] | null> {
  return runInRepo(repo, args, options).then((run) =>
    run.ok
      ? run.stdout
          .toString('utf8')
          .split('\0')
          .filter((p) => p !== '')
      : null,
  );
}

const personTargets = new Map<string, Promise<string[]>>();

/**
 * The files the person's own system and global git configuration includes, whatever the condition
 * (`includeIf "gitdir:~/work/"` names a file that a repository under `~/work` reads): a file there that a plan
 * or a command rewrites is read by the person's next git in every matching repository. Read once per
 * process and environment.
 *
 * @returns absolute paths, each as written and where it really leads; never throws
 */
export function personIncludeTargets(options: GitOptions = {}): Promise<string[]> {
  const env = options.env ?? process.env;
  const key = [
    env.HOME,
    env.XDG_CONFIG_HOME,
    env.GIT_CONFIG_GLOBAL,
    env.GIT_CONFIG_SYSTEM,
    env.GIT_CONFIG_NOSYSTEM,
  ].join('\0');
  let found = personTargets.get(key);
  if (!found) {
    found = runOutsideRepository(CONFIG_LIST, options).then((run) => {
      const out = new Set<string>();
      if (!run.ok) return [];
      for (const { file, key: name, value } of parseConfigList(run.stdout, '/')) {
        if (!file || !value || !(name === 'include.path' || /^includeif\..*\.path$/.test(name))) continue;
        const target = resolve(dirname(file), value.replace(/^~(?=\/)/, env.HOME ?? '~'));
        out.add(target).add(realTail(target));
      }
      return [...out];
    });
    personTargets.set(key, found);
  }
  return found;
}
