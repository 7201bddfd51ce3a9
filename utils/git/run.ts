import { spawn } from 'node:child_process';
import { executableOutside } from '../executable.js';

/**
 * The one way clawcode starts git. Every call gets a fixed environment (only the variables below pass
 * from the person's environment), git found once on PATH outside the project, and a set of `-c` settings
 * that switch off every configuration key naming a program git would start for the commands clawcode
 * runs (rev-parse, config, ls-files, status, add, commit, log, symbolic-ref). Settings given with `-c`
 * come after every configuration file, include files among them, and pass on to the git processes git
 * itself starts, so no file in the project can turn them back on. Which repository a call works on is
 * decided once, by utils/git/repo.ts, and passed as `--git-dir`/`--work-tree`.
 */

/** Options of every git helper; everything is optional and meant for tests. */
export interface GitOptions {
  /** the git executable (default: `git` found on PATH, skipping relative entries and the project) */
  gitPath?: string;
  /** base environment (default `process.env`); only the variables in GIT_ENV_ALLOWED are taken from it */
  env?: NodeJS.ProcessEnv;
  /** per git call, in ms (default 15 000; 0 = none) */
  timeoutMs?: number;
}

/** What one git call did. */
export interface GitRun {
  /** exit status 0, not killed, output within the limit */
  ok: boolean;
  stdout: Buffer;
  stderr: string;
  /** the git executable could not be found or started */
  missing: boolean;
}

/** Variables of the person's environment git may see: identity, the config files to read, home, PATH. */
const GIT_ENV_ALLOWED = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'EMAIL',
  'TZ',
  'XDG_CONFIG_HOME',
  'SYSTEMROOT',
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_AUTHOR_DATE',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_COMMITTER_DATE',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_CONFIG_NOSYSTEM',
]);

/**
 * Settings given to every git call. Each names a program (or turns on something that starts one) that
 * git reads from configuration: the file-system monitor, hooks (`core.hooksPath` pointing at a file
 * means no hook is found), editors and pagers, external diff, ssh and proxies, credential helpers,
 * signature checks in `git log`, automatic gc/maintenance (which start more git with hooks), submodule
 * recursion (a submodule's own config would name its own programs) and every transport
 * (`protocol.allow=never` also stops the lazy fetch of a partial clone). `safe.bareRepository=explicit`
 * keeps git from taking a folder with HEAD, objects/ and refs/ for a repository.
 */
export const GIT_GUARD: readonly string[] = [
  'core.fsmonitor=false',
  'core.editor=:',
  'sequence.editor=:',
  'core.pager=cat',
  'diff.external=',
  'core.sshCommand=',
  'core.gitProxy=',
  'core.askPass=',
  'core.alternateRefsCommand=',
  'credential.helper=',
  'protocol.allow=never',
  'submodule.recurse=false',
  'diff.ignoreSubmodules=all',
  'status.submoduleSummary=false',
  'log.showSignature=false',
  'gc.auto=0',
  'maintenance.auto=false',
  'safe.bareRepository=explicit',
  'core.quotepath=off',
].flatMap((kv) => ['-c', kv]);

/** The programs of a commit: hooks and signing. Off unless the person asked for hooks. */
export const COMMIT_PROGRAMS_OFF: readonly string[] = [
  'core.hooksPath=/dev/null',
  'commit.gpgSign=false',
  'tag.gpgSign=false',
].flatMap((kv) => ['-c', kv]);

/**
 * The environment of a git call: the allowed variables of `base`, then fixed values (no prompts, C
 * locale, no optional index locks, no pager, no lazy fetch).
 *
 * @param base   usually `process.env`
 * @param extra  variables added last (the caller's own, e.g. GIT_EDITOR for the editor lookup)
 */
export function gitEnv(base: NodeJS.ProcessEnv, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base))
    if (GIT_ENV_ALLOWED.has(key) && value !== undefined) env[key] = value;
  return {
    ...env,
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_PAGER: 'cat',
    GIT_NO_LAZY_FETCH: '1',
    GIT_PROTOCOL_FROM_USER: '0',
    ...extra,
  };
}

const found = new Map<string, string | null>();

/**
 * The git executable for a project: `options.gitPath`, else the first `git` on PATH whose folder is
 * absolute and whose real location is outside `realRoot` (a PATH holding `bin` or `./node_modules/.bin`
 * would otherwise start a `git` the project supplies). Looked up once per PATH and root.
 *
 * @returns an absolute path, or null when there is none
 */
export function gitExecutable(realRoot: string | null, options: GitOptions = {}): string | null {
  if (options.gitPath) return options.gitPath;
  const path = (options.env ?? process.env).PATH ?? '';
  const key = `${realRoot ?? ''}\0${path}`;
  if (found.has(key)) return found.get(key)!;
  const names = process.platform === 'win32' ? ['git.exe', 'git.cmd'] : ['git'];
  const hit = executableOutside(names, realRoot, path);
  found.set(key, hit);
  return hit;
}

/** How one call runs: the folder, what to prepend, the output limit. */
export interface GitCall {
  /** working folder (the project root for pathspecs; `/` for calls that need no repository) */
  cwd: string;
  /** project real root, to find git outside it (null: no project) */
  realRoot: string | null;
  /** arguments before the command: `--git-dir`/`--work-tree` and the guard */
  prefix: readonly string[];
  args: readonly string[];
  /** most bytes of stdout kept; past it the call is killed and fails (default 32 MiB) */
  maxBytes?: number;
  /** variables added to the environment */
  extraEnv?: Record<string, string>;
  /** start git with every variable of the person's environment except GIT_* ones (hooks the person asked for) */
  personEnv?: boolean;
}

/**
 * Spawn git once and collect its output. Never throws: a missing git, a failing command, a timeout or
 * output over the limit all give `ok: false`.
 */
export function spawnGit(call: GitCall, options: GitOptions = {}): Promise<GitRun> {
  const gitPath = gitExecutable(call.realRoot, options);
  if (!gitPath) return Promise.resolve({ ok: false, stdout: Buffer.alloc(0), stderr: '', missing: true });
  const base = options.env ?? process.env;
  const env = call.personEnv
    ? { ...withoutGitVars(base), ...gitEnv(base, call.extraEnv) }
    : gitEnv(base, call.extraEnv);
  const maxBytes = call.maxBytes ?? 32 * 1024 * 1024;
  return new Promise((done) => {
    let child;
    try {
      child = spawn(gitPath, [...call.prefix, ...call.args], {
        cwd: call.cwd,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
        timeout: options.timeoutMs ?? 15_000,
      });
    } catch {
      done({ ok: false, stdout: Buffer.alloc(0), stderr: '', missing: true });
      return;
    }
    const chunks: Buffer[] = [];
    let bytes = 0;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= maxBytes) chunks.push(chunk);
      else child.kill();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += chunk.toString('utf8');
    });
    child.on('error', (error: NodeJS.ErrnoException) =>
      done({ ok: false, stdout: Buffer.alloc(0), stderr: error.message, missing: error.code === 'ENOENT' }),
    );
    child.on('close', (code) =>
      done({ ok: code === 0 && bytes <= maxBytes, stdout: Buffer.concat(chunks), stderr, missing: false }),
    );
  });
}

function withoutGitVars(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !key.startsWith('GIT_')));
}
