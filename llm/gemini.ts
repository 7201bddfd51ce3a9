import { GoogleGenAI, type GenerateContentConfig, type GenerateContentResponse } from '@google/genai';
import { ConfigError } from '../utils/errors.js';
import { defaultStepDown, systemFor } from './chat-completions.js';
import { isResponseFormatError, toProviderError } from './errors-map.js';
import { windowOfListedModel, type ListingOptions } from './model-window.js';
import { providerFetch } from './guarded-fetch.js';
import type { CompletionRequest, JsonMode, ProviderClient, ProviderConfig, ProviderReply, Usage } from './types.js';

/**
 * Gemini through `@google/genai` (the maintained successor of @google/generative-ai), streamed with
 * `streamGenerateContent?alt=sse`. Structured output: `responseMimeType: application/json` plus
 * `responseJsonSchema` (standard JSON Schema, Gemini 2.5+), stepping down to JSON mime type only,
 * then prompt-only, on a 400 about it. Truncation shows as finishReason `MAX_TOKENS`.
 * `GEMINI_BASE_URL` reaches here as `config.baseURL` (httpOptions.baseUrl).
 */

function makeClient(config: ProviderConfig, timeoutMs?: number): GoogleGenAI {
  if (!config.apiKey)
    throw new ConfigError('No API key for Gemini', { hint: 'Set GEMINI_API_KEY, or run `clawcode config`.' });
  return new GoogleGenAI({
    apiKey: config.apiKey,
    vertexai: false,
    httpOptions: {
      ...(config.baseURL ? { baseUrl: config.baseURL } : {}),
      ...(timeoutMs ? { timeout: timeoutMs } : {}),
      fetch: providerFetch(config),
    },
  });
}

/**
 * The plan schema in the form the Gemini API documents for `responseJsonSchema`: a nullable field is
 * `anyOf: [{type: T}, {type: "null"}]`, not the type array `type: [T, "null"]` (which OpenAI's strict
 * mode wants and Gemini rejects or ignores). Everything else is kept.
 *
 * @returns a new schema object; the input is not changed
 */
function geminiJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(geminiJsonSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema))
    out[key] = key === 'enum' || key === 'required' ? value : geminiJsonSchema(value);
  const type = out.type;
  if (Array.isArray(type) && type.length > 1) {
    delete out.type;
    out.anyOf = type.map((t) => ({ type: t }));
  }
  return out;
}

function generationConfig(mode: JsonMode, config: ProviderConfig, request: CompletionRequest): GenerateContentConfig {
  return {
    systemInstruction: systemFor(mode, request),
    temperature: config.temperature ?? 0.2,
    ...(config.maxOutputTokens !== undefined ? { maxOutputTokens: config.maxOutputTokens } : {}),
    ...(mode !== 'prompt' ? { responseMimeType: 'application/json' } : {}),
    ...(mode === 'json_schema' ? { responseJsonSchema: geminiJsonSchema(request.jsonSchema) } : {}),
    abortSignal: request.signal,
  };
}

/** Text of a response chunk, skipping thought parts (the SDK's `.text` getter warns on those). */
function chunkText(response: GenerateContentResponse): string {
  const parts = response.candidates?.[0]?.content?.parts ?? [];
  return parts
    .filter((part) => typeof part.text === 'string' && !part.thought)
    .map((part) => part.text)
    .join('');
}

function toUsage(response: GenerateContentResponse): Usage | undefined {
  const meta = response.usageMetadata;
  if (!meta) return undefined;
  const inputTokens = meta.promptTokenCount ?? 0;
  // Thinking tokens are billed as output.
  const outputTokens = (meta.candidatesTokenCount ?? 0) + (meta.thoughtsTokenCount ?? 0);
  const usage: Usage = { inputTokens, outputTokens, totalTokens: meta.totalTokenCount ?? inputTokens + outputTokens };
  // Implicit or explicit context caching: part of promptTokenCount.
  if (meta.cachedContentTokenCount) usage.cacheReadTokens = meta.cachedContentTokenCount;
  return usage;
}

async function once(
  client: GoogleGenAI,
  mode: JsonMode,
  config: ProviderConfig,
  request: CompletionRequest,
): Promise<ProviderReply> {
  const stream = await client.models.generateContentStream({
    model: config.model,
    contents: request.user,
    config: generationConfig(mode, config, request),
  });
  let text = '';
  let finishReason: string | undefined;
  let usage: Usage | undefined;
  let model = config.model;
  for await (const chunk of stream) {
    const piece = chunkText(chunk);
    if (piece) {
      text += piece;
      request.onProgress?.({ chars: text.length });
    }
    finishReason = chunk.candidates?.[0]?.finishReason ?? finishReason;
    usage = toUsage(chunk) ?? usage;
    if (chunk.modelVersion) model = chunk.modelVersion;
    // A prompt blocked before generation has no candidates, only promptFeedback.
    if (chunk.promptFeedback?.blockReason)
      finishReason = chunk.promptFeedback.blockReason === 'SAFETY' ? 'SAFETY' : 'PROHIBITED_CONTENT';
  }
  return { text, usage, finishReason, model };
}

/**
 * Build the Gemini client.
 *
 * @throws ConfigError when no key is configured
 */
export function createClient(config: ProviderConfig): ProviderClient {
  const client = makeClient(config);
  // Kept across requests: after a step-down, the repair request and retries use the mode that worked.
  let mode: JsonMode = config.jsonMode ?? 'json_schema';
  return {
    async complete(request: CompletionRequest): Promise<ProviderReply> {
      for (;;) {
        try {
          return await once(client, mode, config, request);
        } catch (error) {
          const next: JsonMode | undefined = isResponseFormatError(error) ? defaultStepDown(mode) : undefined;
          if (next === undefined || request.signal?.aborted) throw toProviderError(error, { config });
          mode = next;
        }
      }
    },
  };
}

/**
 * Prove the key and the model with one free call: get the model (GET /v1beta/models/{model}).
 *
 * @throws ProviderError (400/401/403 name the key source, 404 the model), ConfigError
 */
export async function checkCredentials(
  config: ProviderConfig,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<void> {
  await getModel(config, options);
}

/** GET /v1beta/models/{model}. @throws ProviderError, ConfigError */
async function getModel(
  config: ProviderConfig,
  options: { signal?: AbortSignal; timeoutMs?: number },
): Promise<unknown> {
  const client = makeClient(config, options.timeoutMs ?? 15_000);
  try {
    return await client.models.get({ model: config.model, config: { abortSignal: options.signal } });
  } catch (error) {
    throw toProviderError(error, { config });
  }
}

/**
 * The configured model's input limit in tokens (`inputTokenLimit` of GET /v1beta/models/{model}).
 *
 * @returns tokens, or undefined when the service reports none or cannot be asked
 * @throws never
 */
export const contextWindow = (config: ProviderConfig, options: ListingOptions = {}): Promise<number | undefined> =>
  getModel(config, options).then(windowOfListedModel, () => undefined);
