import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import chalk from 'chalk';
import type { TaskFlags } from '../cli.js';
import { ClawcodeError, ConfigError, InterruptedError, UsageError } from '../utils/errors.js';
import { readConfig, resolveProviderConfig } from '../config/config.js';
import { warnIfConfigOpen } from './home-permissions.js';
import { type ResolvedSettings, type SettingsValues } from '../config/settings.js';
import { isGitRepo } from '../utils/git.js';
import { detectProjectSummary } from '../memory/project-summary.js';
import { isPromptExit, withInterrupt } from './interrupt.js';
import { loadGlobalMemory } from '../memory/memory.js';
import { createAgentEmitter, type AgentEmitter } from '../agent/events.js';
import type { ProviderConfig } from '../llm/types.js';
import { executeTask } from './flow.js';
import type { WideOptions } from './wide-flow.js';
import { resolveProjectRoot } from './project-root.js';
import { withLockedProject } from './recover.js';
import { askText } from './ask.js';
import { addRecentProject } from './projects.js';
import { loadTrustedSettings } from './trust-prompt.js';
import { escapeControls, escapeControlsKeepColor } from '../utils/terminal-text.js';
import { createContextSession, rememberTask } from '../agent/context/session.js';
import { budgetFor } from '../config/model-budget.js';

/** The flags that are also settings, in settings terms (config/settings.ts). */
export function settingsFlags(flags: TaskFlags): Partial<SettingsValues> {
  const out: Partial<SettingsValues> = {};
  if (flags.provider) out.provider = flags.provider;
  if (flags.model) out.model = flags.model;
  if (flags.budget) out.budgetChars = flags.budget;
  if (flags.timeout) out.timeoutMs = flags.timeout;
  if (flags.verifyCmd) out.verifyCommand = flags.verifyCmd;
  if (flags.commit) out.autoCommit = true;
  if (flags.repair === false) out.repair = false;
  return out;
}

/**
 * The task options that come from flags and merged settings, shared by every surface that runs
 * tasks (single task, --shell, --ui): budget, ignore patterns, command rules, timeout, dry run, yes.
 */
export function taskSettings(flags: TaskFlags, values: SettingsValues) {
  return {
    budgetChars: values.budgetChars,
    extraIgnore: values.ignore,
    commandRules: values.commands,
    timeoutMs: values.timeoutMs,
    dryRun: Boolean(flags.dryRun),
    yes: Boolean(flags.yes),
    runCommands: Boolean(flags.runCommands),
    allowNetwork: Boolean(flags.allowNetwork),
    repair: values.repair,
  };
}

/**
 * Find the provider to use: flags and settings, then config entries and environment
 * (config/config.ts); with none and a terminal, run the guided onboarding once.
 * @throws ConfigError when no provider is configured and nobody can be asked
 */
export async function resolveProvider(
  settings: SettingsValues,
  interactive: boolean,
  env = process.env,
): Promise<ProviderConfig> {
  await warnIfConfigOpen(env);
  const config = await readConfig(env);
  const found = resolveProviderConfig({ config, env, provider: settings.provider, model: settings.model });
  if (found) return found;
  if (interactive && !settings.provider) {
    const { runOnboarding } = await import('./config.js');
    await runOnboarding({});
    const again = resolveProviderConfig({
      config: await readConfig(env),
      env,
      provider: settings.provider,
      model: settings.model,
    });
    if (again) return again;
  }
  if (settings.provider) {
    throw new ConfigError(`Provider "${settings.provider}" is not configured.`, {
      code: 'provider_not_configured',
      hint: 'Run `clawcode config` to add it, or set its environment variables (e.g. OPENAI_API_KEY and OPENAI_BASE_URL).',
    });
  }
  throw new ConfigError(
    'No provider configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for a local server), or run `clawcode config`.',
    {
      code: 'no_provider',
    },
  );
}

