import { spawn } from 'node:child_process';
import { existsSync, lstatSync, openSync, readdirSync, readFileSync, rmdirSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir, totalmem } from 'node:os';
import { UsageError } from '../errors.js';
import { executableOutside, realOrSelf } from '../executable.js';
import { controlBinds, controlSnapshot, type ControlSnapshot } from './sandbox-binds.js';
import { dependencyBinds } from './sandbox-deps.js';
import { homeView } from './sandbox-home.js';
import { sandboxFilter, SECCOMP_FD } from './seccomp.js';
import { isInsideRoot } from '../path-inside.js';

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
      /** this bubblewrap can cap the size of a tmpfs it mounts (`--size`, 0.8+) */
      tmpfsSize: boolean;
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
  /** most bytes of memory for each process and for the private `/tmp` (default {@link sandboxMaxMemory}) */
  maxMemoryBytes?: number;
  /** bind the installed dependencies read-only (sandbox-deps.ts): for a command that runs without a person's yes */
  dependenciesReadOnly?: boolean;
}

/** Most processes (threads count) of one sandboxed command at a time. */
export const SANDBOX_MAX_PROCESSES = 2048;
/**
 * Most memory one sandboxed command may hold, in bytes: half the machine's memory, at most 8 GiB. Where clawcode
 * can make a memory cgroup (as root, utils/shell/cgroup.ts) for the whole command, what it writes to its private
 * `/tmp` counting too. Whoever runs it, each process gets it as its data limit (RLIMIT_DATA: the memory it writes
 * to, not the address space it only reserves, so node, the JVM and go still start) and the private `/tmp` can
 * hold at most this much (every other private folder at most {@link SANDBOX_MAX_SCRATCH_BYTES}): a tmpfs without a
 * size takes up to half the machine's memory, each.
 */
export function sandboxMaxMemory(): number {
  return Math.min(8 * 1024 ** 3, Math.floor(totalmem() / 2));
}

/** Most bytes the private folders other than `/tmp` may hold (the home covers, `/run`, `/var/tmp`): 512 MiB. */
export const SANDBOX_MAX_SCRATCH_BYTES = 512 * 1024 * 1024;

/** Largest file one sandboxed command may write, in bytes (512 MiB). */
export const SANDBOX_MAX_FILE_BYTES = 512 * 1024 * 1024;

/** Control folders at the root that stay read-only; missing ones become empty read-only stand-ins for the run. */
const READ_ONLY_INSIDE = ['.git', '.hg', '.svn', '.clawcode'];

let cached: Promise<SandboxStatus> | undefined;
let cachedKey = '';

/**
 * Find out once per process and project whether bubblewrap works here as a wall: it must be on PATH with
 * `prlimit`, both found in PATH folders outside the project (a command may plant `node_modules/.bin/bwrap`
 * for the next run to start on the host), and
 * a trial run with everything the sandbox uses must succeed: new user (as an unprivileged id, every
 * capability dropped), mount, pid, ipc, uts and network namespaces, and the caps. Containers and kernels
 * that forbid user namespaces fail the trial; then there is no sandbox and every command needs a person's
 * yes. `CLAWCODE_SANDBOX=off` in `env` turns the sandbox off.
 *
 * @param rootDir  the project root the commands run in (default: the working folder)
 * @returns the status; never throws
 */
export function detectSandbox(
  env: NodeJS.ProcessEnv = process.env,
  rootDir: string = process.cwd(),
): Promise<SandboxStatus> {
  const root = realOrSelf(resolve(rootDir));
  const key = `${env.CLAWCODE_SANDBOX ?? ''}\0${env.PATH ?? ''}\0${root}`;
  if (cached && cachedKey === key) return cached;
  cachedKey = key;
  cached = probe(env, root);
  return cached;
}

