import { chmod, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { shownUrl } from '../llm/credential-text.js';
import type { ProviderConfig, ProviderId } from '../llm/types.js';
import { writeFileDurable } from '../utils/journal/durable-write.js';
import { ConfigError, UsageError } from '../utils/errors.js';
import { clawcodeHome, configPath } from './paths.js';
import type { ModelPrice } from './prices.js';
import { defaultModelFor, findRegistryEntry, PROVIDER_REGISTRY } from './registry.js';
import { envConfigures, fromEnv, nonEmpty } from './config-env.js';
import { makeDirs } from '../utils/make-dirs.js';

/**
 * The user config, `$CLAWCODE_HOME/config.json` (default `~/.clawcode/config.json`), and provider
 * resolution from it and the environment. The file holds keys, so the
 * folder is 0700 and the file 0600 — re-applied after every write, because `mode` only applies
 * when a file is created (Node.js `fs` docs).
 */

/** One configured provider, as stored. Fields left out are filled from env vars and defaults. */
export type ProviderEntry = Pick<ProviderConfig, 'provider'> &
  Partial<
    Pick<
      ProviderConfig,
      | 'preset'
      | 'model'
      | 'apiKey'
      | 'baseURL'
      | 'endpoint'
      | 'deployment'
      | 'apiVersion'
      | 'jsonMode'
      | 'temperature'
      | 'maxOutputTokens'
    >
  >;

/** The whole config.json. */
export interface ClawcodeConfig {
  /** Name of the entry used when no --provider is given. */
  defaultProvider?: string;
  /** Entries by name (e.g. "openai", "ollama", "work-azure"). */
  providers: Record<string, ProviderEntry>;
  /** Price overrides in USD per 1M tokens, by model id (config/prices.ts). */
  prices?: Record<string, ModelPrice>;
  /** User-layer settings, read and validated by config/settings.ts; kept as is here. */
  settings?: Record<string, unknown>;
}

/** An empty config. */
function emptyConfig(): ClawcodeConfig {
  return { providers: {} };
}

/** Line and column (1-based) of a character offset. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/**
 * Parse config.json text.
 *
 * @param file  path named in errors
 * @throws ConfigError naming the file and the line/column of a JSON syntax error, or the field
 *         that has the wrong shape
 */
async function parseConfig(text: string, file: string): Promise<ClawcodeConfig> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message);
    const where = position?.[1]
      ? (({ line, column }) => ` at line ${line}, column ${column}`)(lineColumn(text, Number(position[1])))
      : '';
    const reason = message.replace(/ in JSON at position \d+.*$/, '').replace(/\s*\(line \d+ column \d+\)$/, '');
    throw new ConfigError(`${file} is not valid JSON${where}: ${reason}`, {
      code: 'config_corrupt',
      hint: 'Fix the file by hand, or move it away and run `clawcode config`. It is left untouched.',
      cause: error,
    });
  }
  // The schema (and zod with it) loads only when there is a file to check: `clawcode context` without a
  // config file resolves its provider from the environment without loading it.
  const { configSchema } = await import('./config-schema.js');
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.join('.') || '(top level)';
    throw new ConfigError(`${file}: ${path}: ${issue?.message ?? 'invalid'}`, {
      code: 'config_invalid',
      hint: 'Fix the file by hand, or run `clawcode config`.',
    });
  }
  return parsed.data as ClawcodeConfig;
}

/**
 * Permission bits of `$CLAWCODE_HOME/config.json` when other users may read or write it (any of
 * 0o077 set), else `null` (also when the file is missing or on a platform without such bits).
 * config.json can hold API keys, so the CLI warns about such a mode.
 */
export async function configModeOpenToOthers(env: NodeJS.ProcessEnv = process.env): Promise<number | null> {
  if (process.platform === 'win32') return null;
  const info = await stat(configPath(env)).catch(() => null);
  if (info === null || !info.isFile()) return null;
  const mode = info.mode & 0o777;
  return (mode & 0o077) === 0 ? null : mode;
}

/**
 * Read `$CLAWCODE_HOME/config.json`. A missing file is an empty config.
 *
 * @throws ConfigError when the file is corrupt or has the wrong shape (never rewritten here)
 */
