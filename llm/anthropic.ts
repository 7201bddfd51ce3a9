import Anthropic from '@anthropic-ai/sdk';
import { ConfigError } from '../utils/errors.js';
import { toProviderError } from './errors-map.js';
import { windowOfListedModel, type ListingOptions } from './model-window.js';
import { providerFetch } from './guarded-fetch.js';
import type { CompletionRequest, ProviderClient, ProviderConfig, ProviderReply, Usage } from './types.js';

/**
 * Anthropic (Claude) through `@anthropic-ai/sdk`, Messages API, streamed.
 * - The plan comes back as a forced tool call: one tool whose `input_schema` is the plan schema and
 *   `tool_choice: {type: "tool"}`, so the reply is the tool's JSON input, streamed as `input_json_delta`.
 * - Prompt caching: `cache_control: {type: "ephemeral"}` on the system prompt (which caches the tool
 *   definition before it too) and on the stable sections of the user prompt (project instructions and
 *   the project file list), moved ahead of the task so the cached prefix is the same from task to task.
 *   Prompts under the model's minimum cacheable length are simply not cached.
 * - Usage: Anthropic's `input_tokens` leaves out cache reads and writes; they are added back so that
 *   `Usage.inputTokens` counts every input token, with the cached parts reported beside it.
 * `ANTHROPIC_BASE_URL` reaches here as `config.baseURL`; the SDK reads no environment variable itself.
 */

/** Name of the tool the plan is returned through. */
export const PLAN_TOOL_NAME = 'submit_plan';

/** Output limit sent when the config names none (the API requires one), in tokens. */
function defaultMaxTokens(model: string): number {
  if (/claude-3-(opus|sonnet|haiku)/.test(model)) return 4096;
  if (/claude-3-5/.test(model)) return 8192;
  return 16_384;
}

/** Sections of the user prompt that stay the same from task to task in one project. */
const STABLE_SECTIONS = ['# Project instructions\n', '# Project files\n'];

/**
 * Split the user prompt into its stable sections (project instructions and file list) and the rest,
 * each keeping its order. Sections are the prompt's top-level `# ` headings separated by blank lines.
 *
 * @returns `stable` (may be "") and `rest`; `stable + "\n\n" + rest` holds every section once
 */
