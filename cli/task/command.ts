import { terminalJson } from '../../utils/terminal-text.js';
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import chalk from 'chalk';
import type { TaskFlags } from '../flags.js';
import { ClawcodeError, InterruptedError, UsageError } from '../../utils/errors.js';
import { type ResolvedSettings } from '../../config/settings.js';
import { providerIfConfigured } from '../../config/config.js';
import { describeBudget } from '../../config/model-budget.js';
import { budgetForRun } from '../../config/model-windows.js';
import { isGitRepo } from '../../utils/git/ops.js';
import { detectProjectSummary } from '../../memory/project-summary.js';
import { isPromptExit, isTerminating, withInterrupt } from '../console/interrupt.js';
import { loadGlobalMemory } from '../../memory/memory.js';
import { createAgentEmitter, type AgentEmitter } from '../../agent/events.js';
import type { ProviderConfig } from '../../llm/types.js';
import { executeTask, type TaskOptions } from './flow.js';
import type { WideOptions } from '../wide/flow.js';
import { resolveProjectRoot } from '../project-root.js';
import { withLockedProject } from '../recover.js';
import { askText, confirmPrompt } from '../console/ask.js';
import { errorLine, errorText } from '../console/errors.js';
import { checkProjectFolder } from '../folder-check.js';

import { createCarriedFiles, rememberTask, type CarriedFiles } from '../../agent/context/carried-files.js';
import { loadTaskSettings, rememberProject, resolveProvider, taskSettings } from '../interactive/session.js';

/** A yes/no question whose Enter alone means no. */
const askNo = (question: string): Promise<boolean> => confirmPrompt(question, false);

/** `--events`: one JSON line per pipeline event on stdout. */
function eventsToStdout(emitter: AgentEmitter): void {
  emitter.onAny((name, payload) => {
    if (name === 'model_progress') return; // too chatty for a log; the reply event carries the totals
    process.stdout.write(terminalJson({ event: name, ...payload }) + '\n');
  });
}

/**
 * The command to verify with after writing: `--verify-cmd` or the settings' verifyCommand (merged by
 * loadSettings, the flag winning), else for `--verify` the project's test command, remembered in
 * memory or detected now from its manifest.
 *
 * @throws UsageError for `--verify` without any known test command, or `--rollback-on-fail` without verify
 */
async function verifyCommandFor(
  flags: TaskFlags,
  settings: ResolvedSettings,
  rootDir: string,
): Promise<string | undefined> {
  let command = settings.values.verifyCommand || undefined;
  if (!command && flags.verify) {
    command =
      (await loadGlobalMemory()).projectSummaries[rootDir]?.testCommand ??
      (await detectProjectSummary(rootDir)).testCommand;
    if (!command)
      throw new UsageError('--verify: no test command is known for this project.', {
        hint: 'Name one: --verify-cmd "npm test".',
      });
  }
  if (flags.rollbackOnFail && !command) {
    throw new UsageError('--rollback-on-fail needs a verify command.', {
      hint: 'Add --verify (the project test command) or --verify-cmd "<command>".',
    });
  }
  return command;
}

/**
 * The wide-change options of the flags, or undefined for an ordinary task.
 * @throws UsageError for `--concurrency` or `--partial` without `--files`, `--grep` or `--wide`
 */
function wideOptions(flags: TaskFlags): WideOptions | undefined {
  const wide = Boolean(flags.files?.length || flags.grep?.length || flags.wide);
  if (!wide) {
    if (flags.concurrency || flags.partial)
      throw new UsageError('--concurrency and --partial apply to wide changes (--files, --grep or --wide).');
    return undefined;
  }
  return {
    files: flags.files,
    grep: flags.grep,
    scope: Boolean(flags.wide),
    concurrency: flags.concurrency,
    partial: Boolean(flags.partial),
  };
}