async function probe(env: NodeJS.ProcessEnv, realRoot: string): Promise<SandboxStatus> {
  const onPath = (_: NodeJS.ProcessEnv, name: string): string | null =>
    executableOutside([name], realRoot, env.PATH ?? '');
  if (env.CLAWCODE_SANDBOX === 'off') return { available: false, reason: 'turned off by CLAWCODE_SANDBOX=off' };
  if (process.platform !== 'linux')
    return { available: false, reason: `no sandbox is supported on ${process.platform} yet` };
  const bwrapPath = onPath(env, 'bwrap');
  if (!bwrapPath) return { available: false, reason: 'bubblewrap (bwrap) is not installed' };
  const prlimitPath = onPath(env, 'prlimit');
  if (!prlimitPath) return { available: false, reason: 'prlimit (util-linux) is not installed' };
  let why = '';
  // Newest bubblewrap first: an older one (before 0.8) knows neither --disable-userns nor --size.
  for (const [disableUserns, tmpfsSize] of [
    [true, true],
    [false, true],
    [false, false],
  ] as const) {
    const status: SandboxReady = {
      available: true,
      kind: 'bubblewrap',
      bwrapPath,
      prlimitPath,
      disableUserns,
      tmpfsSize,
    };
    const memory = sandboxMaxMemory();
    const trial = await trialRun(bwrapPath, [
      ...isolation(status, false, memory),
      ...caps(status, memory),
      '/bin/sh',
      '-c',
      'true',
    ]);
    if (trial.ok) return status;
    why ||= trial.why.trim().split('\n')[0]!;
  }
  return { available: false, reason: `bubblewrap cannot create a sandbox here (${why})` };
}

/** Run bubblewrap once with the seccomp filter on its descriptor; at most 10 s. Never throws. */
function trialRun(bwrapPath: string, args: string[]): Promise<{ ok: boolean; why: string }> {
  return new Promise((done) => {
    const child = spawn(bwrapPath, args, { stdio: sandboxStdio(), timeout: 10_000 });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (e) => done({ ok: false, why: e.message }));
    child.on('close', (code, signal) => done({ ok: code === 0, why: stderr || `exit ${code ?? signal}` }));
    feedFilter(child);
  });
}

/**
 * The stdio of a bubblewrap child: stdin ignored, stdout and stderr piped, a pipe on {@link SECCOMP_FD}
 * that {@link feedFilter} fills, and `/dev/null` in place of every descriptor clawcode inherited open
 * without close-on-exec (from the shell, IDE or CI runner that started it). Such a descriptor would pass
 * into the sandbox as it is: a folder opened outside the project reaches past every mount (`openat`), a
 * socket reaches its service.
 */
export function sandboxStdio(): (number | 'ignore' | 'pipe')[] {
  const stdio: (number | 'ignore' | 'pipe')[] = ['ignore', 'pipe', 'pipe', 'pipe'];
  for (const fd of inheritedDescriptors()) {
    while (stdio.length <= fd) stdio.push('ignore');
    devNull ??= openSync('/dev/null', 'r'); // opened close-on-exec by node, like all its own
    stdio[fd] = devNull;
  }
  return stdio;
}

let devNull: number | undefined;
const O_CLOEXEC = 0o2000000;

/** Descriptors above 2 this process holds open without close-on-exec (Linux `/proc/self/fdinfo`). */
function inheritedDescriptors(): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  return names
    .map(Number)
    .filter((fd) => fd > 2 && fd !== devNull)
    .filter((fd) => {
      try {
        const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
        return flags !== null && (parseInt(flags[1]!, 8) & O_CLOEXEC) === 0;
      } catch {
        return false; // closed meanwhile (the listing's own descriptor)
      }
    });
}

/**
 * Write the seccomp filter (seccomp.ts) to a child started with {@link sandboxStdio}; bubblewrap reads it
 * before it starts the command. A child that exits first (a spawn error) leaves the pipe broken: ignored.
 */
