import { createInterface } from 'node:readline';
import { basename, resolve } from 'node:path';
import chalk, { Chalk, type ChalkInstance } from 'chalk';
import { ClawcodeError } from '../../utils/errors.js';
import { escapeTerminal } from '../../utils/terminal-text.js';
import { appendHistory, loadHistory } from './history-file.js';
import { isCancel, isExitCommand, runColonCommand, type ColonHandlers, type ColonIo } from './colon-commands.js';

/** Options for {@link runRepl}. Everything that touches providers, plans or undo is injected (the `:command` handlers). */
export interface ReplOptions extends ColonHandlers {
  /** Project root the tasks run against; `:project` changes it. */
  rootDir: string;
  /**
   * Run one task end to end (the lead's flow). `signal` aborts when the person presses Ctrl-C; the task
   * should then stop (and cancel its model request) and reject or resolve soon after.
   */
  runTask: (task: string, signal: AbortSignal, context: { rootDir: string }) => Promise<void>;
  /** Offer a list on the terminal (`:model`, `:provider`, `:project` without an argument); absent for piped input. */
  pick?: ColonIo['pick'];
  /** Streams, for tests; default process.stdin / process.stdout. */
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  /** A line shown under the greeting, e.g. the provider and model in use. */
  banner?: string;
  /** Environment (CLAWCODE_HOME for history, NO_COLOR); default process.env. */
  env?: NodeJS.ProcessEnv;
}

type ReadResult = { kind: 'line'; line: string } | { kind: 'eof' } | { kind: 'interrupt'; hadText: boolean };

/** What `:help` adds in the shell: its keys. */
const SHELL_KEYS = 'Ctrl-C cancels a task; twice at an empty prompt leaves. Ctrl-D leaves too.';

/** The REPL's running state and its output, shared by the loop and the `:command` handlers. */
interface ReplSession {
  options: ReplOptions;
  env: NodeJS.ProcessEnv;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  isTty: boolean;
  paint: ChalkInstance;
  say: (text: string) => void;
  /** The project tasks run against; `:project` changes it. */
  rootDir: string;
  /** The project's input history, oldest first. */
  history: string[];
  /** Piped input's lines (undefined on a terminal). */
  pipedLines?: AsyncIterator<string>;
}

/**
 * The `clawcode --shell` REPL: a readline loop where each line is a task, or a `:command`.
 * History (arrow keys) is kept per project in `<CLAWCODE_HOME>/history/<projectHash>`.
 *
 * The readline interface is closed while a task runs, so prompts inside the task (@inquirer) own the
 * terminal alone, and Ctrl-C reaches the process as SIGINT, which aborts that task's signal.
 * Spinners inside tasks must be created with `ora({ discardStdin: false })` (ora #236, #220).
 *
 * @returns when the person leaves (:exit, Ctrl-D, or Ctrl-C twice at an empty prompt)
 * @throws never for task failures (they are shown and the loop goes on); errors of the callbacks
 *         for :provider/:project/:undo are shown the same way
 */
export async function runRepl(options: ReplOptions): Promise<void> {
  const env = options.env ?? process.env;
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const isTty = (output as { isTTY?: boolean }).isTTY === true;
  // Colour only on a terminal and never under NO_COLOR (no-color.org; chalk 5 ignores it by itself).
  const paint = new Chalk({ level: isTty && !env.NO_COLOR ? chalk.level : 0 });
  const say = (text: string) => output.write(`${text}\n`);
  const rootDir = resolve(options.rootDir);
  const history = await loadHistory(rootDir, env);

  say(`${paint.bold('clawcode shell')} in ${escapeTerminal(rootDir, 'line')}`);
  if (options.banner) say(paint.dim(options.banner));
  say(paint.dim('Type a task, :help for commands, Ctrl-D to leave.'));

  // Piped input: one interface for the session, whose async iterator buffers lines, so a chunk holding
  // several lines loses none of them while a task runs.
  const piped = isTty ? undefined : createInterface({ input, terminal: false });
  const pipedLines = piped?.[Symbol.asyncIterator]();
  const session: ReplSession = { options, env, input, output, isTty, paint, say, rootDir, history, pipedLines };

  try {
    await loop(session);
  } finally {
    piped?.close();
  }
  say('Bye.');
}

