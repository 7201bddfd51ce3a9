// The setup every task surface shares (one task, --shell, --ui): the project's trusted settings with the
// flags on top, the provider, the context budget for its model, and the files carried between tasks.
import type { TaskFlags } from '../flags.js';
import { listConfiguredProviders, readConfig, resolveProviderConfig } from '../../config/config.js';
import { loadSettings, type ResolvedSettings, type SettingsValues } from '../../config/settings.js';
import { createCarriedFiles, type CarriedFiles } from '../../agent/context/carried-files.js';
import type { ProviderConfig } from '../../llm/types.js';
import { ConfigError } from '../../utils/errors.js';
import { warnIfConfigOpen } from '../config/home-permissions.js';
import { addRecentProject } from './projects.js';
import { loadTrustedSettings } from '../config/trust-prompt.js';
import type { ColonHandlers } from './colon-commands.js';
import { confirmPrompt } from '../console/ask.js';
import { checkProjectFolder } from '../folder-check.js';
import { refuseHomeOverlap } from '../project-root.js';

/** The flags that are also settings, in settings terms (config/settings.ts). */
function settingsFlags(flags: TaskFlags): Partial<SettingsValues> {
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
    const { runOnboarding } = await import('../config/onboarding.js');
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
export function loadTaskSettings(
  rootDir: string,
  flags: TaskFlags,
  interactive: boolean,
  stderr?: NodeJS.WritableStream,
): Promise<ResolvedSettings> {
  return loadTrustedSettings({ rootDir, env: process.env, flags: settingsFlags(flags), interactive, stderr });
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
  files: CarriedFiles;
}

/**
 * Set up an interactive surface in `rootDir`: put the project on the recent list, load its settings
 * ({@link loadTaskSettings}), resolve the provider ({@link resolveProvider}) and start the context session
 * with the `--files` pins.
 * @param interactive  whether a person can be asked (trust of the project settings, onboarding)
 * @throws ConfigError when no provider is configured and nobody can be asked
 */
export async function openTaskSession(rootDir: string, flags: TaskFlags, interactive: boolean): Promise<TaskSession> {
  // A project picked from the list or the current folder did not come through resolveProjectRoot.
  await refuseHomeOverlap(rootDir);
  await checkProjectFolder(rootDir, {
    anyFolder: flags.anyFolder,
    confirm: interactive ? (question) => confirmPrompt(question, false) : undefined,
  });
  await rememberProject(rootDir);
  const settings = await loadTaskSettings(rootDir, flags, interactive);
  const provider = await resolveProvider(settings.values, interactive);
  return { settings, provider, files: createCarriedFiles(flags.files) };
}

/** An interactive surface's session as it changes: `:project`, `:provider` and `:model` move it. */
export interface LiveSession extends TaskSession {
  rootDir: string;
}

/** "openai · gpt-4o-mini": the provider entry and its model, as the surfaces show them. */
export function providerLabel(provider: ProviderConfig): string {
  return `${provider.name} · ${provider.model}`;
}

/**
 * The `:project`, `:provider`, `:model` and file handlers of an interactive surface over `live`
 * (cli/interactive/colon-commands.ts), the same for the shell, the "What next?" loop and the TUI.
 *
 * @param flags          the command line's flags; a switch keeps them, except the provider and model it replaces
 * @param options.ask     whether a person can be asked in the terminal (trust of a project's settings,
 *                        onboarding); false in the TUI, where Ink owns the terminal
 * @param options.stderr  where the warning about a project's untrusted settings goes (default stderr)
 */
export function sessionHandlers(
  live: LiveSession,
  flags: TaskFlags,
  options: { ask: boolean; stderr?: NodeJS.WritableStream },
): ColonHandlers {
  const { ask } = options;
  // The model named with `:model` (or -m) stays until the provider changes.
  let current = { ...flags };
  return {
    files: live.files,
    switchProvider: async (name) => {
      current = { ...current, provider: name, model: undefined };
      // The project's trust was settled when it was opened: untrusted keys stay out, without a second warning.
      live.settings = await loadSettings({ rootDir: live.rootDir, env: process.env, flags: settingsFlags(current) });
      live.provider = await resolveProvider(live.settings.values, ask);
      return providerLabel(live.provider);
    },
    providerChoices: async () => {
      const config = await readConfig(process.env);
      return listConfiguredProviders(config, process.env).map((row) => {
        const inUse = row.name === live.provider.name;
        const model = (inUse ? live.provider.model : row.model) || '(no model)';
        return { name: `${row.name} · ${model}${inUse ? ' (in use)' : ''}`, value: row.name };
      });
    },
    switchModel: async (id) => {
      current = { ...current, model: id };
      live.provider = { ...live.provider, model: id };
      return `${id} (${live.provider.name}, for this session; \`clawcode config\` saves it)`;
    },
    modelChoices: async () => {
      const { listProviderModels } = await import('../../llm/provider.js');
      return listProviderModels(live.provider);
    },
    switchProject: async (rootDir) => {
      await refuseHomeOverlap(rootDir);
      live.settings = await loadTaskSettings(rootDir, current, ask, options.stderr);
      live.rootDir = rootDir;
      // Files kept from the last task are paths of the old project; pins are the person's own.
      live.files.kept = [];
      await rememberProject(rootDir);
    },
    projectChoices: async (rootDir) => (await import('./projects.js')).projectChoices(rootDir),
  };
}