/** `--events`: one JSON line per pipeline event on stdout. */
function eventsToStdout(emitter: AgentEmitter): void {
  emitter.onAny((name, payload) => {
    if (name === 'model_progress') return; // too chatty for a log; the reply event carries the totals
    process.stdout.write(JSON.stringify({ event: name, ...payload }) + '\n');
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
  const settings = await loadTrustedSettings({ rootDir, env: process.env, flags: settingsFlags(flags), interactive });
  // A convenience: never fail a task over it; --print-prompt leaves no trace under the clawcode home.
  if (!flags.printPrompt) await addRecentProject(rootDir).catch(() => undefined);
  if (!task) {
    if (!interactive)
      throw new UsageError('No task given.', { hint: 'Usage: clawcode "add logging to the api" [--dir path] [--yes]' });
    task = await askText('What should clawcode do?');
    if (!task) return 0;
  }
  const wide = wideOptions(flags);
  if (flags.printPrompt && wide) {
    const { printWidePrompts } = await import('./wide-flow.js');
    const provider = { provider: 'openai' as const, name: 'none', model: '' };
    const printed = await printWidePrompts({
      ...taskSettings(flags, settings.values),
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
    if (printed) return 0;
  }
  if (flags.printPrompt) {
    const { printPrompt } = await import('./print-prompt.js');
    await printPrompt({
      rootDir,
      task,
      budgetChars: settings.values.budgetChars,
      extraIgnore: settings.values.ignore,
      files: flags.files,
      json: machine,
      stdout: process.stdout,
    });
    return 0;
  }
  const verify = await verifyCommandFor(flags, settings, rootDir);
  await checkBeforePlanning(flags, settings.values.autoCommit, rootDir);
  const provider = await resolveProvider(settings.values, interactive);
  const budgetChars = budgetFor(settings.values.budgetChars, settings.sources.budgetChars.layer, provider);
  // Follow-ups of the What-next loop keep the pins and the files the previous task planned or edited.
  const files = createContextSession(flags.files);
  const emitter = createAgentEmitter();
  if (flags.events) eventsToStdout(emitter);
  const loop = interactive && !flags.yes;

  let exitCode = 0;
  for (;;) {
    try {
      const report = await withInterrupt((signal) =>
        withLockedProject({ rootDir, dryRun: Boolean(flags.dryRun), interactive }, async () =>
          executeTask({
            ...taskSettings(flags, settings.values),
            budgetChars,
            files: files.pinned,
            kept: files.kept,
            rootDir,
            task,
            provider,
            json: machine,
            debug: Boolean(flags.debug),
            interactive,
            signal,
            emitter,
            stdout: process.stdout,
            stderr: process.stderr,
            planOut: flags.planOut,
            verify,
            rollbackOnFail: Boolean(flags.rollbackOnFail),
            commit: settings.values.autoCommit,
            wide,
            ...(interactive ? { review: await reviewer() } : {}),
          }),
        ),
      );
      exitCode = report.exitCode;
      rememberTask(files, report);
      if (flags.events) process.stdout.write(JSON.stringify({ event: 'report', report }) + '\n');
      else if (flags.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
      else if (report.error) process.stderr.write(`${chalk.red('clawcode:')} ${escapeControls(report.error)}\n`);
    } catch (error) {
      if (!loop) throw error;
      if (isPromptExit(error) || error instanceof InterruptedError) {
        process.stderr.write(chalk.yellow('Cancelled; nothing more was done.\n'));
        exitCode = 130;
      } else {
        await showErrorBox(error, Boolean(flags.debug));
        exitCode = error instanceof ClawcodeError ? error.exitCode : 1;
      }
    }
    if (!loop) return exitCode;
    task = await askText('What next? (empty to quit)');
    if (!task) return exitCode;
  }
}

/** The per-hunk review (cli/review.ts) as the flow's `review` callback. */
async function reviewer(): Promise<
  (
    changes: { path: string; beforeText: string | null; after: string }[],
  ) => Promise<{ path: string; after: string }[] | null>
> {
  const { reviewInTerminal } = await import('./review-terminal.js');
  return reviewInTerminal;
}

/** The What-next loop's error display: a box, so the loop can go on; a bug says so (stack under --debug). */
async function showErrorBox(error: unknown, debug: boolean): Promise<void> {
  const { default: boxen } = await import('boxen');
  const known = error instanceof ClawcodeError;
  const message = error instanceof Error ? error.message : String(error);
  const detail = known
    ? error.hint
    : debug && error instanceof Error
      ? error.stack
      : '(run with --debug for the stack trace)';
  const title = known ? 'Error' : 'Internal error, please report';
  process.stderr.write(
    boxen(escapeControlsKeepColor(`${message}${detail ? `\n${chalk.dim(detail)}` : ''}`), {
      title,
      borderColor: 'red',
      padding: { left: 1, right: 1 },
    }) + '\n',
  );
}
