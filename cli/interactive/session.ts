// The setup every task surface shares (one task, --shell, --ui): the project's trusted settings with the
// flags on top, the provider, the context budget for its model, and the files carried between tasks.
import type { TaskFlags } from '../flags.js';
import { readConfig, resolveProviderConfig } from '../../config/config.js';
import { budgetFor } from '../../config/model-budget.js';
import type { ResolvedSettings, SettingsValues } from '../../config/settings.js';
import { createContextSession, type ContextSession } from '../../agent/context/session.js';
import type { ProviderConfig } from '../../llm/types.js';
import { ConfigError } from '../../utils/errors.js';
import { warnIfConfigOpen } from '../config/home-permissions.js';
import { addRecentProject } from './projects.js';
import { loadTrustedSettings } from '../config/trust-prompt.js';
import { confirmPrompt } from '../console/ask.js';
import { checkProjectFolder } from '../folder-check.js';

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
    quiet: Boolean(flags.quiet),
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
    const { runOnboarding } = await import('../config/command.js');
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

/**
 * The project's settings for a task surface: the trusted layers with the flags on top (cli/config/trust-prompt.ts).
 * @param interactive  whether to ask about project settings that are not trusted yet (else a warning)
 * @returns the merged settings and where each value comes from
 */
export function loadTaskSettings(rootDir: string, flags: TaskFlags, interactive: boolean): Promise<ResolvedSettings> {
  return loadTrustedSettings({ rootDir, env: process.env, flags: settingsFlags(flags), interactive });
}

/** The context budget in characters for `provider`'s model: the budget setting, or the model's default when unset. */
export function budgetForProvider(settings: ResolvedSettings, provider: ProviderConfig): number {
  return budgetFor(settings.values.budgetChars, settings.sources.budgetChars.layer, provider);
}

/** Put the project on the recent list; a convenience, so a failure is ignored. Never throws. */
export async function rememberProject(rootDir: string): Promise<void> {
  await addRecentProject(rootDir).catch(() => undefined);
}

/** What an interactive surface (--shell, --ui) sets up once for its tasks. */
export interface TaskSession {
  settings: ResolvedSettings;
  provider: ProviderConfig;
  /** The `--files` pins, and later the files kept from one task for the next. */
  files: ContextSession;
}

/**
 * Set up an interactive surface in `rootDir`: put the project on the recent list, load its settings
 * ({@link loadTaskSettings}), resolve the provider ({@link resolveProvider}) and start the context session
 * with the `--files` pins.
 * @param interactive  whether a person can be asked (trust of the project settings, onboarding)
 * @throws ConfigError when no provider is configured and nobody can be asked
 */
export async function openTaskSession(rootDir: string, flags: TaskFlags, interactive: boolean): Promise<TaskSession> {
  await checkProjectFolder(rootDir, {
    anyFolder: flags.anyFolder,
    confirm: interactive ? (question) => confirmPrompt(question, false) : undefined,
  });
  await rememberProject(rootDir);
  const settings = await loadTaskSettings(rootDir, flags, interactive);
  const provider = await resolveProvider(settings.values, interactive);
  return { settings, provider, files: createContextSession(flags.files) };
}
