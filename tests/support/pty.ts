import { spawn, type IPty } from '@lydell/node-pty';

/** Remove ANSI escape sequences (CSI, OSC, single-char escapes) so tests match on plain text. */
export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g, '');
}

/** A program running in a pseudo-terminal, as a person would see and type into it. */
export interface PtySession {
  /** Everything printed so far, escape sequences removed. */
  output(): string;
  /** Everything printed so far, escape sequences kept (to check for colour codes). */
  raw(): string;
  /** Everything printed since the last `mark()`, escape sequences removed. */
  sinceMark(): string;
  /** Remember the current end of output; `waitFor` then only looks at what comes after. */
  mark(): void;
  /** Resolve once `pattern` shows up after the mark; reject with the screen after `timeoutMs`. */
  waitFor(pattern: string | RegExp, timeoutMs?: number): Promise<void>;
  /** Type raw characters ("\r" Enter, "\u0003" Ctrl-C, "\u0004" Ctrl-D, "\u001b[A" up). */
  write(keys: string): void;
  /** Resolves with the exit code when the program ends. */
  exited: Promise<number>;
  /** The exit code, or a rejection naming the screen if the program is still running after `timeoutMs`. */
  exitCode(timeoutMs?: number): Promise<number>;
  /** Kill the program if it still runs (afterEach). */
  kill(): void;
}

/**
 * Spawn `file args` in an 80x24 (or `cols`x`rows`) pseudo-terminal with @lydell/node-pty.
 * Waits poll the output every 25 ms: generous timeouts, no fixed sleeps.
 */
export function spawnPty(
  file: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; cols?: number; rows?: number },
): PtySession {
  const term: IPty = spawn(file, args, {
    name: 'xterm-256color',
    cols: options.cols ?? 80,
    rows: options.rows ?? 24,
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
    kill: () => {
      if (alive) term.kill();
    },
  };
  return session;
}
