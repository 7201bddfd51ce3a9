import { Writable } from 'node:stream';
import chalk from 'chalk';
import type { TaskFlags } from '../flags.js';
import { createAgentEmitter } from '../../agent/events.js';
import { loadSettings } from '../../config/settings.js';
import { loadSessionMemory } from '../../memory/memory.js';
import { getGitInfo } from '../../utils/git/ops.js';
import { withProjectLock } from '../../utils/journal/lock.js';
import { executeTask } from '../task/flow.js';
import {
  budgetForProvider,
  loadTaskSettings,
  openTaskSession,
  resolveProvider,
  settingsFlags,
  taskSettings,
} from './session.js';
import { resolveProjectRoot } from '../project-root.js';
import type { ReviewableChange } from '../task/review-terminal.js';
import type { ReviewAnswer } from '../task/review.js';

/** What the TUI (ui/App.tsx) offers a running task; declared here by shape, since cli/ sits below ui/. */
interface TuiTaskHooks {
  confirm(message: string, details?: readonly string[]): Promise<boolean>;
  choose(
    message: string,
    choices: readonly { key: string; label: string }[],
    details?: readonly string[],
  ): Promise<string>;
  showDiff(diffs: readonly { file: string; diff: string }[]): void;
  print(line: string): void;
}
import { escapeControls } from '../../utils/terminal-text.js';
import { rememberTask, sessionCommand } from '../../agent/context/session.js';

/** A stream that drops what is written: the TUI shows events, not the console flow's text. */
function sink(): NodeJS.WritableStream {
  return new Writable({ write: (_chunk, _enc, done) => done() });
}

/**
 * `clawcode --shell`: the readline REPL (cli/interactive/repl.ts). Each line runs as a task with the console flow
 * (diffs, review, confirmation); Ctrl-C cancels the running task and its model request.
 */