export async function readConfig(env: NodeJS.ProcessEnv = process.env): Promise<ClawcodeConfig> {
  const file = configPath(env);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyConfig();
    throw new ConfigError(`Cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  return await parseConfig(text, file);
}

/**
 * Write the config atomically (utils/journal/durable-write.ts: temp file in the same folder, every byte, fsync, rename),
 * then force the file to 0600 and the folder to 0700.
 *
 * @throws ConfigError when the folder or file cannot be written
 */
export async function writeConfig(config: ClawcodeConfig, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const file = configPath(env);
  const home = clawcodeHome(env);
  try {
    await makeDirs(dirname(file), 0o700);
    await chmod(home, 0o700);
    await writeFileDurable(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
    await chmod(file, 0o600);
  } catch (error) {
    throw new ConfigError(`Cannot write ${file}: ${(error as Error).message}`, { cause: error });
  }
}

/** Show a key without revealing it: `sk-…abcd`; short keys become `****`. */
export function maskKey(key: string | undefined): string {
  if (!key) return '(none)';
  if (key.length <= 12) return '****';
  return `${key.slice(0, 3)}…${key.slice(-4)}`;
}

/** The backends, in the order env-only detection tries them. */
const ENV_PROVIDER_ORDER: readonly ProviderId[] = ['openai', 'azure', 'groq', 'gemini', 'anthropic'];

/**
 * Turn a config entry (or none, for env-only) into a ProviderConfig. Env vars fill only fields the
 * entry leaves out. An entry with its own base URL (a preset or another server) never receives
 * OPENAI_API_KEY, so the OpenAI key is not sent to a third party.
 */
function buildProviderConfig(
  name: string,
  entry: ProviderEntry,
  env: NodeJS.ProcessEnv,
  model: string | undefined,
): ProviderConfig {
  const local = entry.preset !== undefined || (entry.provider === 'openai' && entry.baseURL !== undefined);
  const registry = findRegistryEntry(entry.preset ?? entry.provider);
  // A hosted preset (OpenRouter, DeepSeek, Mistral) reads only its own key variable.
  const presetKey = entry.preset && registry?.keyEnv ? nonEmpty(env[registry.keyEnv]) : undefined;
  const envPart = presetKey
    ? { apiKey: presetKey, keySource: registry?.keyEnv }
    : local
      ? {}
      : fromEnv(entry.provider, env);
  const apiKey = entry.apiKey ?? envPart.apiKey;
  const keySource = entry.apiKey ? `config.json providers.${name}.apiKey` : envPart.keySource;
  const deployment = entry.deployment ?? envPart.deployment;
  const resolvedModel =
    model ??
    entry.model ??
    (entry.provider === 'azure' ? deployment : undefined) ??
    defaultModelFor(entry.provider, entry.preset) ??
    '';
  const config: ProviderConfig = {
    provider: entry.provider,
    name,
    model: resolvedModel,
    ...(apiKey ? { apiKey } : {}),
    ...(keySource ? { keySource } : {}),
  };
  const baseURL = entry.baseURL ?? envPart.baseURL ?? registry?.defaultBaseURL;
  if (baseURL) config.baseURL = baseURL;
  if (entry.preset) config.preset = entry.preset;
  const endpoint = entry.endpoint ?? envPart.endpoint;
  if (endpoint) config.endpoint = endpoint;
  if (entry.provider === 'azure') {
    // For Azure, --model names the deployment.
    const dep = model ?? deployment ?? entry.model;
    if (dep) config.deployment = dep;
  }
  const apiVersion = entry.apiVersion ?? envPart.apiVersion;
  if (apiVersion) config.apiVersion = apiVersion;
  const jsonMode = entry.jsonMode ?? registry?.jsonMode;
  if (jsonMode) config.jsonMode = jsonMode;
  if (entry.temperature !== undefined) config.temperature = entry.temperature;
  if (entry.maxOutputTokens !== undefined) config.maxOutputTokens = entry.maxOutputTokens;
  return config;
}

/** Options of `resolveProviderConfig`. */
export interface ResolveOptions {
  config: ClawcodeConfig;
  env: NodeJS.ProcessEnv;
  /** `--provider`: a config entry name, a backend id (openai, azure, groq, gemini) or a preset name. */
  provider?: string;
  /** `--model`: overrides the entry's model (for Azure, the deployment). */
  model?: string;
}

/**
 * Choose and complete the provider for a run. Precedence: `provider` (entry name, then backend or
 * preset id) > `config.defaultProvider` > the only configured entry > env vars alone
 * (OPENAI_API_KEY/OPENAI_BASE_URL → openai, AZURE_OPENAI_API_KEY+AZURE_OPENAI_ENDPOINT → azure,
 * GROQ_API_KEY → groq, GEMINI_API_KEY/GOOGLE_API_KEY → gemini, tried in that order).
 * Env vars also fill fields a config entry leaves out.
 *
 * @returns the resolved config, or undefined when nothing is configured (the caller onboards or errors)
 * @throws UsageError for an unknown `provider` name; ConfigError when the default names a missing
 *         entry, several entries exist and none is the default, or the named backend has no credentials
 */
export function resolveProviderConfig(options: ResolveOptions): ProviderConfig | undefined {
  const { config, env, model } = options;
  const entries = config.providers ?? {};
  const names = Object.keys(entries);
  const wanted = options.provider?.trim();
  if (wanted) {
    const entry = providerEntry(config, wanted);
    if (entry) return buildProviderConfig(wanted, entry, env, model);
    const kind = findRegistryEntry(wanted);
    if (!kind || kind.id === 'openai-compatible') {
      const known = [...names, ...PROVIDER_REGISTRY.map((e) => e.id).filter((id) => id !== 'openai-compatible')];
      throw new UsageError(`Unknown provider "${wanted}"`, {
        code: 'provider_unknown',
        hint: `Use one of: ${[...new Set(known)].join(', ')}.`,
      });
    }
    const matching = names.filter(
      (name) => entries[name]?.provider === kind.provider && entries[name]?.preset === kind.preset,
    );
    if (matching.length >= 1) {
      const name = matching.includes(config.defaultProvider ?? '') ? config.defaultProvider! : matching[0]!;
      return buildProviderConfig(name, entries[name]!, env, model);
    }
    const presetReady =
      kind.preset !== undefined && (kind.keyEnv === undefined || nonEmpty(env[kind.keyEnv]) !== undefined);
    if (presetReady || (!kind.preset && envConfigures(kind.provider, env))) {
      return buildProviderConfig(
        wanted,
        { provider: kind.provider, ...(kind.preset ? { preset: kind.preset } : {}) },
        env,
        model,
      );
    }
    throw new ConfigError(`Provider "${wanted}" is not configured`, {
      code: 'provider_not_configured',
      hint: `Set ${kind.keyEnv ?? 'its env vars'}, or run \`clawcode config\`.`,
    });
  }
  if (config.defaultProvider) {
    const entry = providerEntry(config, config.defaultProvider);
    if (!entry) {
      throw new ConfigError(`The default provider "${config.defaultProvider}" has no entry in config.json`, {
        code: 'provider_default_missing',
        hint: 'Run `clawcode config` to set another default.',
      });
    }
    return buildProviderConfig(config.defaultProvider, entry, env, model);
  }
  if (names.length === 1) return buildProviderConfig(names[0]!, entries[names[0]!]!, env, model);
  if (names.length > 1) {
    throw new ConfigError(`Several providers are configured (${names.join(', ')}) and none is the default`, {
      code: 'provider_ambiguous',
      hint: 'Pass --provider <name>, or set a default with `clawcode config`.',
    });
  }
  const fromEnvOnly = ENV_PROVIDER_ORDER.find((id) => envConfigures(id, env));
  return fromEnvOnly ? buildProviderConfig(fromEnvOnly, { provider: fromEnvOnly }, env, model) : undefined;
}

