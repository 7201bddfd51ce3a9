import {
  providerEntry,
  resolveProviderConfig,
  writeConfig,
  type ClawcodeConfig,
  type ProviderEntry,
} from '../../config/config.js';
import type { RegistryEntry } from '../../config/registry.js';
import type { ProviderConfig } from '../../llm/types.js';
import { ConfigError, UsageError } from '../../utils/errors.js';

/**
 * The model list of `clawcode config` and onboarding: for OpenAI, OpenAI-compatible servers and Groq, the
 * one `GET …/models` call that proves the key also lists the models, and that list is offered for the
 * model question (type to narrow it; a name the server does not list can still be used).
 */

type Prompts = typeof import('@inquirer/prompts');

/** Lists a provider's models, or resolves undefined when it has no list (llm/provider.ts `listProviderModels`). */
export type ModelLister = (config: ProviderConfig) => Promise<string[] | undefined>;

/** The default lister: the provider's own list call. */
export async function listModelsOf(config: ProviderConfig): Promise<string[] | undefined> {
  const { listProviderModels } = await import('../../llm/provider.js');
  return listProviderModels(config);
}

/**
 * Check that an OpenAI-compatible server lists `model` (Ollama lists `name:latest` for `name`). An empty
 * list proves the key but says nothing about the model (some servers list none).
 * @throws ConfigError (code `model_not_listed`) naming the first models it does list
 */
export function checkModelListed(model: string | undefined, ids: readonly string[]): void {
  if (!model || ids.length === 0 || ids.includes(model) || ids.includes(`${model}:latest`)) return;
  const shown = ids.slice(0, 8).join(', ') + (ids.length > 8 ? `, … (${ids.length} in all)` : '');
  throw new ConfigError(`The key works, but the server lists no model "${model}". It lists: ${shown}`, {
    code: 'model_not_listed',
  });
}

/** What the list call said about the answers so far: the models, or why it failed (the key, the server). */
export type ListOutcome = { ids: string[] } | { error: unknown };

/**
 * The models the entry `name` being written would see, asked for with the answers so far (key, URL). This is the
 * credential check's call made early: its outcome stands for the check (cli/config/onboarding.ts `verify`).
 * @returns the ids or the call's error, or undefined when the provider has no list
 */
export async function listedModels(
  name: string,
  kind: RegistryEntry,
  entry: ProviderEntry,
  env: NodeJS.ProcessEnv,
  lister: ModelLister,
): Promise<ListOutcome | undefined> {
  if (kind.provider !== 'openai' && kind.provider !== 'groq') return undefined;
  try {
    const resolved = resolveProviderConfig({ config: { providers: { [name]: entry } }, env, provider: name });
    const ids = resolved ? await lister(resolved) : undefined;
    return ids ? { ids } : undefined;
  } catch (error) {
    return { error };
  }
}

/**
 * Ask for the model from the server's list: `preferred` first when listed, then the rest in the
 * server's order; typing narrows the list, and a typed name that is not listed can be used as it is.
 * @returns the model id
 */
export async function askModelFromList(
  p: Prompts,
  message: string,
  ids: readonly string[],
  preferred: string | undefined,
): Promise<string> {
  const ordered = preferred && ids.includes(preferred) ? [preferred, ...ids.filter((id) => id !== preferred)] : ids;
  return p.search<string>({
    message: `${message} (type to narrow the list)`,
    pageSize: 10,
    source: (term) => {
      const typed = (term ?? '').trim();
      const matches = ordered.filter((id) => id.toLowerCase().includes(typed.toLowerCase()));
      const choices = matches.map((id) => ({ name: id, value: id }));
      if (typed && !ordered.includes(typed))
        choices.push({ name: `${typed} (not listed; use it anyway)`, value: typed });
      return choices;
    },
  });
}

/**
 * `clawcode config` → "Pick the model": the entry's models from the server, one picked, saved.
 *
 * @returns the saved config
 * @throws UsageError when the entry's provider has no model list; ProviderError when the list call fails
 */
export async function pickModelForEntry(
  config: ClawcodeConfig,
  name: string,
  io: { env: NodeJS.ProcessEnv; print: (line: string) => void; listModels: ModelLister },
  ask: <T>(question: () => Promise<T>) => Promise<T>,
): Promise<ClawcodeConfig> {
  const entry = providerEntry(config, name)!;
  const resolved = resolveProviderConfig({ config, env: io.env, provider: name });
  const ids = resolved ? await io.listModels(resolved) : undefined;
  if (!ids || ids.length === 0)
    throw new UsageError(`${name} has no model list to offer`, { hint: 'Edit the provider to type the model.' });
  const p = await import('@inquirer/prompts');
  const model = await ask(() => askModelFromList(p, `Model of ${name}`, ids, entry.model));
  const next: ClawcodeConfig = { ...config, providers: { ...config.providers, [name]: { ...entry, model } } };
  await writeConfig(next, io.env);
  io.print(`Saved ${name}: model ${model}.`);
  return next;
}
