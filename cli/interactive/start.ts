import { Writable } from 'node:stream';
import chalk from 'chalk';
import type { TaskFlags } from '../flags.js';
import { createAgentEmitter } from '../../agent/events.js';
import { loadProjectMemory } from '../../memory/memory.js';
import { UsageError } from '../../utils/errors.js';
import { getGitInfo } from '../../utils/git/ops.js';
import { withProjectLock } from '../../utils/journal/lock.js';
import { escapeTerminal } from '../../utils/terminal-text.js';
import { rememberTask } from '../../agent/context/carried-files.js';
import { budgetForRun } from '../../config/model-windows.js';
import { executeTask, type TaskOptions, type TaskReport } from '../task/flow.js';
import { DEFAULT_LOCK_WAIT_MS } from '../../utils/defaults.js';
import { resolveProjectRoot } from '../project-root.js';
import { openTaskSession, providerLabel, sessionHandlers, taskSettings, type LiveSession } from './session.js';
import { commandLines, lines, reviewInTui, runTuiCommand, showTaskOutcome, type TuiTaskHooks } from './tui-hooks.js';

/** A stream that drops what is written: the TUI shows events, not the console flow's text. */
function sink(): NodeJS.WritableStream {
  return new Writable({ write: (_chunk, _enc, done) => done() });
}

/** What the REPL and the TUI set differently when they run a task: where text goes and how a person is asked. */
type SessionSurface = Pick<
  TaskOptions,
  'debug' | 'interactive' | 'signal' | 'emitter' | 'stdout' | 'stderr' | 'confirm' | 'review'
>;

/**
 * Run one task of an interactive session (the REPL's and the TUI's one runner): the session's settings,
 * provider and budget for its model, the files it carries, under the project lock (waiting up to
 * DEFAULT_LOCK_WAIT_MS, ms); the task's files are then carried to the next task.
 * @returns the task's report (its `error` set when the task failed; never throws for a failed task)
 * @throws ProjectLockedError when another run keeps the project's lock longer than the wait
 */
async function runSessionTask(
  live: LiveSession,
  flags: TaskFlags,
  task: string,
  surface: SessionSurface,
): Promise<TaskReport> {
  const { settings, provider, files } = live;
  const budget = await budgetForRun(settings, provider, true);
  const report = await withProjectLock(live.rootDir, { waitMs: DEFAULT_LOCK_WAIT_MS }, () =>
    executeTask({
      ...taskSettings(flags, settings.values),
      budgetChars: budget.chars,
      files: files.pinned,
      kept: files.kept,
      rootDir: live.rootDir,
      task,
      provider,
      json: false,
      ...surface,
    }),
  );
  rememberTask(files, report);
  return report;
}

/**
 * `clawcode --shell`: the readline REPL (cli/interactive/repl.ts). Each line runs as a task with the console flow
 * (diffs, review, confirmation); Ctrl-C cancels the running task and its model request.
 */
export async function runShell(flags: TaskFlags): Promise<void> {
  const rootDir = await resolveProjectRoot(flags.dir);
  // Piped input still works line by line, but nobody can be asked: then plans are shown, not written.
  const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  const live: LiveSession = { rootDir, ...(await openTaskSession(rootDir, flags, terminal)) };
  const { runRepl } = await import('./repl.js');
  const { reviewInTerminal } = await import('../task/review-terminal.js');
  const { pickFromList } = await import('../console/ask.js');
  await runRepl({
    ...sessionHandlers(live, flags, { ask: terminal }),
    rootDir,
    banner: providerLabel(live.provider),
    ...(terminal ? { pick: pickFromList } : {}),
    runTask: async (task, signal) => {
      const report = await runSessionTask(live, flags, task, {
        debug: Boolean(flags.debug),
        interactive: terminal,
        signal,
        stdout: process.stdout,
        stderr: process.stderr,
        ...(terminal ? { review: (changes) => reviewInTerminal(changes, live.rootDir) } : {}),
      });
      if (report.error) process.stderr.write(`${chalk.red('clawcode:')} ${escapeTerminal(report.error)}\n`);
    },
    undo: async (root) => {
      const { runUndoCommand } = await import('../commands/undo.js');
      // runUndoCommand prints its own result line.
      await runUndoCommand({ rootDir: root, interactive: terminal });
    },
  });
}