/**
 * The config.json entry named `name`: own entries only, so a name such as `constructor` or `__proto__` (a flag,
 * a default, a typed answer) finds nothing instead of Object's members (`--provider constructor` ended in an
 * internal error).
 */
export function providerEntry(config: Pick<ClawcodeConfig, 'providers'>, name: string): ProviderEntry | undefined {
  const entries = config.providers ?? {};
  return Object.hasOwn(entries, name) ? entries[name] : undefined;
}

/** One row of `clawcode config` list output: nothing secret, the key masked. */
export interface ConfiguredProvider {
  name: string;
  provider: ProviderId;
  preset?: ProviderConfig['preset'];
  model: string;
  /** Base URL or Azure endpoint, when set. */
  url?: string;
  maskedKey: string;
  keySource?: string;
  isDefault: boolean;
  /** `config` for entries of config.json, `env` for a backend configured by env vars alone. */
  source: 'config' | 'env';
}

/**
 * Every usable provider: the config entries (env vars filling gaps), then backends configured by
 * env vars alone that have no entry.
 */
export function listConfiguredProviders(
  config: ClawcodeConfig,
  env: NodeJS.ProcessEnv = process.env,
): ConfiguredProvider[] {
  const rows: ConfiguredProvider[] = [];
  const entries = config.providers ?? {};
  const row = (name: string, entry: ProviderEntry, source: 'config' | 'env'): ConfiguredProvider => {
    const resolved = buildProviderConfig(name, entry, env, undefined);
    return {
      name,
      provider: entry.provider,
      ...(entry.preset ? { preset: entry.preset } : {}),
      model: resolved.model,
      ...((resolved.endpoint ?? resolved.baseURL) ? { url: shownUrl((resolved.endpoint ?? resolved.baseURL)!) } : {}),
      maskedKey: maskKey(resolved.apiKey),
      ...(resolved.keySource ? { keySource: resolved.keySource } : {}),
      isDefault: config.defaultProvider === name,
      source,
    };
  };
  for (const [name, entry] of Object.entries(entries)) rows.push(row(name, entry, 'config'));
  for (const id of ENV_PROVIDER_ORDER) {
    if (envConfigures(id, env) && !Object.values(entries).some((e) => e.provider === id && !e.preset))
      rows.push(row(id, { provider: id }, 'env'));
  }
  return rows;
}

/**
 * The provider a run would use, without asking anyone or failing: the settings' provider and model,
 * then config entries and environment, as `resolveProviderConfig` finds them. For previews
 * (`clawcode context`, `--print-prompt`), which say which budget the run would use.
 *
 * @returns the provider, or undefined when none is configured (or the config cannot be read)
 */
export async function providerIfConfigured(
  settings: { provider?: string; model?: string },
  env: NodeJS.ProcessEnv = process.env,
): Promise<ProviderConfig | undefined> {
  try {
    return resolveProviderConfig({
      config: await readConfig(env),
      env,
      provider: settings.provider,
      model: settings.model,
    });
  } catch {
    return undefined;
  }
}