export function splitStablePrefix(user: string): { stable: string; rest: string } {
  const sections = user.split(/\n\n(?=# )/);
  const stable = sections.filter((s) => STABLE_SECTIONS.some((head) => s.startsWith(head)));
  if (stable.length === 0) return { stable: '', rest: user };
  const rest = sections.filter((s) => !stable.includes(s));
  return { stable: stable.join('\n\n'), rest: rest.join('\n\n') };
}

function makeClient(config: ProviderConfig): Anthropic {
  if (!config.apiKey)
    throw new ConfigError('No API key for Anthropic', { hint: 'Set ANTHROPIC_API_KEY, or run `clawcode config`.' });
  // Explicit options: the SDK would otherwise read ANTHROPIC_* itself. Retries happen once, in llm/retry.ts.
  return new Anthropic({
    apiKey: config.apiKey,
    baseURL: config.baseURL ?? 'https://api.anthropic.com',
    maxRetries: 0,
    fetch: providerFetch(config),
  });
}

interface RawUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

/** Usage from `message_start` merged with the later `message_delta` counts (which may repeat them). */
function mergeUsage(start: RawUsage, delta: RawUsage): Usage {
  const pick = (key: keyof RawUsage): number => delta[key] ?? start[key] ?? 0;
  const cacheRead = pick('cache_read_input_tokens');
  const cacheWrite = pick('cache_creation_input_tokens');
  const inputTokens = pick('input_tokens') + cacheRead + cacheWrite;
  const outputTokens = pick('output_tokens');
  return {
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  };
}

/** The slice of the stream events read here. */
interface StreamEvent {
  type: string;
  message?: { model?: string; usage?: RawUsage };
  content_block?: { type?: string; name?: string; text?: string };
  delta?: { type?: string; partial_json?: string; text?: string; stop_reason?: string | null };
  usage?: RawUsage;
}

/** Anthropic stop reasons in the words `llm/provider.ts` checks (`length` = truncated). */
function finishFrom(stop: string | undefined): string | undefined {
  if (stop === 'max_tokens') return 'length';
  return stop;
}

/**
 * Build the Anthropic client.
 *
 * @throws ConfigError when no key is configured
 */
export function createClient(config: ProviderConfig): ProviderClient {
  const client = makeClient(config);
  return {
    async complete(request: CompletionRequest): Promise<ProviderReply> {
      const { stable, rest } = splitStablePrefix(request.user);
      const cache = { type: 'ephemeral' as const };
      const content = [
        ...(stable ? [{ type: 'text' as const, text: stable, cache_control: cache }] : []),
        { type: 'text' as const, text: rest },
      ];
      const body = {
        model: config.model,
        max_tokens: config.maxOutputTokens ?? defaultMaxTokens(config.model),
        ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
        system: [{ type: 'text' as const, text: request.system, cache_control: cache }],
        messages: [{ role: 'user' as const, content }],
        tools: [
          {
            name: PLAN_TOOL_NAME,
            description: 'Submit the plan for the task: the analysis, the find/replace patches, commands and notes.',
            input_schema: request.jsonSchema as { type: 'object'; [key: string]: unknown },
          },
        ],
        tool_choice: { type: 'tool' as const, name: PLAN_TOOL_NAME },
        stream: true as const,
      };
      let json = '';
      let text = '';
      let model = config.model;
      let startUsage: RawUsage = {};
      let deltaUsage: RawUsage = {};
      let stop: string | undefined;
      try {
        const stream = await client.messages.create(body, {
          signal: request.signal,
          timeout: request.timeoutMs + 1000,
          maxRetries: 0,
        });
        for await (const raw of stream as AsyncIterable<unknown>) {
          const event = raw as StreamEvent;
          if (event.type === 'message_start') {
            if (event.message?.model) model = event.message.model;
            startUsage = event.message?.usage ?? {};
          } else if (event.type === 'content_block_delta') {
            if (event.delta?.type === 'input_json_delta' && event.delta.partial_json) json += event.delta.partial_json;
            else if (event.delta?.type === 'text_delta' && event.delta.text) text += event.delta.text;
            request.onProgress?.({ chars: json.length + text.length });
          } else if (event.type === 'message_delta') {
            if (event.delta?.stop_reason) stop = event.delta.stop_reason;
            deltaUsage = event.usage ?? deltaUsage;
          }
        }
      } catch (error) {
        throw toProviderError(error, { config });
      }
      // A model that answered in prose despite the forced tool: the text goes to the plan parser.
      return { text: json || text, usage: mergeUsage(startUsage, deltaUsage), finishReason: finishFrom(stop), model };
    },
  };
}

/**
 * Prove the key and the model with one free call: get the model (GET /v1/models/{model}), which
 * also accepts aliases.
 *
 * @throws ProviderError (401/403 name the key source, 404 the model), ConfigError, InterruptedError
 */
export async function checkCredentials(
  config: ProviderConfig,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<void> {
  await getModel(config, options);
}

/** GET /v1/models/{model} (aliases accepted). @throws ProviderError, ConfigError */
async function getModel(
  config: ProviderConfig,
  options: { signal?: AbortSignal; timeoutMs?: number },
): Promise<unknown> {
  try {
    return await makeClient(config).models.retrieve(
      config.model,
      {},
      { signal: options.signal, timeout: options.timeoutMs ?? 15_000, maxRetries: 0 },
    );
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw toProviderError(error, { config });
  }
}

/**
 * The configured model's input limit in tokens (`max_input_tokens` of GET /v1/models/{model}).
 *
 * @returns tokens, or undefined when the service reports none or cannot be asked
 * @throws never
 */
export const contextWindow = (config: ProviderConfig, options: ListingOptions = {}): Promise<number | undefined> =>
  getModel(config, options).then(windowOfListedModel, () => undefined);
