import { rename } from 'node:fs/promises';
import {
  listConfiguredProviders,
  readConfig,
  resolveProviderConfig,
  writeConfig,
  type ClawcodeConfig,
  type ConfiguredProvider,
  type ProviderEntry,
} from '../config/config.js';
import { configPath } from '../config/paths.js';
import { findRegistryEntry, PROVIDER_REGISTRY, type EntryField, type RegistryEntry } from '../config/registry.js';
import type { JsonMode, ProviderConfig } from '../llm/types.js';
import { isPromptExit } from './interrupt.js';
import { ClawcodeError, ConfigError, InterruptedError, UsageError } from '../utils/errors.js';

/**
 * `clawcode config` and first-run onboarding: list providers with
 * keys masked, add one with guided prompts from the registry (config/registry.ts), check the
 * credentials with a real lightweight call before saving, edit, remove, set the default.
 * Prompts come from @inquirer/prompts, loaded only when a question is asked.
 */

/** I/O of the config flows, injectable for tests. */
export interface ConfigIo {
  /** Environment (CLAWCODE_HOME, provider env vars). @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Prints one line for the person. @default console.log */
  print?: (line: string) => void;
  /**
   * Proves a provider's credentials with a real call; throws a ClawcodeError with a one-line
   * message when they do not work. @default checkProviderCredentials from llm/provider.ts
   */
  checkCredentials?: (config: ProviderConfig) => Promise<void>;
  /** Whether prompts may be shown. @default process.stdin.isTTY && process.stdout.isTTY */
  interactive?: boolean;
}

/** `clawcode config [action]`; without an action, a menu loops until "Done". */
export interface ConfigCommandOptions extends ConfigIo {
  action?: 'list' | 'add' | 'edit' | 'remove' | 'default' | 'options';
  /** Entry name for edit/remove/default (asked when missing). */
  name?: string;
  /** Registry kind for add (e.g. "ollama"; asked when missing). */
  kind?: string;
}

type Prompts = typeof import('@inquirer/prompts');

async function prompts(): Promise<Prompts> {
  return import('@inquirer/prompts');
}

/** Run a prompt, turning Ctrl-C (ExitPromptError) into InterruptedError. */
async function ask<T>(question: () => Promise<T>): Promise<T> {
  try {
    return await question();
  } catch (error) {
    if (isPromptExit(error)) throw new InterruptedError('Cancelled', { cause: error });
    throw error;
  }
}

function defaults(io: ConfigIo): Required<Omit<ConfigIo, 'interactive'>> & { interactive: boolean } {
  return {
    env: io.env ?? process.env,
    print: io.print ?? ((line: string) => console.log(line)),
    checkCredentials: io.checkCredentials ?? checkCredentialsAndModel,
    interactive: io.interactive ?? Boolean(process.stdin.isTTY && process.stdout.isTTY),
  };
}

/**
 * The credential check of the config flows: one real call with the entry's key. For OpenAI and
 * OpenAI-compatible servers that call lists the models, so the entry's model is looked for in that
 * list too (Ollama lists `name:latest` for `name`); other providers check the key and the model
 * their own way (llm/*.ts `checkCredentials`).
 *
 * @throws ProviderError (key refused, server unreachable; code `provider_not_found` for another
 *         provider's unknown model or deployment), ConfigError (code `model_not_listed`) when an
 *         OpenAI-compatible server does not list the model
 */
export async function checkCredentialsAndModel(config: ProviderConfig): Promise<void> {
  if (config.provider !== 'openai') {
    const { checkProviderCredentials } = await import('../llm/provider.js');
    await checkProviderCredentials(config);
    return;
  }
  const { listModels } = await import('../llm/openai.js');
  const ids = await listModels(config);
  const model = config.model;
  // An empty list proves the key but says nothing about the model (some servers list none).
  if (!model || ids.length === 0 || ids.includes(model) || ids.includes(`${model}:latest`)) return;
  const shown = ids.slice(0, 8).join(', ') + (ids.length > 8 ? `, … (${ids.length} in all)` : '');
  throw new ConfigError(`The key works, but the server lists no model "${model}". It lists: ${shown}`, {
    code: 'model_not_listed',
  });
}

