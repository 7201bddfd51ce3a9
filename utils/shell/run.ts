import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { IoError } from '../errors.js';
import { realOrSelf } from '../executable.js';
import { makeCommandGroup } from './cgroup.js';
import { watchDisk } from './disk-watch.js';
import { controlChange } from './sandbox-binds.js';
import { commandEnv } from './command-env.js';
import {
  feedFilter,
  SANDBOX_MAX_PROCESSES,
  sandboxArgs,
  sandboxMaxMemory,
  sandboxStdio,
  type SandboxPolicy,
  type SandboxReady,
  type SandboxStatus,
} from './sandbox.js';

/** Options of {@link runCommand}. */
export interface RunCommandOptions {
  /** working folder (the project root) */
  cwd: string;
  /** kill the command (and its children) after this many ms; default 300 000 (5 minutes) */
  timeoutMs?: number;
  /** aborting kills the command the same way as a timeout (result has `signal`, not `timedOut`) */
  signal?: AbortSignal;
  /** most characters kept per stream (the end is kept); default 1 048 576 (about 1 MB of text) */
  maxChars?: number;
  /**
   * the person's environment (default `process.env`); the command gets only its allowed variables
   * (utils/shell/command-env.ts: no keys, tokens or cloud credentials)
   */
  env?: NodeJS.ProcessEnv;
  /** live output, in arrival order, for a spinner or the TUI */
  onOutput?: (chunk: string, stream: 'stdout' | 'stderr') => void;
  /** run inside bubblewrap (utils/shell/sandbox.ts) with this policy; `status` from detectSandbox() */
  sandbox?: { status: SandboxReady; policy: SandboxPolicy };
  /** in the sandbox, most bytes of memory (default sandboxMaxMemory(): sandbox.ts; the whole command only as root) */
  maxMemoryBytes?: number;
  /** in the sandbox, most bytes and inodes of the root's file system the command may take (disk-watch.ts) */
  diskCap?: { bytes: number; inodes: number };
}

/** What one command did. Output strings are UTF-8 decoded; `ms` is wall time. */
export interface CommandResult {
  command: string;
  /** exit status, `null` when killed by a signal */
  exitCode: number | null;
  /** the signal that ended it (e.g. `SIGTERM` after a timeout), else `null` */
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** captured output; when longer than `maxChars` only the end is kept and `truncated` is true */
  stdout: string;
  stderr: string;
  truncated: boolean;
  /** the last 20 lines of stdout and stderr together, in arrival order, for the summary */
  tail: string;
  ms: number;
  /**
   * In the sandbox: one line naming a control path (utils/shell/sandbox-binds.ts) that appeared, moved or was
   * replaced while the command ran. The command counts as failed.
   */
  controlChanged?: string;
  /**
   * Set by the caller that guarded the project during the command (utils/shell/tree-guard.ts): one line naming the
   * files it changed and that were put back. The command counts as failed.
   */
  restored?: string;
  /** In the sandbox: one line saying the command was stopped for taking more of the disk than its cap. */
  diskExceeded?: string;
}

const TAIL_LINES = 20;
const KILL_GRACE_MS = 2000;

/**
 * The `sandbox` option of `runCommand` for a command of a project: confined to `rootDir` (network only
 * with `allowNetwork`) when `status` says a sandbox is available, else none (the command runs plainly).
 */
export function sandboxFor(
  status: SandboxStatus,
  rootDir: string,
  allowNetwork = false,
): Pick<RunCommandOptions, 'sandbox'> {
  return status.available ? { sandbox: { status, policy: { rootDir, allowNetwork } } } : {};
}

/**
 * Run one shell command (through `/bin/sh -c`, or cmd.exe on Windows; with `sandbox`, `/bin/sh -c` inside
 * bubblewrap) with stdin closed, capturing
 * its output. On timeout or abort the whole process group gets SIGTERM, then SIGKILL after 2 s, so
 * servers a test script starts do not outlive it. The command runs in its own process group, so a
 * terminal's Ctrl-C does not reach it: wire `signal` to SIGINT; if clawcode exits first, the group
 * is killed from an `exit` handler. Never throws for a failing command: the caller reads `exitCode`
 * (the write stage reports a failed command or verify step as exit 4).
 *
 * @throws IoError (exit 1) the command could not be started at all (e.g. `cwd` does not exist)
 */
