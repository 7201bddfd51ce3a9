import {
  providerEntry,
  readConfig,
  resolveProviderConfig,
  writeConfig,
  type ClawcodeConfig,
} from '../../config/config.js';
import { configPath } from '../../config/paths.js';
import { findRegistryEntry, PROVIDER_REGISTRY, type EntryField } from '../../config/registry.js';
import { ConfigError, InterruptedError, UsageError } from '../../utils/errors.js';
import { entryFrom, freeName, type ResolvedConfigIo } from './onboarding.js';

/** The flags of `clawcode config add <kind>` that answer its questions, so it runs with no prompt. */
export interface AddFlags {
  name?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  endpoint?: string;
  deployment?: string;
  apiVersion?: string;
  /** `--default`: make it the default provider. */
  default?: boolean;
  /** `--no-check` sets false: save without the real call that proves the credentials. */
  check?: boolean;
}

/** Each entry field and the flag that sets it. */
const FIELD_FLAGS: Readonly<Record<EntryField, keyof AddFlags>> = {
  apiKey: 'apiKey',
  baseURL: 'baseUrl',
  model: 'model',
  endpoint: 'endpoint',
  deployment: 'deployment',
  apiVersion: 'apiVersion',
};

/** `--base-url` for `baseUrl`. */
function flagName(key: keyof AddFlags): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** Whether any flag that answers a question of `config add` was given (the run then asks nothing). */
export function hasAddFlags(flags: AddFlags): boolean {
  return (
    Object.values(FIELD_FLAGS).some((key) => flags[key] !== undefined) ||
    flags.name !== undefined ||
    Boolean(flags.default) ||
    flags.check === false
  );
}

/**
 * `clawcode config add <kind> [--name n] [--model m] [--base-url u] …`: add a provider from flags, with no
 * question, so scripts and dotfiles can set clawcode up. A field that is not given takes its environment
 * variable (a key found there is not stored: it keeps coming from the environment) or the kind's default.
 * Unless `check` is false, one real call proves the entry first (as the guided add does).
 *
 * @param kindId  a registry kind (`openai`, `azure`, `ollama`, …)
 * @returns the saved config
 * @throws UsageError (exit 2) for an unknown kind, a taken name, a required field with no flag and no
 *         environment variable; ProviderError/ConfigError (exit 1) when the check fails (nothing saved)
 */
export async function addProviderFromFlags(
  kindId: string | undefined,
  flags: AddFlags,
  io: ResolvedConfigIo,
): Promise<ClawcodeConfig> {
  const kinds = PROVIDER_REGISTRY.map((k) => k.id).join(', ');
  if (!kindId)
    throw new UsageError('config add with flags needs the provider kind first.', { hint: `Kinds: ${kinds}.` });
  const kind = findRegistryEntry(kindId);
  if (!kind) throw new UsageError(`Unknown provider kind "${kindId}".`, { hint: `Kinds: ${kinds}.` });
  const config = await readConfig(io.env);
  const name = (flags.name ?? freeName(config, kind.id)).trim();
  if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new UsageError(`--name "${name}": letters, digits, . _ - only.`);
  if (providerEntry(config, name))
    throw new UsageError(`A provider named "${name}" is already in ${configPath(io.env)}.`);

  const asked = new Set(kind.prompts.map((q) => q.field));
  const stray = (Object.keys(FIELD_FLAGS) as EntryField[]).find(
    (f) => !asked.has(f) && flags[FIELD_FLAGS[f]] !== undefined,
  );
  if (stray) {
    const takes = kind.prompts.map((q) => flagName(FIELD_FLAGS[q.field])).join(', ');
    throw new UsageError(`config add ${kind.id} takes no ${flagName(FIELD_FLAGS[stray])} (it takes ${takes}).`);
  }
  const answers: Partial<Record<EntryField, string>> = {};
  for (const question of kind.prompts) {
    const flag = FIELD_FLAGS[question.field];
    const given = (flags[flag] as string | undefined)?.trim();
    const fromEnv = question.env ? io.env[question.env]?.trim() : undefined;
    // A key in the environment stays there (as the guided add offers); other fields are stored.
    const value = given || (question.mask ? undefined : fromEnv || question.default);
    if (value) answers[question.field] = value;
    else if (question.required && !(question.mask && fromEnv)) {
      throw new UsageError(
        `config add ${kind.id}: ${flagName(flag)} is needed${question.env ? ` (or ${question.env})` : ''}.`,
      );
    }
  }
  const entry = entryFrom(kind, answers);
  const next: ClawcodeConfig = { ...config, providers: { ...config.providers, [name]: entry } };
  if (flags.default || !config.defaultProvider || !providerEntry(config, config.defaultProvider))
    next.defaultProvider = name;
  if (flags.check !== false) {
    const resolved = resolveProviderConfig({ config: next, env: io.env, provider: name });
    if (!resolved) throw new ConfigError(`Provider "${name}" could not be resolved`);
    try {
      await io.checkCredentials(resolved);
    } catch (error) {
      if (error instanceof InterruptedError) throw error;
      const why = error instanceof Error ? error.message : String(error);
      throw new ConfigError(`Not saved: ${name} did not pass the check: ${why}`, {
        code: 'provider_check_failed',
        hint: '--no-check saves it without the check.',
      });
    }
  }
  await writeConfig(next, io.env);
  io.print(`Saved ${name} to ${configPath(io.env)}${next.defaultProvider === name ? ' (the default)' : ''}.`);
  return next;
}