/** One line per provider for `clawcode config` (keys masked). */
export function formatProviderRow(row: ConfiguredProvider): string {
  const kind = row.preset ?? row.provider;
  const parts = [`${row.isDefault ? '*' : ' '} ${row.name}`, `(${kind})`, `model ${row.model || '(none)'}`];
  if (row.url) parts.push(row.url);
  parts.push(`key ${row.maskedKey}${row.keySource ? ` from ${row.keySource}` : ''}`);
  if (row.source === 'env') parts.push('[env only]');
  return parts.join('  ');
}

function printList(config: ClawcodeConfig, io: ReturnType<typeof defaults>): void {
  const rows = listConfiguredProviders(config, io.env);
  if (rows.length === 0) {
    io.print(
      'No providers configured. Run `clawcode config add`, or set OPENAI_API_KEY (and OPENAI_BASE_URL for a local server).',
    );
    return;
  }
  io.print(`Providers (${configPath(io.env)}; * = default):`);
  for (const row of rows) io.print(formatProviderRow(row));
}

/** A fresh entry name: the kind id, or id-2, id-3... when taken. */
function freeName(config: ClawcodeConfig, base: string): string {
  if (!config.providers[base]) return base;
  for (let n = 2; ; n++) if (!config.providers[`${base}-${n}`]) return `${base}-${n}`;
}

/** Ask the registry's questions for a kind; `current` pre-fills an edit. */
async function askFields(
  kind: RegistryEntry,
  io: ReturnType<typeof defaults>,
  current: ProviderEntry | undefined,
): Promise<Partial<Record<EntryField, string>>> {
  const p = await prompts();
  const answers: Partial<Record<EntryField, string>> = {};
  for (const question of kind.prompts) {
    const existing = current?.[question.field];
    const fromEnv = question.env ? io.env[question.env]?.trim() : undefined;
    if (question.mask) {
      if (existing) {
        const value = await ask(() =>
          p.password({ message: `${question.message} (empty keeps the current one)`, mask: '*' }),
        );
        answers[question.field] = value.trim() || existing;
        continue;
      }
      if (fromEnv) {
        const useEnv = await ask(() =>
          p.confirm({ message: `Use the key from ${question.env} (not stored in config.json)?`, default: true }),
        );
        if (useEnv) continue;
      }
      const value = await ask(() =>
        p.password({
          message: question.message,
          mask: '*',
          validate: (v: string) => (question.required && !v.trim() ? 'Required' : true),
        }),
      );
      if (value.trim()) answers[question.field] = value.trim();
      continue;
    }
    const value = await ask(() =>
      p.input({
        message: question.message,
        default: existing ?? fromEnv ?? question.default,
        validate: (v: string) => (question.required && !v.trim() ? 'Required' : true),
      }),
    );
    if (value.trim()) answers[question.field] = value.trim();
  }
  return answers;
}

function entryFrom(
  kind: RegistryEntry,
  answers: Partial<Record<EntryField, string>>,
  previous?: ProviderEntry,
): ProviderEntry {
  const entry: ProviderEntry = { ...previous, provider: kind.provider };
  if (kind.preset) entry.preset = kind.preset;
  for (const field of ['apiKey', 'baseURL', 'model', 'endpoint', 'deployment', 'apiVersion'] as const) {
    const value = answers[field];
    if (value) entry[field] = value;
    else if (kind.prompts.some((q) => q.field === field)) delete entry[field];
  }
  return entry;
}

/**
 * Check an entry with a real call; on failure offer to re-enter, save anyway or discard.
 *
 * @returns 'ok' | 'retry' | 'save' | 'discard'
 */
async function verify(
  name: string,
  entry: ProviderEntry,
  config: ClawcodeConfig,
  io: ReturnType<typeof defaults>,
): Promise<'ok' | 'retry' | 'save' | 'discard'> {
  const trial: ClawcodeConfig = { ...config, providers: { ...config.providers, [name]: entry } };
  try {
    const resolved = resolveProviderConfig({ config: trial, env: io.env, provider: name });
    if (!resolved) throw new ConfigError(`Provider "${name}" could not be resolved`);
    io.print(
      `Checking ${name} with a real call${(resolved.baseURL ?? resolved.endpoint) ? ` to ${resolved.endpoint ?? resolved.baseURL}` : ''}...`,
    );
    await io.checkCredentials(resolved);
    io.print('Credentials work.');
    return 'ok';
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    const message = error instanceof ClawcodeError ? error.message : String((error as Error)?.message ?? error);
    io.print(`Check failed: ${message}`);
    const p = await prompts();
    return ask(() =>
      p.select<'retry' | 'save' | 'discard'>({
        message: 'What now?',
        choices: [
          { name: 'Re-enter the settings', value: 'retry' },
          { name: 'Save anyway', value: 'save' },
          { name: 'Discard', value: 'discard' },
        ],
      }),
    );
  }
}

