import { ProviderError } from '../utils/errors.js';
import { errorStatus, isResponseFormatError, providerLabel, providerMessage, toProviderError } from './errors-map.js';
import { PLAN_SCHEMA_NAME } from '../utils/plan.js';
import type { CompletionRequest, JsonMode, ProviderConfig, ProviderReply, Usage } from './types.js';
import { estimateTokens } from './usage.js';

/**
 * The Chat Completions request shared by the OpenAI, Azure and Groq clients (all three SDKs are
 * generated from the same OpenAPI spec and take the same body): structured-output selection with
 * step-down, streaming with progress and usage, refusal detection. Reasoning that a server sends
 * beside the answer (`delta.reasoning`, `delta.reasoning_content`) is never read as the reply.
 */

/** The slice of an openai / groq-sdk client used here. */
export interface ChatCompletionsApi {
  chat: {
    completions: {
      create(
        body: Record<string, unknown>,
        options: { signal?: AbortSignal; timeout?: number; maxRetries?: number },
      ): PromiseLike<unknown>;
    };
  };
}

/** How one backend wants its chat request shaped. */
export interface ChatOptions {
  /**
   * Structured-output mode to try, shared by every request of one client: after a step-down it
   * holds the mode that worked, so the repair request and retries do not hit the same 400 again.
   */
  mode: { current: JsonMode };
  /** Whether to stream in this mode (Groq's JSON mode cannot stream). */
  stream: (mode: JsonMode) => boolean;
  /** The mode to try after a 400 about response_format, or undefined to give up. */
  stepDown: (mode: JsonMode) => JsonMode | undefined;
  /** Body fields added to every request (temperature, max tokens, ...). */
  extraBody: Record<string, unknown>;
  /** Model or deployment name sent as `model`. */
  model: string;
  /**
   * Whether streamed requests send `stream_options: {include_usage: true}`. Shared like `mode`: a
   * server that answers 400 about the parameter (Azure before late 2024, some OpenAI-compatible
   * servers) gets it switched off, and usage is then estimated.
   */
  streamUsage: { current: boolean };
}

/** A rough usage from text lengths, for servers that report none; marked `estimated`. */
function estimateUsage(inputChars: number, outputChars: number): Usage {
  const inputTokens = estimateTokens(inputChars);
  const outputTokens = estimateTokens(outputChars);
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens, estimated: true };
}

/** Whether a 400 names `stream_options` as an unknown or unsupported parameter. */
function isStreamOptionsError(error: unknown): boolean {
  const status = errorStatus(error);
  if (status !== 400 && status !== 422) return false;
  return /stream_options/i.test(
    `${providerMessage(error)} ${JSON.stringify((error as { error?: unknown }).error ?? '')}`,
  );
}

/** The default step-down chain: json_schema → json_object → prompt. */
export function defaultStepDown(mode: JsonMode): JsonMode | undefined {
  return mode === 'json_schema' ? 'json_object' : mode === 'json_object' ? 'prompt' : undefined;
}

/**
 * The system prompt for a mode. JSON mode requires the word "JSON" in the messages and does not
 * know the schema, so both json_object and prompt-only modes carry the schema as text.
 */
export function systemFor(mode: JsonMode, request: CompletionRequest): string {
  if (mode === 'json_schema') return request.system;
  return `${request.system}\n\nReply with exactly one JSON object, no prose, matching this JSON schema:\n${JSON.stringify(request.jsonSchema)}`;
}

function responseFormat(mode: JsonMode, schema: Record<string, unknown>): Record<string, unknown> | undefined {
  if (mode === 'json_schema')
    return { type: 'json_schema', json_schema: { name: PLAN_SCHEMA_NAME, strict: true, schema } };
  if (mode === 'json_object') return { type: 'json_object' };
  return undefined;
}

/** Message content: a string, or (Mistral reasoning models) an array of typed parts. */
type Content = string | { type?: string; text?: unknown }[] | null;

/**
 * The answer text of a content field. Mistral's reasoning models stream `content` as an array of
 * parts, `{type: "thinking", thinking: [...]}` and `{type: "text", text}`: only the text parts are the answer.
 */
function contentText(content: Content | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part?.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('');
}

interface Chunk {
  model?: string;
  choices?: { delta?: { content?: Content; refusal?: string | null }; finish_reason?: string | null }[];
  usage?: RawUsage | null;
  x_groq?: { usage?: RawUsage };
}
interface RawUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  /** OpenAI and Azure: prompt tokens served from the automatic prompt cache. */
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  /** DeepSeek: the same, named for its context cache. */
  prompt_cache_hit_tokens?: number;
}
interface Completion {
  model?: string;
  choices?: { message?: { content?: Content; refusal?: string | null }; finish_reason?: string | null }[];
  usage?: RawUsage | null;
}

