import { spawn, type IPty } from '@lydell/node-pty';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import xterm from '@xterm/headless';
import { afterAll, afterEach, beforeAll, beforeEach, vi } from 'vitest';
import { cleanEnv, CLI_PATH, REPO_ROOT } from './fixture.js';
import { startProviderServer, type ProviderServer } from './provider-server.js';

/** Remove ANSI escape sequences (CSI, OSC, single-char escapes) so tests match on plain text. */
export function stripAnsi(text: string): string {
  return text.replace(/\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g, '');
}

/** A program running in a pseudo-terminal, as a person would see and type into it. */
export interface PtySession {
  /** Everything printed so far, escape sequences removed. */
  output(): string;
  /** Everything printed so far, escape sequences kept (to check for colour codes). */
  raw(): string;
  /**
   * The screen as a person sees it now: the output so far played on an emulated terminal of the
   * session's size, one string per row (trailing blanks trimmed). Redrawn and erased text is gone.
   */
  screen(): Promise<string[]>;
  /** Everything printed since the last `mark()`, escape sequences removed. */
  sinceMark(): string;
  /** Remember the current end of output; `waitFor` then only looks at what comes after. */
  mark(): void;
  /** Resolve once `pattern` shows up after the mark; reject with the screen after `timeoutMs`. */
  waitFor(pattern: string | RegExp, timeoutMs?: number): Promise<void>;
  /** Type raw characters ("\r" Enter, "\u0003" Ctrl-C, "\u0004" Ctrl-D, "\u001b[A" up). */
  write(keys: string): void;
  /** Wait for `pattern` after the mark, then mark and type `keys`: answering a question once it shows. */
  answer(pattern: string | RegExp, keys: string): Promise<void>;
  /**
   * Type a line as a person does: mark, type `text`, wait for its echo, press Enter. Each line typed is new
   * on the screen, so the echo waited for is this one, and Enter is not read in one chunk with the text.
   */
  typeLine(text: string): Promise<void>;
  /** Resolves with the exit code when the program ends. */
  exited: Promise<number>;
  /** The exit code, or a rejection naming the screen if the program is still running after `timeoutMs`. */
  exitCode(timeoutMs?: number): Promise<number>;
  /** Kill the program if it still runs (afterEach), or send it `signal` (`'SIGTERM'`). */
  kill(signal?: string): void;
}

/**
 * Spawn `file args` in an 80x24 (or `cols`x`rows`) pseudo-terminal with @lydell/node-pty.
 * Waits poll the output every 25 ms: generous timeouts, no fixed sleeps.
 * A size of 0 is what `pty.fork()` and `script` from a non-terminal give: node-pty turns 0 into 80x24, so the
 * program is started through `sh`, which sets the size with `stty` and then execs it (same pid).
 */
export function spawnPty(
  file: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; cols?: number; rows?: number },
): PtySession {
  const cols = options.cols ?? 80;
  const rows = options.rows ?? 24;
  const zero = cols === 0 || rows === 0;
  const [command, argv] = zero
    ? ['/bin/sh', ['-c', `stty cols ${cols} rows ${rows} && exec "$@"`, 'sh', file, ...args]]
    : [file, args];
  const term: IPty = spawn(command, argv, {
    name: 'xterm-256color',
    cols: zero ? 80 : cols,
    rows: zero ? 24 : rows,
    cwd: options.cwd,
    env: Object.fromEntries(Object.entries(options.env).filter(([, v]) => v !== undefined)) as Record<string, string>,
  });
  let raw = '';
  let markAt = 0;
  let alive = true;
  term.onData((d) => {
    raw += d;
  });
  const exited = new Promise<number>((resolve) => {
    term.onExit(({ exitCode }) => {
      alive = false;
      resolve(exitCode);
    });
  });
  const session: PtySession = {
    output: () => stripAnsi(raw),
    screen: () => renderScreen(raw, zero ? 80 : cols, zero ? 24 : rows),
    raw: () => raw,
    sinceMark: () => stripAnsi(raw.slice(markAt)),
    mark: () => {
      markAt = raw.length;
    },
    waitFor: (pattern, timeoutMs = 20_000) =>
      new Promise<void>((resolve, reject) => {
        const started = Date.now();
        const check = () => {
          const seen = session.sinceMark();
          if (typeof pattern === 'string' ? seen.includes(pattern) : pattern.test(seen)) return resolve();
          if (Date.now() - started > timeoutMs) {
            return reject(new Error(`Timed out waiting for ${String(pattern)}. Screen since mark:\n${seen}`));
          }
          setTimeout(check, 25);
        };
        check();
      }),
    write: (keys) => term.write(keys),
    answer: async (pattern, keys) => {
      await session.waitFor(pattern);
      session.mark();
      term.write(keys);
    },
    typeLine: async (text) => {
      session.mark();
      term.write(text);
      await session.waitFor(text);
      term.write('\r');
    },
    exited,
    exitCode: (timeoutMs = 20_000) =>
      new Promise<number>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`Still running after ${timeoutMs} ms. Screen since mark:\n${session.sinceMark()}`)),
          timeoutMs,
        );
        void exited.then((code) => {
          clearTimeout(timer);
          resolve(code);
        });
      }),
    kill: (signal) => {
      if (alive) term.kill(signal);
    },
  };
  return session;
}