/**
 * Guided "add a provider": pick a kind (unless given), name it, answer its questions, check the
 * credentials, offer to make it the default, save.
 *
 * @returns the saved config, or undefined when discarded
 * @throws InterruptedError on Ctrl-C; ConfigError when the file cannot be written
 */
export async function addProvider(
  config: ClawcodeConfig,
  options: ConfigIo & { kind?: string } = {},
): Promise<ClawcodeConfig | undefined> {
  const io = defaults(options);
  const p = await prompts();
  const kindId =
    options.kind ??
    (await ask(() =>
      p.select<string>({
        message: 'Which provider?',
        pageSize: PROVIDER_REGISTRY.length,
        choices: PROVIDER_REGISTRY.map((k) => ({ name: k.label, value: k.id })),
      }),
    ));
  const kind = findRegistryEntry(kindId);
  if (!kind) throw new UsageError(`Unknown provider kind "${kindId}"`);
  const name = await ask(() =>
    p.input({
      message: 'Name for this provider',
      default: freeName(config, kind.id),
      validate: (v: string) =>
        !/^[A-Za-z0-9._-]+$/.test(v.trim())
          ? 'Letters, digits, . _ - only'
          : config.providers[v.trim()]
            ? 'That name is taken'
            : true,
    }),
  );
  for (;;) {
    const entry = entryFrom(kind, await askFields(kind, io, undefined));
    const outcome = await verify(name.trim(), entry, config, io);
    if (outcome === 'retry') continue;
    if (outcome === 'discard') return undefined;
    const next: ClawcodeConfig = { ...config, providers: { ...config.providers, [name.trim()]: entry } };
    const makeDefault =
      !config.defaultProvider || !config.providers[config.defaultProvider]
        ? true
        : await ask(() => p.confirm({ message: `Make ${name.trim()} the default provider?`, default: false }));
    if (makeDefault) next.defaultProvider = name.trim();
    await writeConfig(next, io.env);
    io.print(`Saved ${name.trim()} to ${configPath(io.env)}.`);
    return next;
  }
}

async function pickEntry(config: ClawcodeConfig, message: string, name: string | undefined): Promise<string> {
  const names = Object.keys(config.providers);
  if (name) {
    if (!config.providers[name])
      throw new UsageError(`No provider named "${name}" in config.json`, {
        hint: `Known: ${names.join(', ') || 'none'}.`,
      });
    return name;
  }
  if (names.length === 0)
    throw new UsageError('No providers in config.json yet', { hint: 'Run `clawcode config add`.' });
  const p = await prompts();
  return ask(() => p.select<string>({ message, choices: names.map((n) => ({ name: n, value: n })) }));
}

async function editProvider(
  config: ClawcodeConfig,
  io: ReturnType<typeof defaults>,
  name?: string,
): Promise<ClawcodeConfig | undefined> {
  const picked = await pickEntry(config, 'Edit which provider?', name);
  const current = config.providers[picked]!;
  const kind = findRegistryEntry(current.preset ?? current.provider) ?? findRegistryEntry('openai-compatible')!;
  for (;;) {
    const entry = entryFrom(kind, await askFields(kind, io, current), current);
    const outcome = await verify(picked, entry, config, io);
    if (outcome === 'retry') continue;
    if (outcome === 'discard') return undefined;
    const next: ClawcodeConfig = { ...config, providers: { ...config.providers, [picked]: entry } };
    await writeConfig(next, io.env);
    io.print(`Saved ${picked}.`);
    return next;
  }
}

/** Parse an optional number answer: '' → undefined; otherwise the number, or NaN when it is not one. */
function optionalNumber(answer: string): number | undefined {
  const t = answer.trim();
  return t === '' ? undefined : Number(t);
}

/**
 * Model options of one entry (no credentials involved, so no check call): temperature (0–2), how
 * structured output is asked for (json_schema, json_object, prompt-only, or the provider's default)
 * and the output token limit. An empty answer removes the option, so the provider's default applies.
 */