export function feedFilter(child: { stdio: readonly unknown[] }): void {
  const pipe = child.stdio[SECCOMP_FD] as NodeJS.WritableStream & { on(e: 'error', f: () => void): void };
  pipe.on('error', () => undefined);
  pipe.end(sandboxFilter());
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

/** A private empty folder at `path` holding at most `bytes` where this bubblewrap can say so. */
function tmpfs(status: SandboxReady, path: string, bytes: number = SANDBOX_MAX_SCRATCH_BYTES): string[] {
  return status.tmpfsSize ? ['--size', String(bytes), '--tmpfs', path] : ['--tmpfs', path];
}

function isolation(status: SandboxReady, allowNetwork: boolean, memory: number): string[] {
  const { uid, gid } = sandboxIds();
  // "/" read-only does not stop connect() on a Unix socket (the Docker daemon, D-Bus, a database, the ssh agent
  // under /run/user): an empty /run hides those; the resolver's folder stays for DNS under --allow-network.
  const run = existsSync('/run')
    ? [
        ...tmpfs(status, '/run', Math.min(memory, SANDBOX_MAX_SCRATCH_BYTES)),
        '--ro-bind-try',
        '/run/systemd/resolve',
        '/run/systemd/resolve',
      ]
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
    // add_key, request_key and keyctl refused (the session keyring is not namespaced), fallocate unsupported (seccomp.ts).
    '--seccomp',
    String(SECCOMP_FD),
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
    // bubblewrap's /dev is a tmpfs of half the machine's memory, /dev/shm a folder in it: /dev read-only, /dev/shm sized.
    ...(status.tmpfsSize ? ['--remount-ro', '/dev', ...tmpfs(status, '/dev/shm', memory)] : []),
    '--proc',
    '/proc',
    // bubblewrap covers only what it may write when it sets up; a command started by root is root on the
    // host for sysctls and the kernel's triggers, so these stay read-only whoever runs it.
    '--ro-bind',
    '/proc/sys',
    '/proc/sys',
    ...['sysrq-trigger', 'irq', 'bus', 'fs'].flatMap((p) => ['--ro-bind-try', `/proc/${p}`, `/proc/${p}`]),
    ...tmpfs(status, '/tmp', memory),
    ...run,
  ];
}

/** The end of the argument list: the caps, set by prlimit inside the sandbox, then the program. */
function caps(status: SandboxReady, memory: number): string[] {
  return [
    '--',
    status.prlimitPath,
    `--data=${memory}`,
    `--nproc=${SANDBOX_MAX_PROCESSES}`,
    `--fsize=${SANDBOX_MAX_FILE_BYTES}`,
    '--core=0',
    '--',
  ];
}

/**
 * The bubblewrap argument list that runs `command` through `/bin/sh -c` in the sandbox:
 * - as an unprivileged id in a new user namespace with no capability, no new user namespace inside;
 *   new pid (the command cannot outlive the sandbox), ipc, uts and network namespaces (network only when
 *   allowed), a new session (it cannot reach the terminal), no call into the kernel keyring (seccomp.ts; the
 *   child must be started with {@link sandboxStdio} and given the filter with {@link feedFilter});
 * - the whole file system read-only; the home folders and clawcode's home hidden (sandbox-home.ts);
 *   a private empty `/tmp`, `/var/tmp` (also the temp folder when that lies elsewhere) and `/run`;
 * - `/proc/sys` and the kernel's triggers in `/proc` read-only (as root the command is root on the host there);
 * - the project root writable except its control paths, bound read-only: `.git`, `.hg`, `.svn`,
 *   `.clawcode` (a missing one becomes an empty read-only stand-in, so a command cannot plant one), a
 *   stand-in `HEAD` at the root (so the root cannot become a git directory), and every control path
 *   found in the tree (utils/policy/git-control.ts: git directories at any depth and under any name,
 *   `.husky/`, hook tool configurations, what the repository's configuration names, a missing one as an
 *   empty stand-in), every folder on the way to one bound onto itself so it cannot be renamed
 *   (utils/shell/sandbox-binds.ts);
 * - at most {@link SANDBOX_MAX_PROCESSES} processes (as root, the pids cgroup of utils/shell/cgroup.ts
 *   caps them: the kernel does not apply this rlimit to root) and files of at most
 *   {@link SANDBOX_MAX_FILE_BYTES} bytes.
 *
 * @param env  the person's environment, for the home folders and PATH
 * @returns `args` for `bwrap` (the program path itself not included), `cleanup`, to call once it has exited,
 *          and the control paths as they were (compare with sandbox-binds.ts `controlChange` afterwards)
 * @throws UsageError (exit 2, `home_in_root`) when the root is or holds a home folder
 */