/** Play `raw` terminal output on a headless xterm of `cols` x `rows` and read back the visible rows. */
async function renderScreen(raw: string, cols: number, rows: number): Promise<string[]> {
  const term = new xterm.Terminal({ cols, rows, allowProposedApi: true });
  try {
    await new Promise<void>((resolve) => term.write(raw, resolve));
    const buffer = term.buffer.active;
    return Array.from({ length: rows }, (_, i) => buffer.getLine(buffer.viewportY + i)?.translateToString(true) ?? '');
  } finally {
    term.dispose();
  }
}

/** What `useCliInPty` gives a test file; members are valid inside tests (set up in the hooks). */
export interface CliInPty {
  /** The loopback provider the CLI plans against (one per file, reset before each test). */
  readonly server: ProviderServer;
  /** This test's project folder, holding the files given to `useCliInPty`. */
  readonly project: string;
  /** This test's environment for the CLI (mutable: e.g. set EDITOR before `start`). */
  readonly env: NodeJS.ProcessEnv;
  /** Start the built CLI with `args` in a pseudo-terminal `cols` wide (and `rows` high), in the project folder. */
  start(args: string[], cols?: number, rows?: number): PtySession;
}

/**
 * Hooks for test files that run the built CLI in pseudo-terminals: a loopback provider server for
 * the file (key `sk-test-pty`, builds dist/ first when a fresh checkout has none), and per test a
 * fresh CLAWCODE_HOME, a temp project with `files` (path → text), an env from `cleanEnv` plus
 * `env`, and every session killed afterwards. Call at the top level of a test file.
 */
export function useCliInPty(options: {
  prefix: string;
  files: Record<string, string>;
  env?: Record<string, string>;
  rows: number;
  /** Model ids the loopback server lists at GET …/models (default: its own, `test-model`). */
  models?: string[];
}): CliInPty {
  let server: ProviderServer | undefined;
  let project = '';
  let env: NodeJS.ProcessEnv = {};
  const sessions: PtySession[] = [];
  const ready = (): ProviderServer => {
    if (!server) throw new Error('the loopback provider server starts in beforeAll; use it inside tests');
    return server;
  };
  beforeAll(async () => {
    if (!existsSync(CLI_PATH)) execFileSync('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: 'ignore' });
    server = await startProviderServer({
      apiKey: 'sk-test-pty',
      ...(options.models ? { models: options.models } : {}),
    });
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(async () => {
    ready().reset();
    const home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
    vi.stubEnv('CLAWCODE_HOME', home);
    project = await mkdtemp(join(tmpdir(), options.prefix));
    for (const [path, text] of Object.entries(options.files)) {
      await mkdir(dirname(join(project, path)), { recursive: true });
      await writeFile(join(project, path), text);
    }
    env = cleanEnv({
      CLAWCODE_HOME: home,
      OPENAI_API_KEY: 'sk-test-pty',
      OPENAI_BASE_URL: `${ready().url}/v1`,
      ...options.env,
    });
  });
  afterEach(() => sessions.splice(0).forEach((s) => s.kill()));
  return {
    get server() {
      return ready();
    },
    get project() {
      return project;
    },
    get env() {
      return env;
    },
    start(args, cols = 100, rows = options.rows) {
      const s = spawnPty(process.execPath, [CLI_PATH, ...args], { cwd: project, env, cols, rows });
      sessions.push(s);
      return s;
    },
  };
}

/** What `useDriverInPty` gives a test file; members are valid inside tests (set up in the hooks). */
export interface DriverInPty {
  /** This test's CLAWCODE_HOME. */
  readonly home: string;
  /** This test's (empty) project folder. */
  readonly project: string;
  /** Start the driver on the project in a pseudo-terminal; `env` adds to the test environment. */
  start(options?: { cols?: number; rows?: number; env?: Record<string, string> }): PtySession;
}

/**
 * Hooks for test files that run a surface through a driver script in tests/support/ (`repl-driver.ts`,
 * `tui-driver.ts`: the real REPL or TUI over a scripted planner) under tsx in a pseudo-terminal: per test a
 * fresh CLAWCODE_HOME and an empty project folder, NO_COLOR set, every session killed afterwards.
 */
export function useDriverInPty(options: { driver: string; prefix: string }): DriverInPty {
  const driver = join(REPO_ROOT, 'tests/support', options.driver);
  let home = '';
  let project = '';
  const sessions: PtySession[] = [];
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
    vi.stubEnv('CLAWCODE_HOME', home);
    project = await mkdtemp(join(tmpdir(), options.prefix));
  });
  afterEach(() => sessions.splice(0).forEach((s) => s.kill()));
  return {
    get home() {
      return home;
    },
    get project() {
      return project;
    },
    start({ cols, rows, env } = {}) {
      const s = spawnPty(process.execPath, ['--import', 'tsx', driver, project], {
        cwd: REPO_ROOT,
        cols,
        rows,
        env: { ...process.env, CLAWCODE_HOME: home, NO_COLOR: '1', ...env },
      });
      sessions.push(s);
      return s;
    },
  };
}