export async function runCommand(command: string, options: RunCommandOptions): Promise<CommandResult> {
  const base = options.env ?? process.env;
  const env = commandEnv(base, options.sandbox?.policy.allowNetwork ?? false);
  // In the sandbox bubblewrap runs `/bin/sh -c command` itself; otherwise node's shell option does.
  let launch: Launch = { file: command, args: [], shell: true, cleanup: () => undefined, sandboxed: false };
  let after: (() => Promise<string | undefined>) | undefined;
  if (options.sandbox) {
    const { status, policy } = options.sandbox;
    const memory = options.maxMemoryBytes ?? sandboxMaxMemory();
    const sandboxed = await sandboxArgs(command, { ...policy, maxMemoryBytes: memory }, status, base);
    after = () => controlChange(realOrSelf(policy.rootDir), sandboxed.snapshot);
    // As root the process rlimit is not enforced, and no rlimit caps memory: cgroups cap the sandbox instead,
    // entered by a shell that then becomes bubblewrap (so nothing of the command runs outside them).
    const group = makeCommandGroup(SANDBOX_MAX_PROCESSES, memory);
    launch = group
      ? {
          file: '/bin/sh',
          args: [
            '-c',
            'while [ "$1" != -- ]; do echo $$ > "$1/cgroup.procs" || exit 125; shift; done; shift; exec "$@"',
            'sh',
            ...group.paths,
            '--',
            status.bwrapPath,
            ...sandboxed.args,
          ],
          shell: false,
          cleanup: () => {
            sandboxed.cleanup();
            group.remove();
          },
          sandboxed: true,
        }
      : { file: status.bwrapPath, args: sandboxed.args, shell: false, cleanup: sandboxed.cleanup, sandboxed: true };
  }
  const result = await spawnCommand(command, launch, env, options);
  const changed = await after?.();
  return changed ? { ...result, controlChanged: changed } : result;
}

/** How {@link spawnCommand} starts a command: a program and its arguments, or a shell line. */
interface Launch {
  file: string;
  args: string[];
  shell: boolean;
  cleanup: () => void;
  /** bubblewrap is started (directly or through the cgroup shell): it reads the seccomp filter on fd 3 */
  sandboxed: boolean;
}

function spawnCommand(
  command: string,
  launch: Launch,
  env: NodeJS.ProcessEnv,
  options: RunCommandOptions,
): Promise<CommandResult> {
  const timeoutMs = options.timeoutMs ?? 300_000;
  const maxChars = options.maxChars ?? 1024 * 1024;
  const started = performance.now();
  const out = new BoundedText(maxChars);
  const err = new BoundedText(maxChars);
  const both = new BoundedText(64 * 1024);
  const groupKill = process.platform !== 'win32';

  return new Promise((resolvePromise, reject) => {
    const child = spawn(launch.file, launch.args, {
      cwd: options.cwd,
      env,
      shell: launch.shell,
      stdio: launch.sandboxed ? sandboxStdio() : ['ignore', 'pipe', 'pipe'],
      detached: groupKill,
      windowsHide: true,
    });
    let timedOut = false;
    const killer = processKiller(child, groupKill);
    const timer = setTimeout(() => {
      timedOut = true;
      killer.kill();
    }, timeoutMs);
    const onParentExit = (): void => killer.killGroupNow();
    process.on('exit', onParentExit);
    const onAbort = (): void => killer.kill();
    if (options.signal?.aborted) killer.kill();
    options.signal?.addEventListener('abort', onAbort, { once: true });

    if (launch.sandboxed) feedFilter(child);
    const disk = launch.sandboxed
      ? watchDisk(options.cwd, () => killer.kill(), options.diskCap?.bytes, options.diskCap?.inodes)
      : undefined;
    captureOutput(child, out, err, both, options.onOutput);
    child.on('error', (cause) => {
      disk?.stop();
      launch.cleanup();
      clearTimeout(timer);
      process.off('exit', onParentExit);
      options.signal?.removeEventListener('abort', onAbort);
      reject(
        new IoError(`Could not start \`${command}\` in ${options.cwd}: ${cause.message}`, {
          code: 'command_spawn_failed',
          cause,
        }),
      );
    });
    child.on('close', (exitCode, signal) => {
      disk?.stop();
      launch.cleanup();
      clearTimeout(timer);
      process.off('exit', onParentExit);
      killer.cancelGrace();
      options.signal?.removeEventListener('abort', onAbort);
      resolvePromise({
        command,
        exitCode,
        signal,
        timedOut,
        stdout: out.text(),
        stderr: err.text(),
        truncated: out.truncated || err.truncated,
        tail: lastLines(both.text(), TAIL_LINES),
        ms: Math.round(performance.now() - started),
        ...(disk?.exceeded ? { diskExceeded: disk.exceeded } : {}),
      });
    });
  });
}

