import { InterruptedError, ProviderError } from '../utils/errors.js';
import { shownUrl, withoutKey } from './credential-text.js';
import type { ProviderConfig } from './types.js';

/**
 * Turning SDK and HTTP failures into one-line `ProviderError`s.
 *
 * The openai and groq-sdk errors (Stainless-generated: `.status`, `.headers`, `.error`) and the
 * @google/genai `ApiError` (`.status`, `.message` = the JSON error body) are recognised by shape,
 * not by class, so this file imports no SDK. Messages never contain a key: they name where the key
 * came from (`ProviderConfig.keySource`) instead.
 */

/** Labels used in messages, e.g. "OpenAI (openai)". */
const PROVIDER_LABELS: Record<string, string> = {
  openai: 'OpenAI',
  azure: 'Azure OpenAI',
  groq: 'Groq',
  gemini: 'Gemini',
  anthropic: 'Anthropic',
  openrouter: 'OpenRouter',
  deepseek: 'DeepSeek',
  mistral: 'Mistral',
};

/** The host of a URL, or undefined when it does not parse. */
function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).host || undefined;
  } catch {
    return undefined;
  }
}

/**
 * A human name for a configured provider: the preset or backend label, with the entry name when it
 * differs. The openai client pointed at another server (no preset) is named by that server's host,
 * never "OpenAI", so a failure at some OpenAI-compatible service does not blame OpenAI.
 */
export function providerLabel(config: Pick<ProviderConfig, 'provider' | 'name' | 'preset' | 'baseURL'>): string {
  let base = config.preset
    ? (PROVIDER_LABELS[config.preset] ?? config.preset)
    : (PROVIDER_LABELS[config.provider] ?? config.provider);
  const host = config.provider === 'openai' && !config.preset ? hostOf(config.baseURL) : undefined;
  if (host && host !== 'api.openai.com') base = host;
  return config.name && config.name !== config.provider && config.name !== config.preset
    ? `${config.name} (${base})`
    : base;
}

interface ErrorShape {
  status?: unknown;
  headers?: unknown;
  error?: unknown;
  message?: unknown;
  name?: unknown;
  code?: unknown;
}

/** The HTTP status carried by an SDK error, if any. */
export function errorStatus(error: unknown): number | undefined {
  const status = (error as ErrorShape | null)?.status;
  return typeof status === 'number' && status >= 100 ? status : undefined;
}

