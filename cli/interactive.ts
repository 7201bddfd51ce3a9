import { Writable } from 'node:stream';
import chalk from 'chalk';
import type { TaskFlags } from '../cli.js';
import { createAgentEmitter } from '../agent/events.js';
import { loadSettings } from '../config/settings.js';
import { loadSessionMemory } from '../memory/memory.js';
import { getGitInfo } from '../utils/git.js';
import { withProjectLock } from '../utils/lock.js';
import type { ProviderConfig } from '../llm/types.js';
import { executeTask } from './flow.js';
import { addRecentProject } from './projects.js';
import { resolveProvider, settingsFlags, taskSettings } from './task-command.js';
import { resolveProjectRoot } from './project-root.js';
import { createContextSession, rememberTask } from '../agent/context-session.js';
import { budgetFor } from '../config/model-budget.js';

/** A stream that drops what is written: the TUI shows events, not the console flow's text. */
function sink(): NodeJS.WritableStream {
  return new Writable({ write: (_chunk, _enc, done) => done() });
}

/**
 * `clawcode --shell`: the readline REPL (cli/repl.ts). Each line runs as a task with the console flow
 * (diffs, review, confirmation); Ctrl-C cancels the running task and its model request.
 */
export async function runShell(flags: TaskFlags): Promise<void> {
  let rootDir = await resolveProjectRoot(flags.dir);
  await addRecentProject(rootDir).catch(() => undefined);
  let settings = await loadSettings({ rootDir, env: process.env, flags: settingsFlags(flags) });
  // Piped input still works line by line, but nobody can be asked: then plans are shown, not written.
  const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  let provider: ProviderConfig = await resolveProvider(settings.values, terminal);
  const { runRepl } = await import('./repl.js');
  const { reviewInTerminal } = await import('./review-terminal.js');
  const files = createContextSession(flags.files);
  await runRepl({
    rootDir,
    files,
    banner: `${provider.name} · ${provider.model}`,
    runTask: async (task, signal, context) => {
      rootDir = context.rootDir;
      const report = await withProjectLock(rootDir, { waitMs: 10_000 }, () =>
        executeTask({
          ...taskSettings(flags, settings.values),
          budgetChars: budgetFor(settings.values.budgetChars, settings.sources.budgetChars.layer, provider),
          files: files.pinned, kept: files.kept,
          rootDir, task, provider, json: false, debug: Boolean(flags.debug), interactive: terminal,
          signal, stdout: process.stdout, stderr: process.stderr,
          ...(terminal ? { review: reviewInTerminal } : {}),
        }),
      );
      rememberTask(files, report);
      if (report.error) process.stderr.write(`${chalk.red('clawcode:')} ${report.error}\n`);
    },
    switchProvider: async (name) => {
      settings = await loadSettings({ rootDir, env: process.env, flags: { ...settingsFlags(flags), ...(name ? { provider: name } : {}) } });
      provider = await resolveProvider(settings.values, terminal);
      return `${provider.name} · ${provider.model}`;
    },
    chooseProject: async (current) => {
      const { selectProject } = await import('./projects.js');
      rootDir = await selectProject({ cwd: current });
      settings = await loadSettings({ rootDir, env: process.env, flags: settingsFlags(flags) });
      return rootDir;
    },
    undo: async (root) => {
      const { runUndoCommand } = await import('./undo.js');
      // runUndoCommand prints its own result line.
      await runUndoCommand({ rootDir: root, interactive: terminal });
    },
  });
}

/** The project picker, skipped when the current folder has no project subfolders and no recent projects. */
async function pickProject(): Promise<string> {
  const cwd = process.cwd();
  const { getProjectDirectoryChoices, getRecentProjects, selectProject } = await import('./projects.js');
  const [choices, recent] = await Promise.all([getProjectDirectoryChoices(cwd), getRecentProjects()]);
  const others = recent.filter((r) => r.path !== cwd);
  // Choices always hold "." and "Other"; only ask when there is a real alternative.
  if (choices.length <= 2 && others.length === 0) return cwd;
  return selectProject({ cwd });
}

/**
 * The Ink TUI (`--ui`, and the default when a terminal starts clawcode with no task). Ink and React
 * load only here (ui/run-ui.tsx).
 */
export async function runTui(flags: TaskFlags): Promise<void> {
  // Without --dir, pick the project like the reference (§4.9): recent ones, marked subfolders, other.
  const rootDir = flags.dir ? await resolveProjectRoot(flags.dir) : await pickProject();
  await addRecentProject(rootDir).catch(() => undefined);
  const settings = await loadSettings({ rootDir, env: process.env, flags: settingsFlags(flags) });
  const provider = await resolveProvider(settings.values, true);
  const [git, memory] = await Promise.all([getGitInfo(rootDir), loadSessionMemory(rootDir)]);
  const emitter = createAgentEmitter();
  const files = createContextSession(flags.files);
  const { runInkUI } = await (await import('../ui/load-ui.js')).loadInkUI();
  await runInkUI({
    rootDir,
    provider: provider.name,
    model: provider.model,
    branch: git.branch ?? undefined,
    emitter,
    memory: `memory: ${memory.lastTasks.length} task${memory.lastTasks.length === 1 ? '' : 's'}`,
    runTask: async (task: string, signal: AbortSignal, hooks: { confirm(message: string): Promise<boolean> }) => {
      const report = await withProjectLock(rootDir, { waitMs: 10_000 }, () =>
        executeTask({
          ...taskSettings(flags, settings.values),
          budgetChars: budgetFor(settings.values.budgetChars, settings.sources.budgetChars.layer, provider),
          files: files.pinned, kept: files.kept,
          rootDir, task, provider, json: false, debug: false, interactive: true,
          signal, emitter, stdout: sink(), stderr: sink(),
          confirm: (m: string) => hooks.confirm(m),
        }),
      );
      rememberTask(files, report);
      if (report.error) emitter.emit('error', { message: report.error });
    },
  });
}