function toUsage(raw: RawUsage | null | undefined): Usage | undefined {
  if (!raw) return undefined;
  const inputTokens = raw.prompt_tokens ?? 0;
  const outputTokens = raw.completion_tokens ?? 0;
  const usage: Usage = { inputTokens, outputTokens, totalTokens: raw.total_tokens ?? inputTokens + outputTokens };
  const cached = raw.prompt_tokens_details?.cached_tokens ?? raw.prompt_cache_hit_tokens;
  if (cached) usage.cacheReadTokens = cached;
  return usage;
}

async function once(
  api: ChatCompletionsApi,
  mode: JsonMode,
  config: ProviderConfig,
  options: ChatOptions,
  request: CompletionRequest,
): Promise<ProviderReply> {
  const stream = options.stream(mode);
  const format = responseFormat(mode, request.jsonSchema);
  const body: Record<string, unknown> = {
    model: options.model,
    messages: [
      { role: 'system', content: systemFor(mode, request) },
      { role: 'user', content: request.user },
    ],
    ...options.extraBody,
    ...(format ? { response_format: format } : {}),
    ...(stream ? { stream: true } : {}),
    ...(stream && options.streamUsage.current ? { stream_options: { include_usage: true } } : {}),
  };
  // The SDK timer is a backstop only: the request deadline in llm/provider.ts fires first and is reported as a timeout.
  const sdkOptions = { signal: request.signal, timeout: request.timeoutMs + 1000, maxRetries: 0 };
  let text = '';
  let refusal = '';
  let finishReason: string | undefined;
  let usage: Usage | undefined;
  let model = options.model;
  if (stream) {
    const chunks = (await api.chat.completions.create(body, sdkOptions)) as AsyncIterable<Chunk>;
    for await (const chunk of chunks) {
      if (chunk.model) model = chunk.model;
      const choice = chunk.choices?.[0];
      const piece = contentText(choice?.delta?.content);
      if (piece) {
        text += piece;
        request.onProgress?.({ chars: text.length });
      }
      if (choice?.delta?.refusal) refusal += choice.delta.refusal;
      if (choice?.finish_reason) finishReason = choice.finish_reason;
      usage = toUsage(chunk.usage ?? chunk.x_groq?.usage) ?? usage;
    }
  } else {
    const completion = (await api.chat.completions.create(body, sdkOptions)) as Completion;
    const choice = completion.choices?.[0];
    text = contentText(choice?.message?.content);
    refusal = choice?.message?.refusal ?? '';
    finishReason = choice?.finish_reason ?? undefined;
    usage = toUsage(completion.usage);
    if (completion.model) model = completion.model;
    request.onProgress?.({ chars: text.length });
  }
  if (!usage && stream) usage = estimateUsage(systemFor(mode, request).length + request.user.length, text.length);
  if (refusal) {
    throw new ProviderError(
      `${providerLabel(config)} refused the task: ${refusal.replace(/\s+/g, ' ').slice(0, 300)}`,
      {
        provider: config.name,
        code: 'provider_refusal',
        hint: 'Rephrase the task.',
      },
    );
  }
  return { text, usage, finishReason, model };
}

/**
 * Send one plan request through a Chat Completions API, stepping down the structured-output mode
 * on a 400 about it (each step at most once, following `options.stepDown`).
 *
 * @returns the raw reply (text, usage, finish reason, model)
 * @throws ProviderError (mapped by `toProviderError`) or InterruptedError
 */
export async function completeChat(
  api: ChatCompletionsApi,
  config: ProviderConfig,
  options: ChatOptions,
  request: CompletionRequest,
): Promise<ProviderReply> {
  for (;;) {
    try {
      return await once(api, options.mode.current, config, options, request);
    } catch (error) {
      if (request.signal?.aborted) throw toProviderError(error, { config, model: options.model });
      if (options.streamUsage.current && isStreamOptionsError(error)) {
        options.streamUsage.current = false;
        continue;
      }
      const next: JsonMode | undefined = isResponseFormatError(error)
        ? options.stepDown(options.mode.current)
        : undefined;
      if (next === undefined) throw toProviderError(error, { config, model: options.model });
      options.mode.current = next;
    }
  }
}
