import { InterruptedError, ProviderError } from '../utils/errors.js';
import { providerLabel } from './errors-map.js';
import { parsePlan, PlanParseError } from './plan-parser.js';
import { PLAN_JSON_SCHEMA } from './plan-schema.js';
import { withRetries, type RetryOptions } from './retry.js';
import type { Plan, ProviderClient, ProviderConfig, ProviderId, ProviderReply, Usage } from './types.js';

/**
 * Provider-agnostic planning: one structured request per task, at most one repair request.
 * Clients load lazily through `CLIENT_MODULES`, so only the chosen SDK is imported. Timeouts,
 * retries and cancellation wrap every client the same way (STYLE.md "Provider clients").
 */

/** What every client module in llm/ exports. */
export interface ProviderModule {
  /** Build a client for a resolved config. @throws ConfigError when required settings are missing */
  createClient(config: ProviderConfig): ProviderClient;
  /** A real lightweight call that proves the credentials work. @throws ProviderError */
  checkCredentials(config: ProviderConfig, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<void>;
}

/** Lazy imports of the client modules, one per backend. */
export const CLIENT_MODULES: Record<ProviderId, () => Promise<ProviderModule>> = {
  openai: () => import('./openai.js'),
  azure: () => import('./azure.js'),
  groq: () => import('./groq.js'),
  gemini: () => import('./gemini.js'),
};

/** Default per-attempt timeout, in ms (issue 3). */
export const DEFAULT_TIMEOUT_MS = 120_000;

/** Options of one planning call. */
export interface PlanOptions {
  /** Aborting it cancels the request → InterruptedError (exit 130). */
  signal?: AbortSignal;
  /**
   * Longest wait in ms for the first data and, when streaming, between two chunks of the reply
   * (an idle timeout, so a long but flowing generation is not cut). @default 120000
   */
  timeoutMs?: number;
  /** Progress of the streamed reply: characters received so far in the current request. */
  onProgress?: (progress: { chars: number }) => void;
  /** Retry tuning (tests shorten the backoff); see llm/retry.ts. */
  retry?: Omit<RetryOptions, 'signal'>;
  /** false: an invalid reply throws at once, without the repair request (a patch-repair round is the one). @default true */
  parseRepair?: boolean;
}

/** The result of `getStructuredPlan`. */
export interface PlanResult {
  plan: Plan;
  /** The reply the plan was parsed from (the repair reply when `repaired`). */
  reply: ProviderReply;
  /** Tokens of all requests made (one, or two with a repair); undefined when the provider reported none. */
  usage?: Usage;
  /** Whether the repair request was needed. */
  repaired: boolean;
  /** Wall time of the whole call including retries, in ms. */
  ms: number;
}

/** Finish reasons that mean the provider stopped for a safety or policy reason. */
const BLOCKED_FINISH = new Set(['content_filter', 'SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY']);

/**
 * Run one client request with an idle timeout and the caller's cancellation signal.
 *
 * @throws InterruptedError when `signal` aborts; ProviderError `provider_timeout` on timeout
 */
export async function completeWithTimeout(
  client: ProviderClient,
  config: ProviderConfig,
  request: { system: string; user: string },
  options: PlanOptions,
): Promise<ProviderReply> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timeout = new AbortController();
  let timer = setTimeout(() => timeout.abort(), timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
  try {
    return await client.complete({
      system: request.system,
      user: request.user,
      jsonSchema: PLAN_JSON_SCHEMA,
      signal,
      timeoutMs,
      onProgress: (progress) => {
        clearTimeout(timer);
        timer = setTimeout(() => timeout.abort(), timeoutMs);
        options.onProgress?.(progress);
      },
    });
  } catch (error) {
    if (options.signal?.aborted) throw new InterruptedError('Provider request cancelled', { cause: error });
    if (timeout.signal.aborted) {
      throw new ProviderError(`${providerLabel(config)} did not answer within ${Math.round(timeoutMs / 1000)} s (model ${config.model})`, {
        provider: config.name,
        code: 'provider_timeout',
        hint: 'Raise --timeout <ms> (or CLAWCODE_TIMEOUT_MS), or try a faster model.',
        cause: error,
      });
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Throw the one-line error for a reply that stopped early. */
function checkFinish(config: ProviderConfig, reply: ProviderReply): void {
  const reason = reply.finishReason;
  if (reason === 'length' || reason === 'MAX_TOKENS') {
    const limit = config.maxOutputTokens ? ` (maxOutputTokens ${config.maxOutputTokens})` : '';
    throw new ProviderError(`${providerLabel(config)} reply was truncated at the output token limit${limit}; the plan is incomplete`, {
      provider: config.name,
      code: 'provider_truncated',
      hint: 'Raise maxOutputTokens in this provider\'s entry of config.json, lower --budget, or split the task.',
    });
  }
  if (reason && BLOCKED_FINISH.has(reason)) {
    throw new ProviderError(`${providerLabel(config)} refused the task (finish reason ${reason})`, {
      provider: config.name,
      code: 'provider_refusal',
      hint: 'Rephrase the task.',
    });
  }
}

function addUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (!a) return b;
  if (!b) return a;
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, totalTokens: a.totalTokens + b.totalTokens };
}

/** Longest previous reply quoted back in the repair request, in characters. */
const REPAIR_QUOTE_CHARS = 20_000;

/** The user message of the one repair request: the task, the bad reply, and what was wrong. */
export function repairPrompt(userPrompt: string, badReply: string, detail: string): string {
  const quoted = badReply.length > REPAIR_QUOTE_CHARS ? `${badReply.slice(0, REPAIR_QUOTE_CHARS)}\n[... cut]` : badReply;
  return `${userPrompt}\n\n---\nYour previous reply was not a valid plan.\nProblem: ${detail}\n\nPrevious reply:\n${quoted}\n\nReply again with only the corrected JSON plan object, nothing else.`;
}

/** Load the client module of a backend (imports its SDK). */
export function loadProviderModule(provider: ProviderId): Promise<ProviderModule> {
  const load = CLIENT_MODULES[provider];
  if (!load) throw new ProviderError(`Unknown provider "${String(provider)}"`, { provider: String(provider), code: 'provider_unknown' });
  return load();
}

/**
 * Ask the provider for one plan. Sends one streamed structured-output request; if the reply is
 * not a valid plan, sends exactly one repair request showing the model its `PlanParseError.detail`,
 * never more. Each request gets the timeout and up to 2 retries (429, 5xx, connection errors).
 *
 * @param config        a resolved provider (config/config.ts `resolveProviderConfig`)
 * @param systemPrompt  the system message
 * @param userPrompt    the user message (task and context)
 * @returns the plan, the reply it came from, summed usage, whether it was repaired, and ms taken
 * @throws ProviderError (HTTP, timeout, truncated, refusal), PlanParseError (still invalid after
 *         the repair), InterruptedError (signal aborted), ConfigError (missing settings)
 */
export async function getStructuredPlan(
  config: ProviderConfig,
  systemPrompt: string,
  userPrompt: string,
  options: PlanOptions = {},
): Promise<PlanResult> {
  const started = performance.now();
  const module = await loadProviderModule(config.provider);
  const client = module.createClient(config);
  const ask = (user: string): Promise<ProviderReply> =>
    withRetries(() => completeWithTimeout(client, config, { system: systemPrompt, user }, options), {
      ...options.retry,
      signal: options.signal,
    });

  const first = await ask(userPrompt);
  checkFinish(config, first);
  try {
    const plan = parsePlan(first.text);
    return { plan, reply: first, usage: first.usage, repaired: false, ms: Math.round(performance.now() - started) };
  } catch (error) {
    if (!(error instanceof PlanParseError) || options.parseRepair === false) throw error;
    const second = await ask(repairPrompt(userPrompt, first.text, error.detail));
    checkFinish(config, second);
    const plan = parsePlan(second.text);
    return { plan, reply: second, usage: addUsage(first.usage, second.usage), repaired: true, ms: Math.round(performance.now() - started) };
  }
}

/**
 * Check a provider's credentials with one real lightweight call (model list or a one-token request).
 *
 * @throws ProviderError (401 names the key source), ConfigError, InterruptedError
 */
export async function checkProviderCredentials(config: ProviderConfig, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<void> {
  const module = await loadProviderModule(config.provider);
  await module.checkCredentials(config, options);
}
