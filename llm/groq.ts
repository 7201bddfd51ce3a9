import Groq from 'groq-sdk';
import { ConfigError, ProviderError } from '../utils/errors.js';
import { completeChat, defaultStepDown, type ChatCompletionsApi, type ChatOptions } from './chat-completions.js';
import { toProviderError } from './errors-map.js';
import { windowOfListedModel, type ListingOptions } from './model-window.js';
import { providerFetch } from './guarded-fetch.js';
import type { CompletionRequest, JsonMode, ProviderClient, ProviderConfig, ProviderReply } from './types.js';

/**
 * Groq through `groq-sdk` (OpenAI-compatible, path `/openai/v1/chat/completions`).
 * Structured output (console.groq.com/docs/structured-outputs):
 * json_schema with `strict: true` only on models with constrained decoding (the gpt-oss models);
 * everything else uses JSON mode (`json_object`). Groq documents JSON mode and structured outputs
 * as not supporting streaming, so requests with a response_format are sent unstreamed (progress
 * is reported once, at the end); prompt-only requests stream.
 */

/** Models documented as supporting strict json_schema. */
function groqSupportsStrictSchema(model: string): boolean {
  return /^openai\/gpt-oss-/.test(model);
}

/** The structured-output mode for a Groq model. */
function groqJsonMode(model: string): JsonMode {
  return groqSupportsStrictSchema(model) ? 'json_schema' : 'json_object';
}

/**
 * Body fields that keep a reasoning model's thinking out of the reply text (console.groq.com/docs/reasoning):
 * Qwen 3, QwQ and DeepSeek-R1 take `reasoning_format: "hidden"` (the default "raw" puts `<think>` blocks in
 * the content, and JSON mode refuses "raw"); the gpt-oss models take `include_reasoning: false` instead.
 */
function groqReasoningBody(model: string): Record<string, unknown> {
  if (/qwen3|qwen-3|qwq|deepseek-r1/i.test(model)) return { reasoning_format: 'hidden' };
  if (/gpt-oss/i.test(model)) return { include_reasoning: false };
  return {};
}

function makeClient(config: ProviderConfig): Groq {
  if (!config.apiKey)
    throw new ConfigError('No API key for Groq', { hint: 'Set GROQ_API_KEY, or run `clawcode config`.' });
  // GROQ_BASE_URL is the host (the SDK adds /openai/v1); passed explicitly so the SDK reads no env.
  return new Groq({
    apiKey: config.apiKey,
    baseURL: config.baseURL ?? 'https://api.groq.com',
    maxRetries: 0,
    fetch: providerFetch(config),
  });
}

/**
 * Build the Groq client.
 *
 * @throws ConfigError when no key is configured
 */
export function createClient(config: ProviderConfig): ProviderClient {
  const client = makeClient(config);
  const extraBody: Record<string, unknown> = { temperature: config.temperature ?? 0.2 };
  if (config.maxOutputTokens !== undefined) extraBody.max_completion_tokens = config.maxOutputTokens;
  const options: ChatOptions = {
    mode: { current: config.jsonMode ?? groqJsonMode(config.model) },
    stream: (mode) => mode === 'prompt',
    stepDown: defaultStepDown,
    extraBody: { ...extraBody, ...groqReasoningBody(config.model) },
    model: config.model,
    streamUsage: { current: true },
  };
  return {
    complete(request: CompletionRequest): Promise<ProviderReply> {
      return completeChat(client as unknown as ChatCompletionsApi, config, options, request);
    },
  };
}

/**
 * List model ids (GET /openai/v1/models).
 *
 * @throws ProviderError as mapped by the SDK call (401 names the key source)
 */
export async function listModels(
  config: ProviderConfig,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<string[]> {
  try {
    const list = await makeClient(config).models.list({ signal: options.signal, timeout: options.timeoutMs ?? 15_000 });
    return list.data.map((model) => model.id);
  } catch (error) {
    throw toProviderError(error, { config });
  }
}

/**
 * Prove the key and the model: list the models (GET /openai/v1/models) and look for the entry's model.
 *
 * @throws ProviderError (401 names the key source; code `provider_not_found` when the model is not
 *         listed), ConfigError
 */
export async function checkCredentials(
  config: ProviderConfig,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<void> {
  const ids = await listModels(config, options);
  if (!config.model || ids.includes(config.model)) return;
  throw new ProviderError(`The Groq key works, but Groq lists no model "${config.model}"`, {
    provider: config.name || config.provider,
    code: 'provider_not_found',
    hint: `List the models with \`curl -H "Authorization: Bearer $GROQ_API_KEY" ${config.baseURL ?? 'https://api.groq.com'}/openai/v1/models\`, then fix the model in \`clawcode config\`.`,
  });
}

/**
 * The configured model's context window in tokens, from Groq's model list (`context_window`).
 *
 * @returns tokens, or undefined when the model is not listed or the list cannot be had
 * @throws never
 */
export const contextWindow = (config: ProviderConfig, options: ListingOptions = {}): Promise<number | undefined> =>
  Promise.resolve()
    .then(() => makeClient(config).models.list({ signal: options.signal, timeout: options.timeoutMs ?? 15_000 }))
    .then(
      (list) => windowOfListedModel(list.data.find((model) => model.id === config.model)),
      () => undefined,
    );
