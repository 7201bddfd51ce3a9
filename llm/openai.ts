import OpenAI from 'openai';
import { ConfigError } from '../utils/errors.js';
import { toProviderError } from './errors-map.js';
import { windowOfListedModel, type ListingOptions } from './model-window.js';
import { HOSTED_PRESETS } from './presets.js';
import { completeChat, defaultStepDown, type ChatCompletionsApi, type ChatOptions } from './chat-completions.js';
import { providerFetch } from './guarded-fetch.js';
import type { CompletionRequest, JsonMode, ProviderClient, ProviderConfig, ProviderReply } from './types.js';

/**
 * OpenAI and OpenAI-compatible servers (Ollama, LM Studio, llama.cpp, vLLM; hosted OpenRouter,
 * DeepSeek and Mistral from llm/presets.ts) through the `openai` SDK. Preset differences: LM Studio rejects `json_object`, so it
 * steps from json_schema straight to prompt-only; Ollama's /v1 defaults temperature to 1.0 when
 * none is sent, so local presets always send one; local servers understand `max_tokens`, OpenAI's
 * reasoning models want `max_completion_tokens`.
 */

/** Temperature sent to local presets when the config gives none. */
const LOCAL_DEFAULT_TEMPERATURE = 0.2;

/** The key sent to servers that need none (the SDK refuses an empty key). */
const PLACEHOLDER_KEY = 'not-needed';

/** The structured-output step after `mode` for a preset. */
function openaiStepDown(preset: ProviderConfig['preset']): (mode: JsonMode) => JsonMode | undefined {
  if (preset === 'lmstudio') return (mode) => (mode === 'prompt' ? undefined : 'prompt');
  return defaultStepDown;
}

/** Body fields for temperature and output limit (presets, local or hosted, get a default temperature). */
function openaiExtraBody(config: ProviderConfig): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const local = config.preset !== undefined;
  const temperature = config.temperature ?? (local ? LOCAL_DEFAULT_TEMPERATURE : undefined);
  if (temperature !== undefined) body.temperature = temperature;
  if (config.maxOutputTokens !== undefined) {
    body[local || config.baseURL ? 'max_tokens' : 'max_completion_tokens'] = config.maxOutputTokens;
  }
  return body;
}

/**
 * Build the OpenAI client for a config entry. The SDK's own retries are off (`maxRetries: 0`):
 * retries happen once, in llm/retry.ts.
 *
 * @throws ConfigError when no key is available for api.openai.com
 */
export function createClient(config: ProviderConfig): ProviderClient {
  const hosted = config.preset ? HOSTED_PRESETS[config.preset] : undefined;
  let apiKey = config.apiKey;
  if (!apiKey) {
    if (hosted) {
      throw new ConfigError(`No API key for ${config.preset}`, {
        hint: `Set ${hosted.keyEnv}, or run \`clawcode config\`.`,
      });
    }
    if (!config.baseURL && !config.preset) {
      throw new ConfigError('No API key for OpenAI', { hint: 'Set OPENAI_API_KEY, or run `clawcode config`.' });
    }
    apiKey = config.preset ?? PLACEHOLDER_KEY;
  }
  // Explicit options throughout: the SDK would otherwise read OPENAI_* itself (org, project, base URL).
  const client = new OpenAI({
    apiKey,
    baseURL: config.baseURL ?? hosted?.baseURL ?? 'https://api.openai.com/v1',
    organization: null,
    project: null,
    maxRetries: 0,
    fetch: providerFetch(config),
    ...(hosted?.headers ? { defaultHeaders: hosted.headers } : {}),
  });
  const options: ChatOptions = {
    mode: { current: config.jsonMode ?? hosted?.jsonMode ?? 'json_schema' },
    stream: () => true,
    stepDown: openaiStepDown(config.preset),
    extraBody: openaiExtraBody(config),
    model: config.model,
    // Mistral's API validates its body strictly and reports usage in the last chunk without being asked.
    streamUsage: { current: config.preset !== 'mistral' },
  };
  return {
    complete(request: CompletionRequest): Promise<ProviderReply> {
      return completeChat(client as unknown as ChatCompletionsApi, config, options, request);
    },
  };
}

/**
 * List model ids (GET /models): the lightweight call `clawcode config` uses to check credentials.
 *
 * @throws ProviderError as mapped by the SDK call (401 names the key source)
 */
export async function listModels(
  config: ProviderConfig,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<string[]> {
  try {
    return (await listedModels(config, options)).map((model) => model.id);
  } catch (error) {
    throw toProviderError(error, { config });
  }
}

/**
 * The configured model's context window in tokens, as the server's model list (GET /models) states
 * it: OpenRouter, vLLM, Mistral and others do, OpenAI does not.
 *
 * @returns tokens, or undefined when the list names no window for the model or cannot be had
 * @throws never
 */
export const contextWindow = (config: ProviderConfig, options: ListingOptions = {}): Promise<number | undefined> =>
  listedModels(config, options).then(
    (models) => windowOfListedModel(models.find((model) => model.id === config.model)),
    () => undefined,
  );

/** Every entry of GET /models, as the server sent it. @throws what the SDK throws */
async function listedModels(
  config: ProviderConfig,
  options: { signal?: AbortSignal; timeoutMs?: number },
): Promise<OpenAI.Models.Model[]> {
  const models: OpenAI.Models.Model[] = [];
  for await (const model of listingClient(config).models.list({
    signal: options.signal,
    timeout: options.timeoutMs ?? 15_000,
  }))
    models.push(model);
  return models;
}

/** A client for the model list only (no key is needed by local servers). */
function listingClient(config: ProviderConfig): OpenAI {
  return new OpenAI({
    apiKey: config.apiKey || (config.preset ?? PLACEHOLDER_KEY),
    baseURL:
      config.baseURL ??
      (config.preset ? HOSTED_PRESETS[config.preset]?.baseURL : undefined) ??
      'https://api.openai.com/v1',
    organization: null,
    project: null,
    maxRetries: 0,
    fetch: providerFetch(config),
  });
}

/**
 * Prove the credentials with one real lightweight call: list the models.
 *
 * @throws ProviderError (401/403 name the key source), InterruptedError
 */
export async function checkCredentials(
  config: ProviderConfig,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<void> {
  await listModels(config, options);
}
