import { spawnSync } from 'node:child_process';
import { existsSync, rmdirSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';

/**
 * Whether plan and verify commands can run inside an OS sandbox here. Only bubblewrap (`bwrap`, Linux) is
 * used: `@anthropic-ai/sandbox-runtime` wraps the same tool but needs Node 22.12+ (clawcode supports 20.19)
 * and adds a proxy stack (socat, a SOCKS server) clawcode does not need, since it only allows or blocks all
 * network for a run. macOS and Windows have no sandbox here yet.
 */
export type SandboxStatus =
  { available: true; kind: 'bubblewrap'; bwrapPath: string } | { available: false; reason: string };

/** What one sandboxed command may do. */
export interface SandboxPolicy {
  /** the project root (absolute): the only folder written through, except its control folders */
  rootDir: string;
  /** keep the host network (`--allow-network`); default: none, not even loopback */
  allowNetwork: boolean;
}

/** Control folders inside the root that stay read-only in the sandbox; missing ones cannot be created either. */
const READ_ONLY_INSIDE = ['.git', '.hg', '.svn', '.clawcode'];

let cached: Promise<SandboxStatus> | undefined;
let cachedKey = '';

/**
 * Find out once per process whether bubblewrap works here: it must be on PATH and a trial run with the
 * namespaces the sandbox uses (mount, pid, network) must succeed; containers and kernels that restrict user
 * namespaces fail the trial. `CLAWCODE_SANDBOX=off` in `env` turns the sandbox off.
 *
 * @returns the status; never throws
 */
export function detectSandbox(env: NodeJS.ProcessEnv = process.env): Promise<SandboxStatus> {
  const key = `${env.CLAWCODE_SANDBOX ?? ''}\0${env.PATH ?? ''}`;
  if (cached && cachedKey === key) return cached;
  cachedKey = key;
  cached = Promise.resolve(probe(env));
  return cached;
}

function probe(env: NodeJS.ProcessEnv): SandboxStatus {
  if (env.CLAWCODE_SANDBOX === 'off') return { available: false, reason: 'turned off by CLAWCODE_SANDBOX=off' };
  if (process.platform !== 'linux')
    return { available: false, reason: `no sandbox is supported on ${process.platform} yet` };
  const bwrapPath = (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, 'bwrap'))
    .find((p) => existsSync(p));
  if (!bwrapPath) return { available: false, reason: 'bubblewrap (bwrap) is not installed' };
  const trial = spawnSync(bwrapPath, [...baseArgs(false), '--', '/bin/sh', '-c', 'true'], {
    timeout: 10_000,
    stdio: 'pipe',
    encoding: 'utf8',
  });
  if (trial.status !== 0) {
    const why = (trial.stderr || trial.error?.message || `exit ${trial.status ?? trial.signal}`).trim().split('\n')[0];
    return { available: false, reason: `bubblewrap cannot create a sandbox here (${why})` };
  }
  return { available: true, kind: 'bubblewrap', bwrapPath };
}

function baseArgs(allowNetwork: boolean): string[] {
  // "/" read-only does not stop connect() on a Unix socket (the Docker daemon, D-Bus, a database, the ssh agent
  // under /run/user): an empty /run hides those; the resolver's folder stays for DNS under --allow-network.
  const run = existsSync('/run')
    ? ['--tmpfs', '/run', '--ro-bind-try', '/run/systemd/resolve', '/run/systemd/resolve']
    : [];
  return [
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    ...(allowNetwork ? [] : ['--unshare-net']),
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    ...run,
    // Caches under the read-only home (go's build cache, pip's) go to the private /tmp instead.
    '--setenv',
    'XDG_CACHE_HOME',
    '/tmp/.cache',
  ];
}

/**
 * The bubblewrap argument list that runs `command` through `/bin/sh -c` in the sandbox: the whole file system
 * read-only; the project root writable except its control folders (`.git`, `.hg`, `.svn`, `.clawcode`, kept
 * read-only; a missing one becomes an empty read-only folder for the run, so a command cannot plant a `.git`
 * whose config clawcode's own next git call would obey, and `cleanup` removes that empty folder afterwards;
 * git skips an empty `.git`); a private empty `/tmp` (also the `TMPDIR` when that lies elsewhere) and `/run`;
 * fresh `/dev` and `/proc`; a new pid namespace and session (the command cannot outlive the sandbox or reach
 * the terminal); no network unless allowed. Paths outside the root, including other folders under `/tmp`,
 * cannot be written.
 *
 * @returns `args` for `bwrap` (the program path itself not included) and `cleanup`, to call once it has exited
 */
export function sandboxArgs(command: string, policy: SandboxPolicy): { args: string[]; cleanup: () => void } {
  const root = resolve(policy.rootDir);
  const args = baseArgs(policy.allowNetwork);
  const tmp = resolve(tmpdir());
  // Mounted before the root, so a root inside the temp folder is bound back on top of the empty one.
  if (tmp !== '/tmp') args.push('--tmpfs', tmp);
  args.push('--bind', root, root);
  const created: string[] = [];
  for (const name of READ_ONLY_INSIDE) {
    const path = join(root, name);
    if (existsSync(path)) {
      args.push('--ro-bind', path, path);
    } else {
      args.push('--tmpfs', path, '--remount-ro', path);
      created.push(path);
    }
  }
  args.push('--chdir', root, '--', '/bin/sh', '-c', command);
  const cleanup = (): void => {
    for (const path of created) {
      try {
        rmdirSync(path); // only ever empty: it was read-only for the whole run
      } catch {
        // gone already, or something else made it meanwhile: leave it
      }
    }
  };
  return { args, cleanup };
}