async function tuneProvider(
  config: ClawcodeConfig,
  io: ReturnType<typeof defaults>,
  name?: string,
): Promise<ClawcodeConfig> {
  const picked = await pickEntry(config, 'Model options of which provider?', name);
  const current = config.providers[picked]!;
  const kind = findRegistryEntry(current.preset ?? current.provider);
  const p = await prompts();
  const temperature = optionalNumber(
    await ask(() =>
      p.input({
        message: 'Temperature, 0–2 (empty: the provider default)',
        default: current.temperature === undefined ? '' : String(current.temperature),
        validate: (v) => {
          const n = optionalNumber(v);
          return n === undefined || (n >= 0 && n <= 2) || 'A number from 0 to 2, or empty';
        },
      }),
    ),
  );
  // groq and azure choose per model or API version (llm/groq.ts, llm/azure.ts); presets name theirs.
  const defaultMode =
    kind?.jsonMode ??
    (current.provider === 'openai' || current.provider === 'gemini' ? 'json_schema' : 'per model or API version');
  const mode = await ask(() =>
    p.select<JsonMode | 'default'>({
      message: 'How to ask for the JSON plan',
      default: current.jsonMode ?? 'default',
      choices: [
        { name: `Provider default (${defaultMode})`, value: 'default' },
        { name: 'json_schema: the plan schema, enforced by the server', value: 'json_schema' },
        { name: 'json_object: JSON mode, schema in the prompt', value: 'json_object' },
        { name: 'prompt: instructions only (servers without JSON support)', value: 'prompt' },
      ],
    }),
  );
  const maxOutputTokens = optionalNumber(
    await ask(() =>
      p.input({
        message: 'Max output tokens (empty: the provider default)',
        default: current.maxOutputTokens === undefined ? '' : String(current.maxOutputTokens),
        validate: (v) => {
          const n = optionalNumber(v);
          return n === undefined || (Number.isInteger(n) && n > 0) || 'A whole number above 0, or empty';
        },
      }),
    ),
  );
  const entry: ProviderEntry = { ...current };
  delete entry.temperature;
  delete entry.jsonMode;
  delete entry.maxOutputTokens;
  if (temperature !== undefined) entry.temperature = temperature;
  if (mode !== 'default') entry.jsonMode = mode;
  if (maxOutputTokens !== undefined) entry.maxOutputTokens = maxOutputTokens;
  const next: ClawcodeConfig = { ...config, providers: { ...config.providers, [picked]: entry } };
  await writeConfig(next, io.env);
  io.print(`Saved model options of ${picked}.`);
  return next;
}

async function removeProvider(
  config: ClawcodeConfig,
  io: ReturnType<typeof defaults>,
  name?: string,
): Promise<ClawcodeConfig | undefined> {
  const picked = await pickEntry(config, 'Remove which provider?', name);
  const p = await prompts();
  if (!(await ask(() => p.confirm({ message: `Remove ${picked}?`, default: false })))) return undefined;
  const providers = { ...config.providers };
  delete providers[picked];
  const next: ClawcodeConfig = { ...config, providers };
  if (next.defaultProvider === picked) {
    const rest = Object.keys(providers);
    if (rest.length === 1) next.defaultProvider = rest[0];
    else delete next.defaultProvider;
  }
  await writeConfig(next, io.env);
  io.print(`Removed ${picked}.`);
  return next;
}

async function setDefault(
  config: ClawcodeConfig,
  io: ReturnType<typeof defaults>,
  name?: string,
): Promise<ClawcodeConfig> {
  const picked = await pickEntry(config, 'Default provider?', name);
  const next: ClawcodeConfig = { ...config, defaultProvider: picked };
  await writeConfig(next, io.env);
  io.print(`Default provider: ${picked}.`);
  return next;
}

/**
 * Read config.json; when it is corrupt and prompts are allowed, offer to move it aside
 * (`config.json.corrupt-<ms>`) and start empty. Nothing is overwritten without that answer.
 */
async function loadForEditing(io: ReturnType<typeof defaults>): Promise<ClawcodeConfig> {
  try {
    return await readConfig(io.env);
  } catch (error) {
    if (
      !(error instanceof ConfigError) ||
      !io.interactive ||
      !['config_corrupt', 'config_invalid'].includes(error.code)
    )
      throw error;
    io.print(error.message);
    const p = await prompts();
    const file = configPath(io.env);
    const aside = `${file}.corrupt-${Date.now()}`;
    if (
      !(await ask(() => p.confirm({ message: 'Move the broken file aside and start a new config?', default: false })))
    )
      throw error;
    await rename(file, aside);
    io.print(`Moved it to ${aside}.`);
    return { providers: {} };
  }
}