/** Read lines and run them until the person leaves: Ctrl-D, `:exit`, or Ctrl-C twice at an empty prompt. */
async function loop(session: ReplSession): Promise<void> {
  const { say, paint } = session;
  let interruptedOnce = false;
  for (;;) {
    const read = await readLine(session);
    if (read.kind === 'eof') return;
    if (read.kind === 'interrupt') {
      if (read.hadText) {
        interruptedOnce = false;
        continue;
      }
      if (interruptedOnce) return;
      interruptedOnce = true;
      say(paint.dim('(To leave, press Ctrl-C again, Ctrl-D, or type :exit)'));
      continue;
    }
    interruptedOnce = false;
    const line = read.line.trim();
    if (!line) continue;
    // Leaving is not worth recalling: the next session's first Up should bring back real work.
    if (!isExitCommand(line)) session.history = await appendHistory(session.rootDir, line, session.env);
    if (line.startsWith(':')) {
      if ((await runReplCommand(session, line)) === 'exit') return;
    } else {
      await runOne(session, line);
    }
  }
}

/** The prompt: the project folder's name (escaped: a folder picked from the tree's subfolders names it). */
function promptText({ paint, rootDir }: ReplSession): string {
  return `${paint.cyan(`clawcode:${escapeTerminal(basename(rootDir), 'line')}`)}${paint.dim('>')} `;
}

/** The next line: from the piped input (echoed after the prompt), or from a terminal prompt with history. */
async function readLine(session: ReplSession): Promise<ReadResult> {
  const { output, pipedLines } = session;
  if (pipedLines) {
    output.write(promptText(session));
    const next = await pipedLines.next();
    if (next.done) return { kind: 'eof' };
    output.write(`${next.value}\n`);
    return { kind: 'line', line: next.value };
  }
  // A terminal: a fresh interface per prompt, closed while the task runs (see runRepl's docstring).
  return new Promise<ReadResult>((resolveRead) => {
    const rl = createInterface({
      input: session.input,
      output,
      terminal: true,
      // readline wants newest first; the file is oldest first like bash's.
      history: [...session.history].reverse(),
      historySize: 500,
      removeHistoryDuplicates: true,
    });
    let done = false;
    const finish = (result: ReadResult) => {
      if (done) return;
      done = true;
      rl.close();
      resolveRead(result);
    };
    rl.on('line', (line) => finish({ kind: 'line', line }));
    rl.on('SIGINT', () => {
      const hadText = rl.line.length > 0;
      output.write(hadText ? '^C\n' : '\n');
      finish({ kind: 'interrupt', hadText });
    });
    rl.on('close', () => finish({ kind: 'eof' }));
    rl.setPrompt(promptText(session));
    rl.prompt();
  });
}

/**
 * One `:command` line, through the shared dispatcher (cli/interactive/colon-commands.ts); `:project`
 * also brings that project's history.
 * @returns 'exit' for `:exit`, `:quit` and `:q`, else 'done'
 */
async function runReplCommand(session: ReplSession, line: string): Promise<'exit' | 'done'> {
  const { options, say, paint } = session;
  const before = session.rootDir;
  const outcome = await runColonCommand(line, session, options, {
    say,
    error: (text) => say(paint.red(`✖ ${text}`)),
    ...(options.pick ? { pick: options.pick } : {}),
    clearScreen: () => {
      if (session.isTty) session.output.write('\u001b[2J\u001b[3J\u001b[H');
    },
  });
  if (line.trim().split(/\s+/)[0] === ':help') say(paint.dim(SHELL_KEYS));
  if (session.rootDir !== before) session.history = await loadHistory(session.rootDir, session.env);
  return outcome;
}

/** Run one task; the first Ctrl-C aborts its signal, a second one quits clawcode (exit 130). */
async function runOne(session: ReplSession, task: string): Promise<void> {
  const { say, paint } = session;
  const controller = new AbortController();
  let presses = 0;
  const onSigint = () => {
    presses += 1;
    if (presses === 1) {
      say(paint.yellow('\nCancelling the task… (Ctrl-C again to quit clawcode)'));
      controller.abort();
    } else {
      process.exit(130);
    }
  };
  process.on('SIGINT', onSigint);
  try {
    await session.options.runTask(task, controller.signal, { rootDir: session.rootDir });
    if (controller.signal.aborted) say(paint.yellow('Task cancelled.'));
  } catch (error) {
    if (controller.signal.aborted || isCancel(error)) say(paint.yellow('Task cancelled.'));
    else showError(session, error);
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** An error as one red line, and its hint under it. */
function showError({ say, paint }: ReplSession, error: unknown): void {
  // A task's error quotes plan paths and the model's text.
  const message = escapeTerminal(error instanceof Error ? error.message : String(error));
  say(paint.red(`✖ ${message}`));
  const hint = error instanceof ClawcodeError ? error.hint : undefined;
  if (hint) say(paint.dim(`  ${escapeTerminal(hint)}`));
}
