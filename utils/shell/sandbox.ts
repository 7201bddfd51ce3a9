import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, rmdirSync, unlinkSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { tmpdir } from 'node:os';
import { findControlPaths } from '../policy/git-control.js';
import { homeView } from './sandbox-home.js';

/**
 * Whether plan and verify commands can run inside an OS sandbox here. Only bubblewrap (`bwrap`, Linux) is
 * used: `@anthropic-ai/sandbox-runtime` wraps the same tool but needs Node 22.12+ (clawcode supports 20.19)
 * and adds a proxy stack (socat, a SOCKS server) clawcode does not need, since it only allows or blocks all
 * network for a run. macOS and Windows have no sandbox here yet.
 */
export type SandboxStatus =
  | {
      available: true;
      kind: 'bubblewrap';
      bwrapPath: string;
      /** util-linux `prlimit`, which sets the caps inside the sandbox */
      prlimitPath: string;
      /** this bubblewrap can forbid new user namespaces inside (`--disable-userns`, 0.8+) */
      disableUserns: boolean;
    }
  | { available: false; reason: string };

/** A sandbox that works here. */
export type SandboxReady = Extract<SandboxStatus, { available: true }>;

/** What one sandboxed command may do. */
export interface SandboxPolicy {
  /** the project root (absolute): the only folder written through, except its control paths */
  rootDir: string;
  /** keep the host network (`--allow-network`); default: none, not even loopback */
  allowNetwork: boolean;
}

/** Most processes (threads count) of one sandboxed command at a time. */
export const SANDBOX_MAX_PROCESSES = 2048;
/** Largest file one sandboxed command may write, in bytes (512 MiB). */
export const SANDBOX_MAX_FILE_BYTES = 512 * 1024 * 1024;

/** Control folders at the root that stay read-only; missing ones become empty read-only stand-ins for the run. */
const READ_ONLY_INSIDE = ['.git', '.hg', '.svn', '.clawcode'];

let cached: Promise<SandboxStatus> | undefined;
let cachedKey = '';

/**
 * Find out once per process whether bubblewrap works here as a wall: it must be on PATH with `prlimit`, and
 * a trial run with everything the sandbox uses must succeed: new user (as an unprivileged id, every
 * capability dropped), mount, pid, ipc, uts and network namespaces, and the caps. Containers and kernels
 * that forbid user namespaces fail the trial; then there is no sandbox and every command needs a person's
 * yes. `CLAWCODE_SANDBOX=off` in `env` turns the sandbox off.
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

function onPath(env: NodeJS.ProcessEnv, name: string): string | undefined {
  return (env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir && isAbsolute(dir))
    .map((dir) => join(dir, name))
    .find((p) => existsSync(p));
}

function probe(env: NodeJS.ProcessEnv): SandboxStatus {
  if (env.CLAWCODE_SANDBOX === 'off') return { available: false, reason: 'turned off by CLAWCODE_SANDBOX=off' };
  if (process.platform !== 'linux')
    return { available: false, reason: `no sandbox is supported on ${process.platform} yet` };
  const bwrapPath = onPath(env, 'bwrap');
  if (!bwrapPath) return { available: false, reason: 'bubblewrap (bwrap) is not installed' };
  const prlimitPath = onPath(env, 'prlimit');
  if (!prlimitPath) return { available: false, reason: 'prlimit (util-linux) is not installed' };
  let why = '';
  for (const disableUserns of [true, false]) {
    const status: SandboxReady = { available: true, kind: 'bubblewrap', bwrapPath, prlimitPath, disableUserns };
    const trial = spawnSync(bwrapPath, [...isolation(status, false), ...caps(status), '/bin/sh', '-c', 'true'], {
      timeout: 10_000,
      stdio: 'pipe',
      encoding: 'utf8',
    });
    if (trial.status === 0) return status;
    why ||= (trial.stderr || trial.error?.message || `exit ${trial.status ?? trial.signal}`).trim().split('\n')[0]!;
  }
  return { available: false, reason: `bubblewrap cannot create a sandbox here (${why})` };
}

/**
 * The id a command runs as: the person's own, or for root an unprivileged one (65534, "nobody"). Inside
 * its user namespace the command holds no capability either way, so it cannot mount, unmount or remount.
 */
function sandboxIds(): { uid: number; gid: number } {
  const uid = process.getuid?.() ?? 65534;
  const gid = process.getgid?.() ?? 65534;
  return uid === 0 ? { uid: 65534, gid: 65534 } : { uid, gid };
}