/**
 * The project picker, skipped when the current folder is itself a project (a `.git`, a manifest: as
 * `--shell` does), or has no project subfolders and there are no recent projects.
 *
 * @returns the chosen folder and the text typed while the list was on screen (printable characters
 *          only; arrows, Enter and digits are the list's own keys), which the TUI's input starts with
 */
async function pickProject(): Promise<{ rootDir: string; typed: string }> {
  const cwd = process.cwd();
  const { getProjectDirectoryChoices, getRecentProjects, isProjectFolder, selectProject } =
    await import('./projects.js');
  if (await isProjectFolder(cwd)) return { rootDir: cwd, typed: '' };
  const [choices, recent] = await Promise.all([getProjectDirectoryChoices(cwd), getRecentProjects()]);
  const others = recent.filter((r) => r.path !== cwd);
  // Choices always hold "." and "Other"; only ask when there is a real alternative.
  if (choices.length <= 2 && others.length === 0) return { rootDir: cwd, typed: '' };
  const { select, input } = await import('@inquirer/prompts');
  let typed = '';
  const keep = (chunk: Buffer | string): void => {
    // A person who starts typing the task before the list shows up keeps that text; keys the list
    // itself uses (escape sequences such as arrows, Enter, Backspace, a lone digit that picks a row)
    // are not text. Keys can arrive together in one chunk ("fix the typo\r"), so they are filtered out.
    const text = chunk
      .toString()
      .replace(/\x1b(?:\[[0-9;?]*[ -/]*[@-~]|O.)/g, '')
      .replace(/\p{Cc}/gu, '');
    if (text !== '' && !/^\d$/.test(text)) typed += text;
  };
  const rootDir = await selectProject({
    cwd,
    prompts: {
      select: async (config) => {
        process.stdin.on('data', keep);
        try {
          return await select<string>(config);
        } finally {
          process.stdin.off('data', keep);
        }
      },
      input: (config) => input(config),
    },
  });
  return { rootDir, typed };
}

/**
 * The Ink TUI (`--ui`, and the default when a terminal starts clawcode with no task). Ink and React
 * load only here (ui/run-ui.tsx).
 * @throws UsageError (exit 2) without a terminal, before any picker or provider is touched
 */
export async function runTui(flags: TaskFlags): Promise<void> {
  if (!process.stdin.isTTY || !process.stdout.isTTY)
    throw new UsageError('The interactive UI needs a terminal; pass a task instead: clawcode "describe the change"', {
      code: 'tui_needs_tty',
    });
  // Without --dir, pick the project: the current folder first, recent ones, marked subfolders, other.
  const { rootDir, typed } = flags.dir
    ? { rootDir: await resolveProjectRoot(flags.dir), typed: '' }
    : await pickProject();
  const live: LiveSession = { rootDir, ...(await openTaskSession(rootDir, flags, true)) };
  const [git, memory] = await Promise.all([getGitInfo(rootDir), loadProjectMemory(rootDir)]);
  const emitter = createAgentEmitter();
  const { runInkUI } = await (await import('../../ui/load-ui.js')).loadInkUI();
  await runInkUI({
    rootDir,
    provider: live.provider.name,
    model: live.provider.model,
    branch: git.branch ?? undefined,
    emitter,
    memory: `memory: ${memory.lastTasks.length} task${memory.lastTasks.length === 1 ? '' : 's'}`,
    initialInput: typed,
    runTask: async (task: string, signal: AbortSignal, hooks: TuiTaskHooks) => {
      // The console flow's text is not drawn in the TUI, but the commands it lists before asking
      // "Run this command?" are shown with the question.
      const printed = commandLines();
      const report = await runSessionTask(live, flags, task, {
        debug: false,
        interactive: true,
        signal,
        emitter,
        stdout: printed.stream,
        stderr: sink(),
        confirm: (m: string) => hooks.confirm(m, printed.take()),
        review: (changes) => reviewInTui(changes, hooks, live.rootDir),
      });
      if (report.error) emitter.emit('error', { message: report.error });
      showTaskOutcome(report, hooks);
    },
    command: (line: string, _signal: AbortSignal, hooks: TuiTaskHooks) =>
      runTuiCommand({
        line,
        live,
        flags,
        hooks,
        undo: async (root) => {
          const { runUndoCommand } = await import('../commands/undo.js');
          await runUndoCommand({
            rootDir: root,
            interactive: true,
            confirm: (m) => hooks.confirm(m),
            stdout: lines((text) => hooks.print(text)),
          });
        },
      }),
  });
}
