import {
  listConfiguredProviders,
  providerEntry,
  readConfig,
  writeConfig,
  type ClawcodeConfig,
  type ConfiguredProvider,
  type ProviderEntry,
} from '../../config/config.js';
import { configPath } from '../../config/paths.js';
import { findRegistryEntry } from '../../config/registry.js';
import type { JsonMode } from '../../llm/types.js';
import { UsageError } from '../../utils/errors.js';
import { escapeTerminal, terminalJson } from '../../utils/terminal-text.js';
import { addProviderFromFlags, hasAddFlags, type AddFlags } from './add-flags.js';
import {
  addProvider,
  ask,
  askFields,
  defaults,
  entryFrom,
  loadForEditing,
  prompts,
  verify,
  type ConfigIo,
  type ResolvedConfigIo,
} from './onboarding.js';
import { pickModelForEntry } from './model-list.js';

/**
 * `clawcode config`: list providers with keys masked, add one (the guided questions of
 * cli/config/onboarding.ts), edit, remove, set the default, set an entry's model options.
 */

/** `clawcode config [action]`; without an action, a menu loops until "Done". */
export interface ConfigCommandOptions extends ConfigIo {
  action?: 'list' | 'add' | 'edit' | 'remove' | 'default' | 'options' | 'model';
  /** Entry name for edit/remove/default (asked when missing). */
  name?: string;
  /** Registry kind for add (e.g. "ollama"; asked when missing). */
  kind?: string;
  /** `config add` flags that answer its questions (cli/config/add-flags.ts): with any, nothing is asked. */
  add?: AddFlags;
  /** `--json` with `list`: one JSON document instead of the table. */
  json?: boolean;
}

/**
 * One line per provider for `clawcode config` (keys masked). Names, models and URLs are shown escaped, as
 * `config show` shows them: a model may have been picked from a server's list, and config.json edited by hand.
 */
export function formatProviderRow(row: ConfiguredProvider): string {
  const kind = row.preset ?? row.provider;
  const parts = [`${row.isDefault ? '*' : ' '} ${row.name}`, `(${kind})`, `model ${row.model || '(none)'}`];
  if (row.url) parts.push(row.url);
  parts.push(`key ${row.maskedKey}${row.keySource ? ` from ${row.keySource}` : ''}`);
  if (row.source === 'env') parts.push('[env only]');
  return escapeTerminal(parts.join('  '), 'line');
}

function printList(config: ClawcodeConfig, io: ResolvedConfigIo, json = false): void {
  const rows = listConfiguredProviders(config, io.env);
  if (json) {
    const providers = rows.map((r) => ({
      name: r.name,
      kind: r.preset ?? r.provider,
      model: r.model || null,
      url: r.url ?? null,
      key: r.maskedKey,
      keySource: r.keySource ?? null,
      default: r.isDefault,
      source: r.source,
    }));
    io.print(terminalJson({ config: configPath(io.env), providers }, 2));
    return;
  }
  if (rows.length === 0) {
    io.print(
      'No providers configured. Run `clawcode config add`, or set OPENAI_API_KEY (and OPENAI_BASE_URL for a local server).',
    );
    return;
  }
  io.print(`Providers (${configPath(io.env)}; * = default):`);
  for (const row of rows) io.print(formatProviderRow(row));
}

async function pickEntry(config: ClawcodeConfig, message: string, name: string | undefined): Promise<string> {
  const names = Object.keys(config.providers);
  if (name) {
    if (!providerEntry(config, name))
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
  io: ResolvedConfigIo,
  name?: string,
): Promise<ClawcodeConfig | undefined> {
  const picked = await pickEntry(config, 'Edit which provider?', name);
  const current = providerEntry(config, picked)!;
  const kind = findRegistryEntry(current.preset ?? current.provider) ?? findRegistryEntry('openai-compatible')!;
  for (;;) {
    const answers = await askFields(kind, io, current, picked);
    const entry = entryFrom(kind, answers.values, current);
    const outcome = await verify(picked, entry, config, io, answers.listed);
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
async function tuneProvider(config: ClawcodeConfig, io: ResolvedConfigIo, name?: string): Promise<ClawcodeConfig> {
  const picked = await pickEntry(config, 'Model options of which provider?', name);
  const current = providerEntry(config, picked)!;
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
  io: ResolvedConfigIo,
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

async function setDefault(config: ClawcodeConfig, io: ResolvedConfigIo, name?: string): Promise<ClawcodeConfig> {
  const picked = await pickEntry(config, 'Default provider?', name);
  const next: ClawcodeConfig = { ...config, defaultProvider: picked };
  await writeConfig(next, io.env);
  io.print(`Default provider: ${picked}.`);
  return next;
}

/**
 * `clawcode config`: with an action, do it; without, print the list and offer a menu (add, edit, pick
 * a model from the server's list, remove, set default, model options, done) until "Done". `list` works
 * without a terminal; everything else needs one.
 *
 * @returns the config as it stands at the end
 * @throws UsageError (no terminal, unknown name), ConfigError (corrupt file kept), InterruptedError (Ctrl-C)
 */
export async function runConfigCommand(options: ConfigCommandOptions = {}): Promise<ClawcodeConfig> {
  const io = defaults(options);
  if (options.action === 'list') {
    const config = await readConfig(io.env);
    printList(config, io, options.json);
    return config;
  }
  if (options.add && hasAddFlags(options.add)) {
    if (options.action !== 'add')
      throw new UsageError('--name, --model, --base-url and the like go with `config add`.');
    return addProviderFromFlags(options.kind, options.add, io);
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
    else if (action === 'model')
      config = await pickModelForEntry(
        config,
        await pickEntry(config, 'Model of which provider?', options.name),
        io,
        ask,
      );
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
      p.select<'add' | 'edit' | 'remove' | 'default' | 'options' | 'model' | 'done'>({
        message: 'What do you want to do?',
        choices: [
          { name: 'Add a provider', value: 'add' },
          ...(has
            ? [
                { name: 'Edit a provider', value: 'edit' as const },
                { name: "Pick a provider's model from the server's list", value: 'model' as const },
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