export async function runShell(flags: TaskFlags): Promise<void> {
  let rootDir = await resolveProjectRoot(flags.dir);
  // Piped input still works line by line, but nobody can be asked: then plans are shown, not written.
  const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  const session = await openTaskSession(rootDir, flags, terminal);
  let { settings, provider } = session;
  const { files } = session;
  const { runRepl } = await import('./repl.js');
  const { reviewInTerminal } = await import('../task/review-terminal.js');
  await runRepl({
    rootDir,
    files,
    banner: `${provider.name} · ${provider.model}`,
    runTask: async (task, signal, context) => {
      rootDir = context.rootDir;
      const report = await withProjectLock(rootDir, { waitMs: 10_000 }, () =>
        executeTask({
          ...taskSettings(flags, settings.values),
          budgetChars: budgetForProvider(settings, provider),
          files: files.pinned,
          kept: files.kept,
          rootDir,
          task,
          provider,
          json: false,
          debug: Boolean(flags.debug),
          interactive: terminal,
          signal,
          stdout: process.stdout,
          stderr: process.stderr,
          ...(terminal ? { review: reviewInTerminal } : {}),
        }),
      );
      rememberTask(files, report);
      if (report.error) process.stderr.write(`${chalk.red('clawcode:')} ${escapeControls(report.error)}\n`);
    },
    switchProvider: async (name) => {
      settings = await loadSettings({
        rootDir,
        env: process.env,
        flags: { ...settingsFlags(flags), ...(name ? { provider: name } : {}) },
      });
      provider = await resolveProvider(settings.values, terminal);
      return `${provider.name} · ${provider.model}`;
    },
    chooseProject: async (current) => {
      const { selectProject } = await import('./projects.js');
      rootDir = await selectProject({ cwd: current });
      settings = await loadTaskSettings(rootDir, flags, false);
      return rootDir;
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
 */
export async function runTui(flags: TaskFlags): Promise<void> {
  // Without --dir, pick the project: recent ones, marked subfolders, other.
  const { rootDir, typed } = flags.dir
    ? { rootDir: await resolveProjectRoot(flags.dir), typed: '' }
    : await pickProject();
  const { settings, provider, files } = await openTaskSession(rootDir, flags, true);
  const [git, memory] = await Promise.all([getGitInfo(rootDir), loadSessionMemory(rootDir)]);
  const emitter = createAgentEmitter();
  const { runInkUI } = await (await import('../../ui/load-ui.js')).loadInkUI();
  await runInkUI({
    rootDir,
    provider: provider.name,
    model: provider.model,
    branch: git.branch ?? undefined,
    emitter,
    memory: `memory: ${memory.lastTasks.length} task${memory.lastTasks.length === 1 ? '' : 's'}`,
    initialInput: typed,
    filesCommand: (line: string) => sessionCommand(files, line),
    runTask: async (task: string, signal: AbortSignal, hooks: TuiTaskHooks) => {
      // The console flow's text is not drawn in the TUI, but the commands it lists before asking
      // "Run this command?" are shown with the question.
      const printed = commandLines();
      const report = await withProjectLock(rootDir, { waitMs: 10_000 }, () =>
        executeTask({
          ...taskSettings(flags, settings.values),
          budgetChars: budgetForProvider(settings, provider),
          files: files.pinned,
          kept: files.kept,
          rootDir,
          task,
          provider,
          json: false,
          debug: false,
          interactive: true,
          signal,
          emitter,
          stdout: printed.stream,
          stderr: sink(),
          confirm: (m: string) => hooks.confirm(m, printed.take()),
          review: (changes) => reviewInTui(changes, hooks),
        }),
      );
      rememberTask(files, report);
      if (report.error) emitter.emit('error', { message: report.error });
    },
    undo: async (_signal: AbortSignal, hooks: TuiTaskHooks) => {
      const { runUndoCommand } = await import('../commands/undo.js');
      await runUndoCommand({
        rootDir,
        interactive: true,
        confirm: (m) => hooks.confirm(m),
        stdout: lines((line) => hooks.print(line)),
      });
    },
  });
}

/** A stream that hands each complete line written to it (colours removed) to `onLine`. */
function lines(onLine: (line: string) => void): NodeJS.WritableStream {
  let pending = '';
  return new Writable({
    write(chunk: Buffer | string, _enc, done) {
      pending += chunk.toString().replace(/\u001b\[[0-9;]*m/g, '');
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      for (const line of parts) if (line.trim()) onLine(line);
      done();
    },
  });
}

/** Collects the `  $ command` lines the flow prints; `take()` returns those since the last take. */
function commandLines(): { stream: NodeJS.WritableStream; take(): string[] } {
  let seen: string[] = [];
  const stream = lines((line) => {
    if (/^\s+\$ /.test(line)) seen.push(line.trim());
  });
  return {
    stream,
    take() {
      const out = seen;
      seen = [];
      return out;
    },
  };
}

/**
 * The flow's confirmation in the TUI: y writes all, n nothing, r reviews hunk by hunk (cli/task/review.ts)
 * with each hunk in the diff pane and y/n/a/s/q keys (no editor: Ink owns the terminal).
 */
async function reviewInTui(
  changes: readonly (ReviewableChange & { diff?: string })[],
  hooks: TuiTaskHooks,
): Promise<{ path: string; after: string }[] | null> {
  const count = changes.length;
  const answer = await hooks.choose(`Apply these changes to ${count} file${count === 1 ? '' : 's'}?`, [
    { key: 'y', label: 'yes, write all' },
    { key: 'n', label: 'no, write nothing' },
    { key: 'r', label: 'review hunk by hunk' },
  ]);
  if (answer === 'n') return null;
  if (answer === 'y') return changes.map((c) => ({ path: c.path, after: c.after }));
  const { reviewChanges } = await import('../task/review.js');
  const labels: Record<string, string> = {
    y: 'yes',
    n: 'no',
    a: 'rest of the file',
    s: 'skip the file',
    q: 'quit, write nothing',
  };
  let shown = '';
  const result = await reviewChanges(
    changes.map((c) => ({ path: c.path, before: c.beforeText ?? '', after: c.after })),
    {
      ask: async (question, choices) => {
        hooks.showDiff([{ file: question, diff: shown }]);
        return (await hooks.choose(
          question,
          choices.map((key) => ({ key, label: labels[key] ?? key })),
        )) as ReviewAnswer;
      },
      print: (text) => {
        shown = text.replace(/^\n/, '');
      },
    },
    { color: false },
  );
  // Back to the whole plan's diff once every hunk is answered.
  hooks.showDiff(changes.map((c) => ({ file: c.path, diff: c.diff ?? '' })));
  return result.quit ? null : result.accepted;
}