function isolation(status: SandboxReady, allowNetwork: boolean): string[] {
  const { uid, gid } = sandboxIds();
  // "/" read-only does not stop connect() on a Unix socket (the Docker daemon, D-Bus, a database, the ssh agent
  // under /run/user): an empty /run hides those; the resolver's folder stays for DNS under --allow-network.
  const run = existsSync('/run')
    ? ['--tmpfs', '/run', '--ro-bind-try', '/run/systemd/resolve', '/run/systemd/resolve']
    : [];
  return [
    '--die-with-parent',
    '--new-session',
    '--unshare-user',
    '--uid',
    String(uid),
    '--gid',
    String(gid),
    '--cap-drop',
    'ALL',
    ...(status.disableUserns ? ['--disable-userns'] : []),
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
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
  ];
}

/** The end of the argument list: the caps, set by prlimit inside the sandbox, then the program. */
function caps(status: SandboxReady): string[] {
  return [
    '--',
    status.prlimitPath,
    `--nproc=${SANDBOX_MAX_PROCESSES}`,
    `--fsize=${SANDBOX_MAX_FILE_BYTES}`,
    '--core=0',
    '--',
  ];
}

function within(dir: string, target: string): boolean {
  const rel = relative(dir, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * The bubblewrap argument list that runs `command` through `/bin/sh -c` in the sandbox:
 * - as an unprivileged id in a new user namespace with no capability, no new user namespace inside;
 *   new pid (the command cannot outlive the sandbox), ipc, uts and network namespaces (network only when
 *   allowed), a new session (it cannot reach the terminal);
 * - the whole file system read-only; the home folders and clawcode's home hidden (sandbox-home.ts);
 *   a private empty `/tmp` (also the temp folder when that lies elsewhere) and `/run`;
 * - the project root writable except its control paths, bound read-only: `.git`, `.hg`, `.svn`,
 *   `.clawcode` (a missing one becomes an empty read-only stand-in, so a command cannot plant one), a
 *   stand-in `HEAD` at the root (so the root cannot become a git directory), and every control path
 *   found in the tree (utils/policy/git-control.ts: git directories at any depth and under any name,
 *   `.husky/`, hook tool configurations, what the repository's configuration names);
 * - at most {@link SANDBOX_MAX_PROCESSES} processes (as root, the pids cgroup of utils/shell/cgroup.ts
 *   caps them: the kernel does not apply this rlimit to root) and files of at most
 *   {@link SANDBOX_MAX_FILE_BYTES} bytes.
 *
 * @param env  the person's environment, for the home folders and PATH
 * @returns `args` for `bwrap` (the program path itself not included) and `cleanup`, to call once it has exited
 */
export async function sandboxArgs(
  command: string,
  policy: SandboxPolicy,
  status: SandboxReady,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ args: string[]; cleanup: () => void }> {
  const root = resolve(policy.rootDir);
  const args = isolation(status, policy.allowNetwork);
  const view = homeView(env);
  // Homes that hold the root are covered before it is bound back; a home inside the root after it.
  const [outer, inner] = [
    view.hidden.filter((h) => !within(root, h)),
    view.hidden.filter((h) => within(root, h) && h !== root),
  ];
  for (const home of outer) args.push('--tmpfs', home);
  for (const tool of view.readOnly) if (!within(root, tool)) args.push('--ro-bind-try', tool, tool);
  const tmp = resolve(tmpdir());
  // Mounted before the root, so a root inside the temp folder is bound back on top of the empty one.
  if (tmp !== '/tmp') args.push('--tmpfs', tmp);
  args.push('--bind', root, root);
  for (const home of inner) args.push('--tmpfs', home, '--remount-ro', home);
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
  const head = join(root, 'HEAD');
  const headMade = !lstatQuiet(head);
  // An empty HEAD is no valid HEAD: git never takes the root for a git directory while it is there.
  args.push('--ro-bind', headMade ? '/dev/null' : head, head);
  const bound = new Set([...READ_ONLY_INSIDE.map((n) => join(root, n)), head]);
  for (const path of await findControlPaths(root)) {
    if ([...bound].some((b) => within(b, path))) continue;
    args.push('--ro-bind', path, path);
    bound.add(path);
  }
  // Caches that follow XDG_CACHE_HOME (go's build cache, pip) go to the private /tmp.
  args.push('--setenv', 'XDG_CACHE_HOME', '/tmp/.cache', '--setenv', 'TMPDIR', '/tmp', '--chdir', root);
  args.push(...caps(status), '/bin/sh', '-c', command);
  const cleanup = (): void => {
    for (const path of created) {
      try {
        rmdirSync(path); // only ever empty: it was read-only for the whole run
      } catch {
        // gone already, or something else made it meanwhile: leave it
      }
    }
    const info = headMade ? lstatQuiet(head) : undefined;
    if (info?.isFile() && info.size === 0) unlinkSync(head);
  };
  return { args, cleanup };
}

function lstatQuiet(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