export async function sandboxArgs(
  command: string,
  policy: SandboxPolicy,
  status: SandboxReady,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ args: string[]; cleanup: () => void; snapshot: ControlSnapshot }> {
  // The real root: bubblewrap follows a symlink on the way to a bind's destination, and the control paths are
  // found under the real root, so a root named through a symlink matched none of them and bound none read-only.
  const root = realOrSelf(resolve(policy.rootDir));
  const memory = policy.maxMemoryBytes ?? sandboxMaxMemory();
  const scratch = Math.min(memory, SANDBOX_MAX_SCRATCH_BYTES);
  const args = isolation(status, policy.allowNetwork, memory);
  const view = homeView(env);
  // A home inside the root would be written through the root's bind: no command runs there at all.
  const home = view.hidden.find((h) => isInsideRoot(root, h));
  if (home !== undefined)
    throw new UsageError(
      `${root === home ? `${root} is` : `${root} holds`} a home folder (${home}): no command runs there, its files are not the project's`,
      { code: 'home_in_root', hint: 'Run clawcode in the project folder itself (--dir <project>).' },
    );
  // The temp folders are emptied too: other programs' Unix sockets live there (the read-only view does not stop a
  // connect()). Mounted first, so the tool folders of a home and a root inside one are bound back on top.
  for (const folder of new Set([resolve(tmpdir()), '/var/tmp']))
    if (folder !== '/tmp' && existsSync(folder)) args.push(...tmpfs(status, folder, scratch));
  for (const hidden of view.hidden) args.push(...tmpfs(status, hidden, scratch));
  for (const dir of view.hiddenNamed)
    if (!isInsideRoot(root, dir) && !isInsideRoot(dir, root)) args.push(...tmpfs(status, dir, scratch));
  for (const file of view.hiddenFiles) if (!isInsideRoot(root, file)) args.push('--ro-bind', '/dev/null', file);
  for (const tool of view.readOnly) if (!isInsideRoot(root, tool)) args.push('--ro-bind-try', tool, tool);
  args.push('--bind', root, root);
  const created: string[] = [];
  const inside: string[] = [];
  for (const name of READ_ONLY_INSIDE) {
    const path = join(root, name);
    if (existsSync(path)) {
      inside.push('--ro-bind', path, path);
    } else {
      inside.push('--tmpfs', path, '--remount-ro', path);
      created.push(path);
    }
  }
  const head = join(root, 'HEAD');
  const headMade = !lstatQuiet(head);
  // An empty HEAD is no valid HEAD: git never takes the root for a git directory while it is there.
  inside.push('--ro-bind', headMade ? '/dev/null' : head, head);
  const fixed = [...READ_ONLY_INSIDE.map((n) => join(root, n)), head];
  // The folders on the way to each control path are bound first (so they cannot be renamed), then the paths.
  const snapshot = await controlSnapshot(root);
  const control = controlBinds(root, [...snapshot.keys()], fixed);
  args.push(...control.ways, ...inside, ...control.readOnly);
  const deps = policy.dependenciesReadOnly ? dependencyBinds(root) : { args: [], cleanup: () => undefined };
  args.push(...deps.args);
  // Caches that follow XDG_CACHE_HOME (go's build cache, pip) go to the private /tmp.
  args.push('--setenv', 'XDG_CACHE_HOME', '/tmp/.cache', '--setenv', 'TMPDIR', '/tmp', '--chdir', root);
  args.push(...caps(status, memory), '/bin/sh', '-c', command);
  const cleanup = (): void => {
    deps.cleanup();
    control.cleanup();
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
  return { args, cleanup, snapshot };
}

function lstatQuiet(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
