import chalk from 'chalk';
import type { TaskFlags } from '../cli.js';
import { ConfigError, InterruptedError, UsageError } from '../utils/errors.js';
import { readConfig, resolveProviderConfig } from '../config/config.js';
import { loadSettings, type ResolvedSettings, type SettingsValues } from '../config/settings.js';
import { acquireProjectLock } from '../utils/lock.js';
import { loadGlobalMemory } from '../memory/memory.js';
import { createAgentEmitter, type AgentEmitter } from '../agent/events.js';
import type { ProviderConfig } from '../llm/types.js';
import { executeTask, type TaskReport } from './flow.js';
import { resolveProjectRoot } from './project-root.js';
import { recoverUnfinishedRuns } from './recover.js';
import { addRecentProject } from './projects.js';

export { resolveProjectRoot };

/** The flags that are also settings, in settings terms (config/settings.ts). */
export function settingsFlags(flags: TaskFlags): Partial<SettingsValues> {
  const out: Partial<SettingsValues> = {};
  if (flags.provider) out.provider = flags.provider;
  if (flags.model) out.model = flags.model;
  if (flags.budget) out.budgetChars = flags.budget;
  if (flags.timeout) out.timeoutMs = flags.timeout;
  if (typeof flags.verify === 'string') out.verifyCommand = flags.verify;
  if (flags.commit) out.autoCommit = true;
  return out;
}

/**
 * Find the provider to use: flags and settings, then config entries and environment
 * (config/config.ts); with none and a terminal, run the guided onboarding once.
 * @throws ConfigError when no provider is configured and nobody can be asked
 */
export async function resolveProvider(settings: SettingsValues, interactive: boolean, env = process.env): Promise<ProviderConfig> {
  const config = await readConfig(env);
  const found = resolveProviderConfig({ config, env, provider: settings.provider, model: settings.model });
  if (found) return found;
  if (interactive && !settings.provider) {
    const { runOnboarding } = await import('./config.js');
    await runOnboarding({});
    const again = resolveProviderConfig({ config: await readConfig(env), env, provider: settings.provider, model: settings.model });
    if (again) return again;
  }
  if (settings.provider) {
    throw new ConfigError(`Provider "${settings.provider}" is not configured.`, {
      code: 'provider_not_configured',
      hint: 'Run `clawcode config` to add it, or set its environment variables (e.g. OPENAI_API_KEY and OPENAI_BASE_URL).',
    });
  }
  throw new ConfigError('No provider configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for a local server), or run `clawcode config`.', {
    code: 'no_provider',
  });
}

/** `--events`: one JSON line per pipeline event on stdout. */
function eventsToStdout(emitter: AgentEmitter): void {
  emitter.onAny((name, payload) => {
    if (name === 'model_progress') return; // too chatty for a log; the reply event carries the totals
    process.stdout.write(JSON.stringify({ event: name, ...payload }) + '\n');
  });
}

/**
 * The verify command for `--verify`: the flag's command, else the settings' verifyCommand, else
 * (for a bare `--verify`) the project's remembered test command.
 */
