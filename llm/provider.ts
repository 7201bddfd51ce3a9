import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS } from '../utils/defaults.js';
import { ClawcodeError, InterruptedError, ProviderError } from '../utils/errors.js';
import { providerLabel } from './errors-map.js';
import { parsePlan, PlanParseError } from './plan-parser.js';
import { PLAN_JSON_SCHEMA } from '../utils/plan.js';
import { withRetries, type RetryOptions } from './retry.js';
import type { ProviderClient, ProviderConfig, ProviderId, ProviderReply, Usage } from './types.js';
import type { Plan } from '../utils/plan.js';
import { addUsage, checkUsage } from './usage.js';
import { isModelId, usableModelIds } from './model-ids.js';
import { heldSecrets, sealRequest, type OutboundRequest, type SendableFile } from './outbound.js';

/**
 * Provider-agnostic planning: one structured request per task, at most one repair request.
 * Clients load lazily through `CLIENT_MODULES`, so only the chosen SDK is imported. Timeouts,
 * retries and cancellation wrap every client the same way, never copied inside a client.
 */

/** What every client module in llm/ exports. */
export interface ProviderModule {
  /** Build a client for a resolved config. @throws ConfigError when required settings are missing */
  createClient(config: ProviderConfig): ProviderClient;
  /** A real lightweight call that proves the credentials work (and, where the service can tell, the model). @throws ProviderError */
  checkCredentials(config: ProviderConfig, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<void>;
  /**
   * The model's context window in tokens as the service's model listing reports it; absent where no
   * listing states one (Azure). Never throws: undefined when it cannot be had.
   */
  contextWindow?(
    config: ProviderConfig,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<number | undefined>;
}

/** Lazy imports of the client modules, one per backend. */
export const CLIENT_MODULES: Record<ProviderId, () => Promise<ProviderModule>> = {
  openai: () => import('./openai.js'),
  azure: () => import('./azure.js'),
  groq: () => import('./groq.js'),
  gemini: () => import('./gemini.js'),
  anthropic: () => import('./anthropic.js'),
};

export { DEFAULT_TIMEOUT_MS };

/**
 * Longest reply read, in characters (about 4 MB of text). A plan is a few KB to a few hundred KB; a
 * stream that keeps going past this is cut off instead of growing until the process runs out of memory.
 */
const DEFAULT_MAX_REPLY_CHARS = 4_000_000;

/** A retry about to happen, as reported to `PlanOptions.onRetry`. */
export interface RetryNotice {
  /** 1-based number of this retry. */
  attempt: number;
  maxRetries: number;
  /** Wait before the retry, in ms. */
  delayMs: number;
  /** Why, in a few words: "rate limited", "overloaded", "server error", "connection failed"... */
  reason: string;
  /** One line for a person, e.g. "rate limited; retrying in 47 s, 1 of 2". */
  message: string;
}

/** Options of one planning call. */
export interface PlanOptions {
  /** Aborting it cancels the request → InterruptedError (exit 130). */
  signal?: AbortSignal;
  /**
   * Deadline of each request in ms, from sending it to the last byte of the reply: one timer over
   * the whole stream, so a reply that trickles in never outlives it. Waits between retries are not
   * counted. @default 120000
   */
  timeoutMs?: number;
  /** Longest reply read, in characters; a longer one is cut off with an error. @default 4000000 */
  maxReplyChars?: number;
  /** Progress of the streamed reply: characters received so far in the current request. */
  onProgress?: (progress: { chars: number }) => void;
  /** Called before each retry wait, so the person sees why nothing happens for a while. */
  onRetry?: (notice: RetryNotice) => void;
  /** Retry tuning (tests shorten the backoff); see llm/retry.ts. */
  retry?: Omit<RetryOptions, 'signal' | 'onRetry'>;
  /** false: an invalid reply throws at once, without the repair request (a patch-repair round is the one). @default true */
  parseRepair?: boolean;
  /** Project files whose text the user message quotes (`## <path>` sections, excerpts); checked at the door. */
  quotedFiles?: readonly string[];
  /** The files a request may quote (the context stage's candidates); absent: the path policy alone. */
  sendable?: SendableFile;
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
const BLOCKED_FINISH = new Set([
  'content_filter',
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'refusal',
]);

function tooLarge(config: ProviderConfig, maxChars: number): ProviderError {
  return new ProviderError(
    `${providerLabel(config)} reply passed ${maxChars.toLocaleString('en-US')} characters; ` +
      `stopped reading it (model ${config.model})`,
    {
      provider: config.name,
      code: 'provider_reply_too_large',
      hint: 'The model is not producing a plan; try again, or use another model.',
    },
  );
}

/**
 * Run one client request under one deadline (`timeoutMs`, across the whole stream), a reply size
 * cap (`maxReplyChars`) and the caller's cancellation signal. This is the only place a client is asked
 * anything: the body goes through `sealRequest` (path policy on the quoted files, secrets redacted) first.
 *
 * @throws InterruptedError when `signal` aborts; ProviderError `provider_timeout` when the deadline
 *         passes, `provider_reply_too_large` when the reply outgrows the cap; OutboundRefusedError when the
 *         body quotes a file that is never sent (nothing is sent)
 */
export async function completeWithTimeout(
  client: ProviderClient,
  config: ProviderConfig,
  request: OutboundRequest & { jsonSchema?: Record<string, unknown> },
  options: PlanOptions,
): Promise<ProviderReply> {
  const sealed = sealRequest(
    { ...request, files: request.files ?? options.quotedFiles },
    options.sendable,
    heldSecrets(config.apiKey),
  );
  // A longer timer would fire at once (see MAX_TIMEOUT_MS).
  const timeoutMs = Math.min(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS);
  const maxChars = options.maxReplyChars ?? DEFAULT_MAX_REPLY_CHARS;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort('timeout'), timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  let received = 0;
  try {
    const reply = await client.complete({
      system: sealed.system,
      user: sealed.user,
      jsonSchema: request.jsonSchema ?? PLAN_JSON_SCHEMA,
      signal,
      timeoutMs,
      onProgress: (progress) => {
        received = progress.chars;
        if (progress.chars > maxChars) deadline.abort('too_large');
        else options.onProgress?.(progress);
      },
    });
    // The SDKs' stream iterators end quietly when their signal aborts: a reply cut short is an error, not a reply.
    if (signal.aborted) throw signal.reason;
    // Unstreamed replies arrive whole: the cap still applies.
    if (reply.text.length > maxChars) throw tooLarge(config, maxChars);
    // The server's JSON, untyped: a model name or token count it reports is checked before anyone shows it.
    return { ...reply, model: isModelId(reply.model) ? reply.model : config.model, usage: checkUsage(reply.usage) };
  } catch (error) {
    if (options.signal?.aborted) throw new InterruptedError('Provider request cancelled', { cause: error });
    if (deadline.signal.reason === 'too_large') throw tooLarge(config, maxChars);
    if (deadline.signal.aborted) {
      // The limit covers the whole reply: a reply that had started streaming did answer, it did not finish.
      const limit = `${Number((timeoutMs / 1000).toFixed(1))} s`;
      const what =
        received > 0
          ? `did not finish its reply within ${limit} (model ${config.model}): ${received.toLocaleString('en-US')} characters had arrived`
          : `did not answer within ${limit} (model ${config.model})`;
      throw new ProviderError(`${providerLabel(config)} ${what}`, {
        provider: config.name,
        code: 'provider_timeout',
        hint: 'Raise --timeout <ms> (or CLAWCODE_TIMEOUT_MS; it covers the whole reply), or try a faster model.',
        cause: error,
      });
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** A few words on why a request is retried, from the error's code. */
function retryReason(error: ProviderError): string {
  const reasons: Record<string, string> = {
    provider_rate_limited: 'rate limited',
    provider_overloaded: 'overloaded',
    provider_server_error: 'server error',
    provider_unreachable: 'connection failed',
  };
  return reasons[error.code] ?? (error.status ? `HTTP ${error.status}` : 'request failed');
}

/** The retry options of one call, with `onRetry` turned into a `RetryNotice`. */
export function retryOptions(config: ProviderConfig, options: PlanOptions): RetryOptions {
  const maxRetries = options.retry?.maxRetries ?? 2;
  return {
    ...options.retry,
    maxRetries,
    signal: options.signal,
    onRetry: ({ attempt, delayMs, error }) => {
      const reason = retryReason(error);
      const wait = delayMs >= 1000 ? `${Math.round(delayMs / 1000)} s` : `${Math.round(delayMs)} ms`;
      options.onRetry?.({
        attempt,
        maxRetries,
        delayMs,
        reason,
        message: `${reason}; retrying in ${wait}, ${attempt} of ${maxRetries}`,
      });
    },
  };
}

/** Throw the one-line error for a reply that stopped early. */
function checkFinish(config: ProviderConfig, reply: ProviderReply): void {
  const reason = reply.finishReason;
  if (reason === 'length' || reason === 'MAX_TOKENS') {
    const limit = config.maxOutputTokens ? ` (maxOutputTokens ${config.maxOutputTokens})` : '';
    throw new ProviderError(
      `${providerLabel(config)} reply was truncated at the output token limit${limit}; the plan is incomplete`,
      {
        provider: config.name,
        code: 'provider_truncated',
        hint: "Raise maxOutputTokens in this provider's entry of config.json, lower --budget, or split the task.",
      },
    );
  }
  if (reason && BLOCKED_FINISH.has(reason)) {
    throw new ProviderError(`${providerLabel(config)} refused the task (finish reason ${reason})`, {
      provider: config.name,
      code: 'provider_refusal',
      hint: 'Rephrase the task.',
    });
  }
}

/** Longest previous reply quoted back in the repair request, in characters. */
const REPAIR_QUOTE_CHARS = 20_000;

/** The user message of the one repair request: the task, the bad reply, and what was wrong. */
export function repairPrompt(userPrompt: string, badReply: string, detail: string): string {
  const quoted =
    badReply.length > REPAIR_QUOTE_CHARS ? `${badReply.slice(0, REPAIR_QUOTE_CHARS)}\n[... cut]` : badReply;
  return `${userPrompt}\n\n---\nYour previous reply was not a valid plan.\nProblem: ${detail}\n\nPrevious reply:\n${quoted}\n\nReply again with only the corrected JSON plan object, nothing else.`;
}

/** Load the client module of a backend (imports its SDK). */
export function loadProviderModule(provider: ProviderId): Promise<ProviderModule> {
  const load = CLIENT_MODULES[provider];
  if (!load)
    throw new ProviderError(`Unknown provider "${String(provider)}"`, {
      provider: String(provider),
      code: 'provider_unknown',
    });
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
    withRetries(
      () => completeWithTimeout(client, config, { system: systemPrompt, user }, options),
      retryOptions(config, options),
    );

  const first = await ask(userPrompt);
  let firstProblem: PlanParseError;
  try {
    checkFinish(config, first);
    const plan = parsePlan(first.text);
    return { plan, reply: first, usage: first.usage, repaired: false, ms: Math.round(performance.now() - started) };
  } catch (error) {
    if (!(error instanceof PlanParseError) || options.parseRepair === false) throw withReplies(error, [first]);
    firstProblem = error;
  }
  const second = await ask(repairPrompt(userPrompt, first.text, firstProblem.detail));
  try {
    checkFinish(config, second);
    const plan = parsePlan(second.text);
    return {
      plan,
      reply: second,
      usage: addUsage(first.usage, second.usage),
      repaired: true,
      ms: Math.round(performance.now() - started),
    };
  } catch (error) {
    throw withReplies(error, [first, second]);
  }
}

/** `error` with the paid replies that gave no plan attached (ClawcodeError `replies`), for the CLI to keep. */
function withReplies(error: unknown, replies: readonly ProviderReply[]): unknown {
  const texts = replies.map((r) => r.text).filter((t) => t.trim() !== '');
  if (error instanceof ClawcodeError && texts.length > 0) error.replies = texts;
  return error;
}

/**
 * Check a provider's credentials with one real lightweight call, which also looks up the model:
 * Groq lists the models, Gemini and Anthropic get the model, Azure sends a one-token request to the
 * deployment; the OpenAI module lists the models (cli/config/command.ts looks for the model in that list).
 *
 * @throws ProviderError (401 names the key source, code `provider_not_found` for an unknown model or
 *         deployment), ConfigError, InterruptedError
 */
export async function checkProviderCredentials(
  config: ProviderConfig,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<void> {
  const module = await loadProviderModule(config.provider);
  await module.checkCredentials(config, options);
}

/**
 * The models a provider lists, for a person to pick from (`:model`, `clawcode config`): OpenAI and every
 * OpenAI-compatible server (GET /v1/models), and Groq. Other providers have no list to offer here.
 *
 * @returns model ids in the server's order (llm/model-ids.ts `usableModelIds`), or undefined for a provider without a list
 * @throws ProviderError (key refused, server unreachable), InterruptedError
 */
export async function listProviderModels(
  config: ProviderConfig,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<string[] | undefined> {
  if (config.provider === 'openai')
    return usableModelIds(await (await import('./openai.js')).listModels(config, options));
  if (config.provider === 'groq') return usableModelIds(await (await import('./groq.js')).listModels(config, options));
  return undefined;
}
