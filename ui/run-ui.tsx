import chalk from 'chalk';
import { render } from 'ink';
import type { AgentEmitter } from '../agent/events.js';
import { appendHistory, loadHistory } from '../cli/interactive/history-file.js';
import { UsageError } from '../utils/errors.js';
import type { TuiTaskHooks } from '../cli/interactive/tui-hooks.js';
import { App } from './App.js';

/** Options of {@link runInkUI}, as cli/interactive/start.ts passes them. */
export interface InkUIOptions {
  rootDir: string;
  provider: string;
  model: string;
  /** Git branch of rootDir, or undefined outside a repository. */
  branch?: string;
  emitter: AgentEmitter;
  /**
   * Run one task end to end (events go to `emitter`); abort `signal` to cancel it. `hooks.confirm`
   * asks a yes/no question inside the TUI (pass it as the flow's `confirm`); never prompt on stdin.
   */
  runTask: (task: string, signal: AbortSignal, hooks: TuiTaskHooks) => Promise<void>;
  /** A `:command` line (`:undo`, `:model`, …), run with the same hooks; resolves to 'exit' to leave. */
  command?: (line: string, signal: AbortSignal, hooks: TuiTaskHooks) => Promise<'exit' | 'done'>;
  /** A short memory label for the status bar, e.g. "memory: 3 tasks". */
  memory?: string;
  /** Text typed before the TUI started (while the project picker was on screen). */
  initialInput?: string;
  /** Streams and environment, for tests; default process.stdin/stdout/env. */
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  env?: NodeJS.ProcessEnv;
}

/**
 * Run the Ink TUI until the person leaves (Ctrl-C when idle, or `:exit`). Import this module lazily
 * (`await import('./ui/run-ui.js')`): it is the only place that loads Ink and React.
 * Input history is loaded from and appended to `<CLAWCODE_HOME>/history/<projectHash>`.
 *
 * @throws UsageError (code `tui_needs_tty`) when stdin or stdout is not a terminal: Ink's input needs
 *         raw mode, and a pipe should get plain output instead
 */
export async function runInkUI(options: InkUIOptions): Promise<void> {
  const env = options.env ?? process.env;
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  if (!stdin.isTTY || !stdout.isTTY) {
    throw new UsageError('The interactive UI needs a terminal', {
      code: 'tui_needs_tty',
      hint: 'Pass a task instead: clawcode "describe the change"',
    });
  }
  // chalk 5 ignores NO_COLOR (no-color.org); Ink colours through the same chalk instance.
  if (env.NO_COLOR) chalk.level = 0;
  const history = await loadHistory(options.rootDir, env);
  const instance = render(
    <App
      rootDir={options.rootDir}
      provider={options.provider}
      model={options.model}
      branch={options.branch}
      emitter={options.emitter}
      runTask={options.runTask}
      command={options.command}
      memory={options.memory}
      initialInput={options.initialInput}
      history={history}
      onSubmitted={(task, rootDir) => {
        // History is a convenience: a failed write must not end the session.
        appendHistory(rootDir, task, env).catch(() => undefined);
      }}
    />,
    { stdin, stdout, exitOnCtrlC: false },
  );
  await instance.waitUntilExit();
}