async function verifyCommandFor(flags: TaskFlags, settings: ResolvedSettings, rootDir: string, homeDir?: string): Promise<string | undefined> {
  if (typeof flags.verify === 'string' && flags.verify.trim()) return flags.verify;
  if (settings.values.verifyCommand) return settings.values.verifyCommand;
  if (flags.verify === true) {
    const remembered = (await loadGlobalMemory(homeDir)).projectSummaries[rootDir]?.testCommand;
    if (!remembered) throw new UsageError('--verify needs a command: no test command is known for this project.', { hint: 'Use --verify "npm test".' });
    return remembered;
  }
  return undefined;
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
  const settings = await loadSettings({ rootDir, env: process.env, flags: settingsFlags(flags) });
  await addRecentProject(rootDir).catch(() => undefined); // a convenience: never fail a task over it
  if (!task) {
    if (!interactive) throw new UsageError('No task given.', { hint: 'Usage: clawcode "add logging to the api" [--dir path] [--yes]' });
    task = await askTask('What should clawcode do?');
    if (!task) return 0;
  }
  if (flags.printPrompt) {
    const { printPrompt } = await import('./apply-command.js');
    await printPrompt({ rootDir, task, budgetChars: settings.values.budgetChars, extraIgnore: settings.values.ignore, stdout: process.stdout });
    return 0;
  }
  const provider = await resolveProvider(settings.values, interactive);
  const verify = await verifyCommandFor(flags, settings, rootDir);
  const emitter = createAgentEmitter();
  if (flags.events) eventsToStdout(emitter);
  const loop = interactive && !flags.yes;

  let exitCode = 0;
  for (;;) {
    const controller = new AbortController();
    const onSigint = () => {
      if (controller.signal.aborted) process.exit(130);
      controller.abort(new InterruptedError());
    };
    process.on('SIGINT', onSigint);
    // One writer per project at a time: a second clawcode waits up to 10 s, then refuses.
    const release = await acquireProjectLock(rootDir, { waitMs: 10_000 });
    try {
      await recoverUnfinishedRuns({
        rootDir,
        confirm: interactive ? confirmPrompt : undefined,
        print: machine ? undefined : (text) => process.stderr.write(text + '\n'),
      });
      const report = await executeTask({
        rootDir,
        task,
        provider,
        budgetChars: settings.values.budgetChars,
        extraIgnore: settings.values.ignore,
        dryRun: Boolean(flags.dryRun),
        yes: Boolean(flags.yes),
        runCommands: Boolean(flags.runCommands),
        commandRules: settings.values.commands,
        json: machine,
        debug: Boolean(flags.debug),
        interactive,
        timeoutMs: settings.values.timeoutMs,
        signal: controller.signal,
        emitter,
        stdout: process.stdout,
        stderr: process.stderr,
        planOut: flags.planOut,
        verify,
        rollbackOnFail: Boolean(flags.rollbackOnFail),
        commit: settings.values.autoCommit,
        ...(interactive ? { review: await reviewer() } : {}),
      });
      exitCode = report.exitCode;
      if (flags.events) process.stdout.write(JSON.stringify({ event: 'report', report }) + '\n');
      else if (flags.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
      else if (report.error) process.stderr.write(`${chalk.red('clawcode:')} ${report.error}\n`);
    } catch (error) {
      if (!loop) throw error;
      await showErrorBox(error);
      exitCode = typeof (error as { exitCode?: unknown }).exitCode === 'number' ? (error as { exitCode: number }).exitCode : 1;
    } finally {
      await release();
      process.off('SIGINT', onSigint);
    }
    if (!loop) return exitCode;
    task = await askTask('What next? (empty to quit)');
    if (!task) return exitCode;
  }
}

async function confirmPrompt(message: string): Promise<boolean> {
  const { confirm } = await import('@inquirer/prompts');
  return confirm({ message, default: true });
}

/** The per-hunk review (cli/review.ts) as the flow's `review` callback. */
async function reviewer(): Promise<(changes: { path: string; beforeText: string | null; after: string }[]) => Promise<{ path: string; after: string }[] | null>> {
  const { reviewInTerminal } = await import('./review-terminal.js');
  return reviewInTerminal;
}

async function askTask(message: string): Promise<string> {
  const { input } = await import('@inquirer/prompts');
  return (await input({ message })).trim();
}

async function showErrorBox(error: unknown): Promise<void> {
  const { default: boxen } = await import('boxen');
  const message = error instanceof Error ? error.message : String(error);
  const hint = (error as { hint?: string }).hint;
  process.stderr.write(boxen(`${message}${hint ? `\n${chalk.dim(hint)}` : ''}`, { title: 'Error', borderColor: 'red', padding: { left: 1, right: 1 } }) + '\n');
}

export type { TaskReport };