/** The innermost error object of a provider error body, as the services send it. */
export interface ErrorBody {
  message?: string;
  /** Gemini's status name (RESOURCE_EXHAUSTED ...) or Anthropic's error type (overloaded_error ...). */
  status?: string;
  type?: string;
  /** Gemini's HTTP status code (also set by @google/genai for a status it has no error class for). */
  code?: unknown;
  /** Gemini `google.rpc` details (RetryInfo, QuotaFailure ...). */
  details?: unknown[];
  /** OpenRouter: `{ raw, provider_name }` naming the upstream failure. */
  metadata?: { raw?: unknown; provider_name?: unknown };
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  const brace = text.indexOf('{');
  if (brace === -1) return undefined;
  try {
    const parsed: unknown = JSON.parse(text.slice(brace));
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Dig the provider's own error object out of an SDK error, however deep it was wrapped. The openai,
 * groq and anthropic SDKs keep the body in `.error` (`{message}` or `{type, error: {message}}`);
 * @google/genai puts the body's JSON text in `.message`, and when the service answered a streamed
 * request with `content-type: text/event-stream` it wraps that text once more as
 * `{"error":{"message":"<the JSON body as text>"}}`. Each level is unwrapped until a plain message.
 *
 * @returns the innermost `{message, status, details, metadata}`, or undefined when there is none
 */
export function errorBody(error: unknown): ErrorBody | undefined {
  const shape = (error ?? {}) as ErrorShape;
  let current: unknown =
    shape.error && typeof shape.error === 'object'
      ? shape.error
      : typeof shape.message === 'string'
        ? parseJsonObject(shape.message)
        : undefined;
  let found: ErrorBody | undefined;
  for (let depth = 0; current && typeof current === 'object' && depth < 6; depth++) {
    const object = current as Record<string, unknown>;
    if (object.error && typeof object.error === 'object') {
      current = object.error;
      continue;
    }
    found = object as ErrorBody;
    const inner =
      typeof object.message === 'string'
        ? parseJsonObject(object.message.trim().startsWith('{') ? object.message : '')
        : undefined;
    if (!inner) break;
    current = inner;
  }
  return found;
}

/**
 * The provider's own message from an SDK error, unwrapped from every level of JSON (see
 * `errorBody`), with OpenRouter's upstream reason (`metadata.raw`) appended. Cut to the first line of
 * a multi-line message, and to at most 300 characters.
 */
export function providerMessage(error: unknown): string {
  const shape = (error ?? {}) as ErrorShape;
  const body = errorBody(error);
  let text = typeof body?.message === 'string' && body.message.trim() ? body.message : undefined;
  if (!text && typeof shape.message === 'string') {
    // openai prefixes "401 " / "400 " to its messages; the status is reported separately.
    text = shape.message.replace(/^\d{3}\s+/, '');
  }
  // Gemini appends quota details as "\n* Quota exceeded for metric ..." lines: the first line says it.
  const firstLine = (text ?? String(error)).trim().split(/\r?\n/)[0] ?? '';
  let line = firstLine.replace(/\s+/g, ' ').trim();
  const raw = body?.metadata?.raw;
  if (raw !== undefined && raw !== null) {
    const upstream = typeof body?.metadata?.provider_name === 'string' ? `${body.metadata.provider_name}: ` : '';
    const rawText = (typeof raw === 'string' ? raw : JSON.stringify(raw)).replace(/\s+/g, ' ').trim();
    line = `${line} (${upstream}${rawText})`;
  }
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

/** Whether the error means the request was aborted (by our signal or the SDK's). */
function isAbortError(error: unknown): boolean {
  const name = (error as ErrorShape | null)?.name;
  return name === 'AbortError' || name === 'APIUserAbortError';
}

/** `google.rpc.RetryInfo.retryDelay` ("47s", "34.4s") among a Gemini error's details, in ms. */
function retryInfoDelayMs(body: ErrorBody | undefined): number | undefined {
  for (const detail of Array.isArray(body?.details) ? body.details : []) {
    const info = detail as { '@type'?: unknown; retryDelay?: unknown };
    if (typeof info.retryDelay !== 'string' || !String(info['@type'] ?? '').endsWith('RetryInfo')) continue;
    const match = /^(\d+(?:\.\d+)?)s$/.exec(info.retryDelay.trim());
    if (match?.[1]) return Math.round(Number(match[1]) * 1000);
  }
  return undefined;
}

/** A response header carried by an SDK error (a `Headers` object or a plain record), lower-case `name`. */
function headerOf(error: unknown, name: string): string | undefined {
  const headers = (error as ErrorShape | null)?.headers;
  if (!headers || typeof headers !== 'object') return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Delay asked for by the server, in ms: `retry-after-ms`, then `Retry-After` (seconds or an HTTP
 * date), then a Gemini `RetryInfo.retryDelay` ("3s") in the body. Undefined when none is given.
 */
export function retryAfterMs(error: unknown, now: number = Date.now()): number | undefined {
  const get = (name: string): string | undefined => headerOf(error, name);
  const ms = Number(get('retry-after-ms'));
  if (get('retry-after-ms') !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const after = get('retry-after');
  if (after !== undefined) {
    const seconds = Number(after);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  const delay = retryInfoDelayMs(errorBody(error));
  if (delay !== undefined) return delay;
  const message = (error as ErrorShape | null)?.message;
  if (typeof message === 'string') {
    // A body that did not parse: look for the field in the text, quotes escaped or not.
    const match = /\\?"retryDelay\\?"\s*:\s*\\?"(\d+(?:\.\d+)?)s\\?"/.exec(message);
    if (match?.[1]) return Math.round(Number(match[1]) * 1000);
  }
  return undefined;
}

/**
 * A `ProviderError` that may carry the server's requested retry delay in ms.
 * Thrown by every client for HTTP and connection failures.
 */
export class ProviderRequestError extends ProviderError {
  /** Delay the server asked for before a retry (Retry-After), in ms. */
  readonly retryAfterMs?: number;
  constructor(message: string, options: ConstructorParameters<typeof ProviderError>[1] & { retryAfterMs?: number }) {
    super(message, options);
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** What a failed request was about, for the message. */
export interface ErrorContext {
  config: ProviderConfig;
  /** The model or deployment the request named. */
  model?: string;
}

/**
 * Map any error thrown by an SDK call to a one-line `ProviderError` (or `InterruptedError` for an
 * abort). Already-mapped `ClawcodeError`s pass through.
 *
 * - 401/403 name the key's source (`config.keySource`), never the key;
 * - 404 names the model or deployment;
 * - 400/422 show the provider's message;
 * - 408/409/429/5xx and connection failures are `retryable` (with `retryAfterMs` when sent).
 */
export function toProviderError(error: unknown, context: ErrorContext): ProviderError | InterruptedError {
  if (error instanceof ProviderError || error instanceof InterruptedError) return error;
  const { config } = context;
  const label = providerLabel(config);
  const provider = config.name || config.provider;
  if (isAbortError(error)) return new InterruptedError('Provider request cancelled', { cause: error });
  // An error event inside a 200 stream (Anthropic `event: error`) has no HTTP status: its type names one.
  const streamed: Record<string, number> = { overloaded_error: 529, rate_limit_error: 429, api_error: 500 };
  // @google/genai throws a plain Error for a status outside 400-599 (a redirect): its body names the code.
  const bodyCode = errorBody(error)?.code;
  const redirect = typeof bodyCode === 'number' && bodyCode >= 300 && bodyCode < 400 ? bodyCode : undefined;
  const status = errorStatus(error) ?? streamed[errorBody(error)?.type ?? ''] ?? redirect;
  // Gateways and proxies echo the key they refused ("Invalid API key: sk-..."): the message is shown without it.
  const detail = withoutKey(providerMessage(error), config.apiKey);
  const model = context.model ?? config.deployment ?? config.model;
  if (isAuthFailure(error)) {
    const source = config.keySource ?? 'the API key';
    return new ProviderRequestError(`${label} rejected the API key from ${source} (HTTP ${status}): ${detail}`, {
      provider,
      status,
      code: 'provider_auth',
      hint: `Check ${source}, or run \`clawcode config\`.`,
      cause: error,
    });
  }
  if (status === 404) {
    const what = config.provider === 'azure' ? 'deployment' : 'model';
    return new ProviderRequestError(`${label}: unknown ${what} "${model}" (HTTP 404): ${detail}`, {
      provider,
      status,
      code: 'provider_not_found',
      hint: `Check the ${what} name (--model, or the entry in \`clawcode config\`)${config.baseURL ? ` and the base URL ${shownUrl(config.baseURL)}` : ''}.`,
      cause: error,
    });
  }
  if (status !== undefined && status >= 300 && status < 400) {
    // llm/guarded-fetch.ts follows no redirect: the key and the project's code would go along to the new address.
    const to = hostOf(headerOf(error, 'location') ?? '');
    return new ProviderRequestError(
      `${label} answered with a redirect (HTTP ${status})${to ? ` to ${to}` : ''}; clawcode does not follow redirects, so the API key and the code stay where they were sent`,
      {
        provider,
        status,
        code: 'provider_redirect',
        hint: 'If the new address is the same service, set it as the base URL (or endpoint) in `clawcode config`.',
        cause: error,
      },
    );
  }
  if (status !== undefined) {
    const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
    const overloaded = status === 529 || errorBody(error)?.type === 'overloaded_error';
    const what =
      status === 429
        ? 'rate limited the request'
        : overloaded
          ? 'is overloaded'
          : status >= 500
            ? 'had a server error'
            : 'refused the request';
    return new ProviderRequestError(`${label} ${what} (HTTP ${status}): ${detail}`, {
      provider,
      status,
      retryable,
      retryAfterMs: retryAfterMs(error),
      code:
        status === 429
          ? 'provider_rate_limited'
          : overloaded
            ? 'provider_overloaded'
            : status >= 500
              ? 'provider_server_error'
              : 'provider_bad_request',
      ...(status === 429 || overloaded ? { hint: 'Wait a minute and run the task again, or pick another model.' } : {}),
      cause: error,
    });
  }
  const code = networkCode(error);
  if (isConnectionError(error)) {
    const configured = config.baseURL ?? config.endpoint;
    const where = configured === undefined ? undefined : shownUrl(configured);
    // When the label is the server's host already, the URL alone says it.
    const target = where ? (where.includes(label) ? where : `${label} at ${where}`) : label;
    return new ProviderRequestError(`Could not reach ${target}: ${detail}${code ? ` (${code})` : ''}`, {
      provider,
      retryable: true,
      code: 'provider_unreachable',
      hint: 'Check the network, the base URL, and that the server is running.',
      cause: error,
    });
  }
  // Anything else (an unparseable stream, an SDK surprise) is reported, not retried.
  return new ProviderRequestError(`${label} request failed: ${detail}`, {
    provider,
    code: 'provider_error',
    cause: error,
  });
}

/** The first system or undici error code (ECONNREFUSED, UND_ERR_SOCKET...) in an error's cause chain. */
function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(code)) return code;
    const errors = (current as { errors?: unknown }).errors;
    current = Array.isArray(errors) && errors.length > 0 ? errors[0] : (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Whether a failure happened on the way (no HTTP status): the SDKs' connection errors, fetch's
 * "fetch failed" / "terminated" TypeErrors, or a network error code anywhere in the cause chain.
 */
function isConnectionError(error: unknown): boolean {
  if (errorStatus(error) !== undefined) return false;
  const name = (error as object | null)?.constructor?.name ?? '';
  if (/^APIConnection(Timeout)?Error$/.test(name)) return true;
  if (error instanceof TypeError && /fetch failed|terminated|network/i.test(error.message)) return true;
  return networkCode(error) !== undefined;
}

/**
 * Whether the error means the key was refused: 401/403, or Gemini's 400 "API key not valid"
 * (reason API_KEY_INVALID).
 */
export function isAuthFailure(error: unknown): boolean {
  const status = errorStatus(error);
  if (status === 401 || status === 403) return true;
  return (
    status === 400 &&
    /API key not valid|API_KEY_INVALID/i.test(
      `${providerMessage(error)} ${String((error as ErrorShape | null)?.message ?? '')}`,
    )
  );
}

/** Whether a 400 is about structured output (`response_format`, json_schema, responseSchema...). */
export function isResponseFormatError(error: unknown): boolean {
  if (errorStatus(error) !== 400 && errorStatus(error) !== 422) return false;
  const text = `${providerMessage(error)} ${JSON.stringify((error as ErrorShape).error ?? '')}`.toLowerCase();
  return /response_?format|json_?schema|json_object|response_?mime_?type|response_?(json_)?schema|structured output|json mode/.test(
    text,
  );
}