/**
 * `clawcode config`: with an action, do it; without, print the list and offer a menu (add, edit,
 * remove, set default, model options, done) until "Done". `list` works without a terminal; everything else needs one.
 *
 * @returns the config as it stands at the end
 * @throws UsageError (no terminal, unknown name), ConfigError (corrupt file kept), InterruptedError (Ctrl-C)
 */
export async function runConfigCommand(options: ConfigCommandOptions = {}): Promise<ClawcodeConfig> {
  const io = defaults(options);
  if (options.action === 'list') {
    const config = await readConfig(io.env);
    printList(config, io);
    return config;
  }
  // `default <name>` asks nothing, so it works in scripts; every other action asks questions.
  if (!io.interactive && !(options.action === 'default' && options.name)) {
    throw new UsageError(
      `\`clawcode config${options.action ? ` ${options.action}` : ''}\` needs an interactive terminal`,
      {
        hint:
          'Use `clawcode config list`, `clawcode config default <name>`, or configure with env vars ' +
          '(OPENAI_API_KEY, OPENAI_BASE_URL, GROQ_API_KEY, GEMINI_API_KEY, AZURE_OPENAI_*).',
      },
    );
  }
  let config = await loadForEditing(io);
  const once = async (action: NonNullable<ConfigCommandOptions['action']>): Promise<void> => {
    if (action === 'add')
      config = (await addProvider(config, { ...io, ...(options.kind ? { kind: options.kind } : {}) })) ?? config;
    else if (action === 'edit') config = (await editProvider(config, io, options.name)) ?? config;
    else if (action === 'remove') config = (await removeProvider(config, io, options.name)) ?? config;
    else if (action === 'default') config = await setDefault(config, io, options.name);
    else if (action === 'options') config = await tuneProvider(config, io, options.name);
    else printList(config, io);
  };
  if (options.action) {
    await once(options.action);
    return config;
  }
  const p = await prompts();
  for (;;) {
    printList(config, io);
    const has = Object.keys(config.providers).length > 0;
    const choice = await ask(() =>
      p.select<'add' | 'edit' | 'remove' | 'default' | 'options' | 'done'>({
        message: 'What do you want to do?',
        choices: [
          { name: 'Add a provider', value: 'add' },
          ...(has
            ? [
                { name: 'Edit a provider', value: 'edit' as const },
                { name: 'Remove a provider', value: 'remove' as const },
                { name: 'Set the default', value: 'default' as const },
                { name: 'Model options (temperature, JSON mode, output limit)', value: 'options' as const },
              ]
            : []),
          { name: 'Done', value: 'done' },
        ],
      }),
    );
    if (choice === 'done') return config;
    await once(choice);
  }
}

/**
 * First-run onboarding: a welcome, then "pick a provider or skip", the guided add, and
 * "add another?". Call it only in a TTY when no provider resolves.
 *
 * @returns the saved config, or undefined when the person skipped without adding one
 * @throws InterruptedError on Ctrl-C; ConfigError (corrupt config kept)
 */
export async function runOnboarding(options: ConfigIo = {}): Promise<ClawcodeConfig | undefined> {
  const io = defaults({ ...options, interactive: true });
  let config = await loadForEditing(io);
  const p = await prompts();
  io.print('Welcome to clawcode. It needs one model provider to plan edits.');
  io.print('Keys are stored in ' + configPath(io.env) + ' (mode 0600); env vars such as OPENAI_API_KEY work too.');
  let added = false;
  for (;;) {
    const kind = await ask(() =>
      p.select<string>({
        message: added ? 'Which provider?' : 'Pick a provider to set up',
        pageSize: PROVIDER_REGISTRY.length + 1,
        choices: [
          ...PROVIDER_REGISTRY.map((k) => ({ name: k.label, value: k.id as string })),
          { name: 'Skip for now', value: 'skip' },
        ],
      }),
    );
    if (kind === 'skip') break;
    const next = await addProvider(config, { ...io, kind });
    if (next) {
      config = next;
      added = true;
    }
    if (!(await ask(() => p.confirm({ message: 'Add another provider?', default: false })))) break;
  }
  return added ? config : undefined;
}