/** Fail before the model call when `--plan-out` or `--commit` cannot work, so no paid plan is lost. */
async function checkBeforePlanning(flags: TaskFlags, commit: boolean, rootDir: string): Promise<void> {
  if (flags.planOut) {
    const folder = dirname(resolve(flags.planOut));
    const info = await stat(folder).catch(() => undefined);
    if (!info?.isDirectory()) throw new UsageError(`--plan-out: folder not found: ${folder}`);
  }
  if (flags.commitHooks && !commit) throw new UsageError('--commit-hooks applies to a commit: pass --commit too.');
  if (commit && !flags.dryRun && !(await isGitRepo(rootDir))) {
    throw new UsageError(`--commit: ${rootDir} is not a git repository (or git is not installed).`);
  }
}

/**
 * The main job from the command line: one task, then (in a terminal, without --yes/--json) the
 * "What next?" loop until an empty answer. Ctrl-C aborts the running task's provider request.
 *
 * @returns the process exit code of the last task
 */
export async function runTaskCommand(task: string, flags: TaskFlags): Promise<number> {
  const rootDir = await resolveProjectRoot(flags.dir);
  const machine = Boolean(flags.json || flags.events);
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY && !machine);
  await checkProjectFolder(rootDir, { anyFolder: flags.anyFolder, confirm: interactive ? askNo : undefined });
  const settings = await loadTaskSettings(rootDir, flags, interactive);
  // A convenience: never fail a task over it; --print-prompt leaves no trace under the clawcode home.
  if (!flags.printPrompt) await rememberProject(rootDir);
  if (!task) {
    if (!interactive)
      throw new UsageError('No task given.', { hint: 'Usage: clawcode "add logging to the api" [--dir path] [--yes]' });
    task = await askText('What should clawcode do?');
    if (!task) return 0;
  }
  const wide = wideOptions(flags);
  if (flags.printPrompt) {
    await printPrompts({ task, flags, settings, rootDir, wide, machine });
    return 0;
  }
  const verify = await verifyCommandFor(flags, settings, rootDir);
  await checkBeforePlanning(flags, settings.values.autoCommit, rootDir);
  const provider = await resolveProvider(settings.values, interactive);
  const budget = await budgetForRun(settings, provider, true);
  const budgetChars = budget.chars;
  // Which budget, and why, on the line the person reads before the spinner (not in --json or a pipe).
  if (!machine && process.stderr.isTTY) process.stderr.write(`${chalk.dim(`· ${describeBudget(budget)}`)}\n`);
  // Follow-ups of the What-next loop keep the pins and the files the previous task planned or edited.
  const files = createCarriedFiles(flags.files);
  const emitter = createAgentEmitter();
  if (flags.events) eventsToStdout(emitter);
  const run: TaskRun = {
    flags,
    rootDir,
    settings,
    provider,
    budgetChars,
    files,
    emitter,
    verify,
    wide,
    machine,
    interactive,
  };
  const loop = interactive && !flags.yes;
  // The loop's `:commands` change the run's project, provider and model; the budget and verify follow.
  const whatNext = loop
    ? (await import('../interactive/what-next.js')).whatNextPrompt(run, flags, async () => {
        run.budgetChars = (await budgetForRun(run.settings, run.provider, true)).chars;
        run.verify = await verifyCommandFor(flags, run.settings, run.rootDir);
      })
    : undefined;

  let exitCode = 0;
  for (;;) {
    try {
      exitCode = await runOneTask(run, task);
    } catch (error) {
      if (!loop || isTerminating()) throw error;
      exitCode = await showTaskFailure(error, Boolean(flags.debug));
    }
    if (!whatNext || isTerminating()) return exitCode;
    task = await whatNext();
    if (!task) return exitCode;
  }
}

