import { dirname } from 'node:path';
import { Writable } from 'node:stream';
import chalk from 'chalk';
import type { TaskFlags } from '../cli.js';
import { createAgentEmitter, type AgentEmitter } from '../agent/events.js';
import { listConfiguredProviders, readConfig } from '../config/config.js';
import { loadSettings } from '../config/settings.js';
import type { ProviderConfig } from '../llm/types.js';
import { UsageError } from '../utils/errors.js';
import { getGitInfo } from '../utils/git.js';
import { acquireProjectLock } from '../utils/lock.js';
import { executeTask, type TaskOptions, type TaskReport } from './flow.js';
import { addRecentProject, selectProject } from './projects.js';
import { recoverUnfinishedRuns } from './recover.js';
import { resolveProjectRoot, resolveProvider, settingsFlags } from './task-command.js';

/** What one interactive task run needs beyond the task itself. */
interface OneTask {
  rootDir: string;
  task: string;
  flags: TaskFlags;
  provider: ProviderConfig;
  signal: AbortSignal;
  interactive: boolean;
  emitter?: AgentEmitter;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  confirm?: TaskOptions['confirm'];
  review?: TaskOptions['review'];
}

/**
 * One task as `clawcode "<task>"` runs it (project lock, recovery of interrupted runs, executeTask),
 * for the REPL and the TUI. A report with an error is shown on `stderr`; thrown errors propagate so the
 * surface shows them and goes on.
 */
async function runOneTask(o: OneTask): Promise<TaskReport> {
  const settings = await loadSettings({ rootDir: o.rootDir, env: process.env, flags: settingsFlags(o.flags) });
  const release = await acquireProjectLock(o.rootDir, { waitMs: 10_000 });
  try {
    await recoverUnfinishedRuns({
      rootDir: o.rootDir,
      confirm: o.confirm,
      print: (text) => o.stderr.write(`${text}\n`),
    });
    const report = await executeTask({
      rootDir: o.rootDir,
      task: o.task,
      provider: o.provider,
      budgetChars: settings.values.budgetChars,
      extraIgnore: settings.values.ignore,
      dryRun: Boolean(o.flags.dryRun),
      yes: Boolean(o.flags.yes),
      runCommands: Boolean(o.flags.runCommands),
      commandRules: settings.values.commands,
      json: false,
      debug: Boolean(o.flags.debug),
      interactive: o.interactive,
      timeoutMs: settings.values.timeoutMs,
      signal: o.signal,
      emitter: o.emitter,
      stdout: o.stdout,
      stderr: o.stderr,
      commit: settings.values.autoCommit,
      ...(o.confirm ? { confirm: o.confirm } : {}),
      ...(o.review ? { review: o.review } : {}),
    });
    if (report.error) o.stderr.write(`${chalk.red('clawcode:')} ${report.error}\n`);
    return report;
  } finally {
    await release();
  }
}

/** Resolve the provider for `rootDir`, with `name` (from `:provider`) over the flags. */
async function providerFor(rootDir: string, flags: TaskFlags, interactive: boolean, name?: string): Promise<ProviderConfig> {
  const settings = await loadSettings({ rootDir, env: process.env, flags: settingsFlags({ ...flags, ...(name ? { provider: name } : {}) }) });
  return resolveProvider(settings.values, interactive);
}

/**
 * `clawcode --shell`: the REPL (cli/repl.ts) wired to the task flow. Each line runs like
 * `clawcode "<line>"` (diffs, the y/r/n review, journaled write); Ctrl-C aborts that task.
 * `:provider <name>` switches provider, `:project [path]` switches project, `:undo` undoes the last run.
 *
 * @returns the process exit code (0; task failures are shown and the loop goes on)
 * @throws ConfigError when no provider is configured at start; UsageError for a bad --dir
 */
export async function runShellCommand(flags: TaskFlags): Promise<number> {
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  const rootDir = await resolveProjectRoot(flags.dir);
  let providerName = flags.provider;
  let provider = await providerFor(rootDir, flags, interactive);
  await addRecentProject(rootDir).catch(() => undefined);
  const [{ runRepl }, review] = await Promise.all([import('./repl.js'), interactive ? loadReview() : undefined]);
  await runRepl({
    rootDir,
    banner: `Provider: ${provider.name} · ${provider.model}`,
    runTask: async (task, signal, ctx) => {
      await runOneTask({
        rootDir: ctx.rootDir,
        task,
        flags: { ...flags, provider: providerName },
        provider,
        signal,
        interactive,
        stdout: process.stdout,
        stderr: process.stderr,
        review,
      });
    },
    switchProvider: async (name) => {
      if (!name) {
        const names = listConfiguredProviders(await readConfig()).map((p) => p.name);
        throw new UsageError('Usage: :provider <name>', { hint: `Configured: ${names.join(', ') || 'none (run clawcode config)'}` });
      }
      provider = await providerFor(rootDir, flags, interactive, name);
      providerName = name;
      return `${provider.name} · ${provider.model}`;
    },
    chooseProject: async (current) => selectProject({ cwd: dirname(current) }),
    undo: async (root) => {
      const { runUndoCommand } = await import('./undo.js');
      await runUndoCommand({ rootDir: root, yes: false, force: false, json: false, interactive, stdout: process.stdout });
    },
  });
  return 0;
}

async function loadReview(): Promise<TaskOptions['review']> {
  const { reviewInTerminal } = await import('./review-terminal.js');
  return reviewInTerminal;
}

/** A stream that drops what it is given: the TUI shows events, not the console flow's printout. */
function discard(): Writable {
  return new Writable({ write: (_chunk, _enc, done) => done() });
}

/**
 * `clawcode --ui` (and plain `clawcode` in a terminal): project selection when no --dir (recent
 * projects first, reference §4.9), then the Ink TUI (ui/run-ui.tsx, imported only here) wired to the
 * task flow. Questions of the flow (apply? run commands?) are asked inside the TUI.
 *
 * @returns the process exit code
 * @throws UsageError without a terminal; ConfigError when no provider is configured
 */
export async function runUiCommand(flags: TaskFlags): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new UsageError('The interactive UI needs a terminal', { code: 'tui_needs_tty', hint: 'Pass a task instead: clawcode "describe the change"' });
  }
  const rootDir = flags.dir ? await resolveProjectRoot(flags.dir) : await selectProject({ cwd: process.cwd() });
  await addRecentProject(rootDir).catch(() => undefined);
  const provider = await providerFor(rootDir, flags, true);
  const git = await getGitInfo(rootDir).catch(() => undefined);
  const emitter = createAgentEmitter();
  const { runInkUI } = await import('../ui/run-ui.js');
  await runInkUI({
    rootDir,
    provider: provider.name,
    model: provider.model,
    branch: git?.branch ?? undefined,
    emitter,
    runTask: async (task, signal, hooks) => {
      const sink = discard();
      const report = await runOneTask({ rootDir, task, flags, provider, signal, interactive: true, emitter, stdout: sink, stderr: sink, confirm: hooks.confirm });
      // The console printout is dropped here, so a failed report reaches the feed as an error line.
      if (report.error) throw new Error(report.error);
    },
  });
  return 0;
}