/** How a running command is ended. */
interface ProcessKiller {
  /** SIGTERM now, SIGKILL after KILL_GRACE_MS (an unref'd timer) */
  kill(): void;
  /** SIGKILL the process group at once (from the parent's `exit` handler; only with a group) */
  killGroupNow(): void;
  /** stop the pending SIGKILL of the last `kill()` */
  cancelGrace(): void;
}

/** Ways to end `child`: its whole process group when `groupKill`, else the child alone. */
function processKiller(child: ChildProcess, groupKill: boolean): ProcessKiller {
  let graceTimer: NodeJS.Timeout | undefined;
  const send = (sig: NodeJS.Signals): void => {
    try {
      if (groupKill && child.pid !== undefined) process.kill(-child.pid, sig);
      else child.kill(sig);
    } catch {
      // already gone
    }
  };
  return {
    kill: () => {
      send('SIGTERM');
      graceTimer = setTimeout(() => send('SIGKILL'), KILL_GRACE_MS);
      graceTimer.unref();
    },
    killGroupNow: () => {
      try {
        if (groupKill && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    },
    cancelGrace: () => {
      if (graceTimer) clearTimeout(graceTimer);
    },
  };
}

/** Decode both streams as UTF-8 into `out` / `err` and, in arrival order, `both` and `onOutput`. */
function captureOutput(
  child: { stdout: Readable | null; stderr: Readable | null },
  out: BoundedText,
  err: BoundedText,
  both: BoundedText,
  onOutput: RunCommandOptions['onOutput'],
): void {
  const { stdout, stderr } = child;
  if (!stdout || !stderr) throw new Error('captureOutput: the child was started without piped output');
  stdout.setEncoding('utf8');
  stderr.setEncoding('utf8');
  stdout.on('data', (chunk: string) => {
    out.push(chunk);
    both.push(chunk);
    onOutput?.(chunk, 'stdout');
  });
  stderr.on('data', (chunk: string) => {
    err.push(chunk);
    both.push(chunk);
    onOutput?.(chunk, 'stderr');
  });
}

/** The last `count` lines of a text, without a trailing empty line. */
export function lastLines(text: string, count: number): string {
  const lines = text.replace(/\r\n/g, '\n').replace(/\n+$/, '').split('\n');
  return lines.slice(-count).join('\n');
}

/** Keeps the last `maxChars` characters (UTF-16 code units) of a stream. */
class BoundedText {
  private chunks: string[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly maxChars: number) {}

  push(chunk: string): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size > this.maxChars * 2) this.compact();
  }

  text(): string {
    this.compact();
    return this.chunks.join('');
  }

  private compact(): void {
    if (this.size <= this.maxChars) return;
    const all = this.chunks.join('');
    this.chunks = [all.slice(all.length - this.maxChars)];
    this.size = this.maxChars;
    this.truncated = true;
  }
}
