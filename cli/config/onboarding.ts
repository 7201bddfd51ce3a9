import { rename } from 'node:fs/promises';
import {
  providerEntry,
  readConfig,
  resolveProviderConfig,
  writeConfig,
  type ClawcodeConfig,
  type ProviderEntry,
} from '../../config/config.js';
import { configPath } from '../../config/paths.js';
import { findRegistryEntry, PROVIDER_REGISTRY, type EntryField, type RegistryEntry } from '../../config/registry.js';
import { shownUrl } from '../../llm/credential-text.js';
import type { ProviderConfig } from '../../llm/types.js';
import { isPromptExit } from '../console/interrupt.js';
import { ClawcodeError, ConfigError, InterruptedError, UsageError } from '../../utils/errors.js';
import {
  askModelFromList,
  checkModelListed,
  listedModels,
  listModelsOf,
  type ListOutcome,
  type ModelLister,
} from './model-list.js';

/**
 * First-run onboarding and the guided "add a provider" of `clawcode config` (cli/config/command.ts): questions
 * from the registry (config/registry.ts), the credentials checked with a real lightweight call before
 * saving. Prompts come from @inquirer/prompts, loaded only when a question is asked.
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
  /**
   * Lists a provider's models for the model question (undefined: no list). @default the provider's own
   * list call (llm/provider.ts `listProviderModels`)
   */
  listModels?: ModelLister;
}

type Prompts = typeof import('@inquirer/prompts');

/** The @inquirer/prompts module, loaded on the first question. */
export async function prompts(): Promise<Prompts> {
  return import('@inquirer/prompts');
}

/**
 * Run a prompt and return its answer.
 * @throws InterruptedError for Ctrl-C (ExitPromptError); the prompt's other errors as they are
 */
export async function ask<T>(question: () => Promise<T>): Promise<T> {
  try {
    return await question();
  } catch (error) {
    if (isPromptExit(error)) throw new InterruptedError('Cancelled', { cause: error });
    throw error;
  }
}

/** The config flows' I/O with every default filled in. */
export type ResolvedConfigIo = Required<Omit<ConfigIo, 'interactive'>> & { interactive: boolean };

/** `io` with the defaults of {@link ConfigIo} for what it leaves out. */
export function defaults(io: ConfigIo): ResolvedConfigIo {
  return {
    env: io.env ?? process.env,
    print: io.print ?? ((line: string) => console.log(line)),
    checkCredentials: io.checkCredentials ?? checkCredentialsAndModel,
    // The list call is the credential check's call made early: a replaced check (tests) replaces it too.
    listModels: io.listModels ?? (io.checkCredentials ? async () => undefined : listModelsOf),
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
    const { checkProviderCredentials } = await import('../../llm/provider.js');
    await checkProviderCredentials(config);
    return;
  }
  const { listModels } = await import('../../llm/openai.js');
  checkModelListed(config.model, await listModels(config));
}

/** A fresh entry name: the kind id, or id-2, id-3... when taken. */
export function freeName(config: ClawcodeConfig, base: string): string {
  if (!providerEntry(config, base)) return base;
  for (let n = 2; ; n++) if (!providerEntry(config, `${base}-${n}`)) return `${base}-${n}`;
}

/** The answers of {@link askFields}, and the models the server listed for them when it was asked. */
export interface FieldAnswers {
  /** Non-empty answers by entry field (a key taken from the environment is left out). */
  values: Partial<Record<EntryField, string>>;
  /**
   * The list call made with these answers before the model question: the server's models (the call proved
   * the key) or its error. It stands for the credential check, so the server is not asked twice.
   */
  listed?: ListOutcome;
}

/**
 * Ask the registry's questions for a kind; `current` pre-fills an edit of the entry `name` (which errors
 * name). For a provider with a model list
 * (OpenAI-compatible, Groq) the model question offers the models the server lists (cli/config/model-list.ts).
 * @throws InterruptedError on Ctrl-C
 */
export async function askFields(
  kind: RegistryEntry,
  io: ResolvedConfigIo,
  current: ProviderEntry | undefined,
  name: string = kind.id,
): Promise<FieldAnswers> {
  const p = await prompts();
  const answers: Partial<Record<EntryField, string>> = {};
  let listed: ListOutcome | undefined;
  for (const question of kind.prompts) {
    const existing = current?.[question.field];
    const fromEnv = question.env ? io.env[question.env]?.trim() : undefined;
    if (question.field === 'model') {
      listed = await listedModels(name, kind, entryFrom(kind, answers, current), io.env, io.listModels);
      if (listed && 'ids' in listed && listed.ids.length > 0) {
        const { ids } = listed;
        answers.model = await ask(() =>
          askModelFromList(p, question.message, ids, existing ?? fromEnv ?? question.default),
        );
        continue;
      }
    }
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
  return { values: answers, ...(listed ? { listed } : {}) };
}

/** The entry of `kind` made of the answers over `previous`: a field asked and left empty is removed. */
export function entryFrom(
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
 * Check the entry `name` (as it would be in `config`) with a real call; on failure offer to re-enter,
 * save anyway or discard. When the model question's list call was made (`listed`), its outcome is the
 * check: the model is looked for in its list, or its error is the failure; the server is not asked again.
 *
 * @returns 'ok' | 'retry' | 'save' | 'discard'
 * @throws InterruptedError on Ctrl-C
 */
export async function verify(
  name: string,
  entry: ProviderEntry,
  config: ClawcodeConfig,
  io: ResolvedConfigIo,
  listed?: ListOutcome,
): Promise<'ok' | 'retry' | 'save' | 'discard'> {
  const trial: ClawcodeConfig = { ...config, providers: { ...config.providers, [name]: entry } };
  try {
    const resolved = resolveProviderConfig({ config: trial, env: io.env, provider: name });
    if (!resolved) throw new ConfigError(`Provider "${name}" could not be resolved`);
    io.print(
      `Checking ${name} with a real call${(resolved.baseURL ?? resolved.endpoint) ? ` to ${shownUrl((resolved.endpoint ?? resolved.baseURL)!)}` : ''}...`,
    );
    if (listed && 'error' in listed) throw listed.error;
    if (listed) checkModelListed(resolved.model, listed.ids);
    else await io.checkCredentials(resolved);
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
          : providerEntry(config, v.trim())
            ? 'That name is taken'
            : true,
    }),
  );
  for (;;) {
    const answers = await askFields(kind, io, undefined, name.trim());
    const entry = entryFrom(kind, answers.values);
    const outcome = await verify(name.trim(), entry, config, io, answers.listed);
    if (outcome === 'retry') continue;
    if (outcome === 'discard') return undefined;
    const next: ClawcodeConfig = { ...config, providers: { ...config.providers, [name.trim()]: entry } };
    const makeDefault =
      !config.defaultProvider || !providerEntry(config, config.defaultProvider)
        ? true
        : await ask(() => p.confirm({ message: `Make ${name.trim()} the default provider?`, default: false }));
    if (makeDefault) next.defaultProvider = name.trim();
    await writeConfig(next, io.env);
    io.print(`Saved ${name.trim()} to ${configPath(io.env)}.`);
    return next;
  }
}

/**
 * Read config.json; when it is corrupt and prompts are allowed, offer to move it aside
 * (`config.json.corrupt-<ms>`) and start empty. Nothing is overwritten without that answer.
 * @returns the config, or an empty one once the broken file is moved aside
 * @throws ConfigError when the file is broken and kept; InterruptedError on Ctrl-C
 */
export async function loadForEditing(io: ResolvedConfigIo): Promise<ClawcodeConfig> {
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