/** `--print-prompt`: print the prompts of a wide change (one per shard), or else the one prompt of the task. */
async function printPrompts(options: {
  task: string;
  flags: TaskFlags;
  settings: ResolvedSettings;
  rootDir: string;
  wide: WideOptions | undefined;
  machine: boolean;
}): Promise<void> {
  const { task, flags, settings, rootDir, wide, machine } = options;
  // The budget the run would use, for the provider and model it would use; nothing is cached.
  const budget = await budgetForRun(settings, await providerIfConfigured(settings.values), false);
  if (!machine) process.stderr.write(`${describeBudget(budget)}\n`);
  if (wide) {
    const { printWidePrompts } = await import('../wide/flow.js');
    const provider = { provider: 'openai' as const, name: 'none', model: '' };
    const printed = await printWidePrompts({
      ...taskSettings(flags, settings.values),
      budgetChars: budget.chars,
      rootDir,
      task,
      provider,
      json: machine,
      debug: false,
      interactive: false,
      stdout: process.stdout,
      stderr: process.stderr,
      wide,
    });
    if (printed) return;
  }
  const { printPrompt } = await import('./print-prompt.js');
  await printPrompt({
    rootDir,
    task,
    budgetChars: budget.chars,
    extraIgnore: settings.values.ignore,
    files: flags.files,
    json: machine,
    stdout: process.stdout,
  });
}

/** What every task of one `runTaskCommand` shares. */
interface TaskRun {
  flags: TaskFlags;
  rootDir: string;
  settings: ResolvedSettings;
  provider: ProviderConfig;
  budgetChars: number;
  files: CarriedFiles;
  emitter: AgentEmitter;
  verify: string | undefined;
  wide: WideOptions | undefined;
  /** `--json` or `--events`. */
  machine: boolean;
  interactive: boolean;
}

/**
 * Run one task under the project lock (Ctrl-C aborts it), keep its files for the next task, and print its
 * report: an event line (`--events`), JSON (`--json`) or its error line.
 * @returns the task's exit code
 * @throws what the flow throws (InterruptedError on Ctrl-C, the lock's and the flow's errors)
 */
async function runOneTask(run: TaskRun, task: string): Promise<number> {
  const { flags, rootDir, settings, files, interactive } = run;
  const report = await withInterrupt((signal) =>
    withLockedProject({ rootDir, dryRun: Boolean(flags.dryRun), interactive }, async () => {
      const options: TaskOptions = {
        ...taskSettings(flags, settings.values),
        budgetChars: run.budgetChars,
        files: files.pinned,
        kept: files.kept,
        rootDir,
        task,
        provider: run.provider,
        json: run.machine,
        debug: Boolean(flags.debug),
        interactive,
        signal,
        emitter: run.emitter,
        stdout: process.stdout,
        stderr: process.stderr,
        planOut: flags.planOut,
        verify: run.verify,
        rollbackOnFail: Boolean(flags.rollbackOnFail),
        commit: settings.values.autoCommit,
        commitHooks: Boolean(flags.commitHooks),
        ...(interactive ? { review: await reviewer(rootDir) } : {}),
      };
      if (!run.wide) return executeTask(options);
      // A wide change (`--files` over the budget, `--grep`, `--wide`): sharded plan requests, merged, written once.
      const { executeWideTask } = await import('../wide/flow.js');
      return executeWideTask({ ...options, wide: run.wide });
    }),
  );
  rememberTask(files, report);
  if (flags.events) process.stdout.write(terminalJson({ event: 'report', report }) + '\n');
  else if (flags.json) process.stdout.write(terminalJson(report, 2) + '\n');
  else if (report.error) process.stderr.write(errorLine(report.error));
  return report.exitCode;
}

/** Show a failed task of the What-next loop, which goes on; returns its exit code (130 when cancelled). */
async function showTaskFailure(error: unknown, debug: boolean): Promise<number> {
  if (isPromptExit(error) || error instanceof InterruptedError) {
    process.stderr.write(chalk.yellow('Cancelled; nothing more was done.\n'));
    return 130;
  }
  // The loop goes on after it, so the error is printed here, as the entry would print it.
  process.stderr.write(errorText(error, debug));
  return error instanceof ClawcodeError ? error.exitCode : 1;
}

/** The per-hunk review (cli/task/review.ts) of a project as the flow's `review` callback. */
async function reviewer(
  rootDir: string,
): Promise<
  (
    changes: { path: string; beforeText: string | null; after: string }[],
  ) => Promise<{ path: string; after: string }[] | null>
> {
  const { reviewInTerminal } = await import('./review-terminal.js');
  return (changes) => reviewInTerminal(changes, rootDir);
}
