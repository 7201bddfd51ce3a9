import { InterruptedError, ProviderError } from '../utils/errors.js';
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
};

/** A human name for a configured provider: the entry name, plus the backend when they differ. */
export function providerLabel(config: Pick<ProviderConfig, 'provider' | 'name' | 'preset'>): string {
  const base = config.preset ?? PROVIDER_LABELS[config.provider] ?? config.provider;
  return config.name && config.name !== config.provider && config.name !== config.preset ? `${config.name} (${base})` : base;
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

/**
 * The provider's own message from an SDK error: `error.error.message` (OpenAI/Groq body),
 * the `error.message` inside a genai JSON message, or the error's message with SDK noise removed.
 * Cut to one line of at most 300 characters.
 */
export function providerMessage(error: unknown): string {
  const shape = (error ?? {}) as ErrorShape;
  let text: string | undefined;
  const body = shape.error as { message?: unknown; error?: { message?: unknown } } | undefined;
  if (body && typeof body === 'object') {
    if (typeof body.message === 'string') text = body.message;
    else if (body.error && typeof body.error.message === 'string') text = body.error.message;
  }
  if (!text && typeof shape.message === 'string') {
    text = shape.message;
    // genai puts the whole JSON error body in the message.
    const brace = text.indexOf('{');
    if (brace !== -1) {
      try {
        const parsed = JSON.parse(text.slice(brace)) as { error?: { message?: unknown } };
        if (typeof parsed.error?.message === 'string') text = parsed.error.message;
      } catch {
        // not JSON: keep the text
      }
    }
    // openai prefixes "401 " / "400 " to its messages; the status is reported separately.
    text = text.replace(/^\d{3}\s+/, '');
  }
  const line = (text ?? String(error)).replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

/** Whether the error means the request was aborted (by our signal or the SDK's). */
export function isAbortError(error: unknown): boolean {
  const name = (error as ErrorShape | null)?.name;
  return name === 'AbortError' || name === 'APIUserAbortError';
}

/**
 * Delay asked for by the server, in ms: `retry-after-ms`, then `Retry-After` (seconds or an HTTP
 * date), then a Gemini `RetryInfo.retryDelay` ("3s") in the body. Undefined when none is given.
 */
export function retryAfterMs(error: unknown, now: number = Date.now()): number | undefined {
  const headers = (error as ErrorShape | null)?.headers;
  const get = (name: string): string | undefined => {
    if (!headers || typeof headers !== 'object') return undefined;
    if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
    const value = (headers as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : undefined;
  };
  const ms = Number(get('retry-after-ms'));
  if (get('retry-after-ms') !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const after = get('retry-after');
  if (after !== undefined) {
    const seconds = Number(after);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  const message = (error as ErrorShape | null)?.message;
  if (typeof message === 'string') {
    const match = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(message);
    if (match?.[1]) return Number(match[1]) * 1000;
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
  constructor(
    message: string,
    options: ConstructorParameters<typeof ProviderError>[1] & { retryAfterMs?: number },
  ) {
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
  const status = errorStatus(error);
  const detail = providerMessage(error);
  const model = context.model ?? config.deployment ?? config.model;
  if (isAuthFailure(error)) {
    const source = config.keySource ?? 'the API key';
    return new ProviderRequestError(
      `${label} rejected the API key from ${source} (HTTP ${status}): ${detail}`,
      { provider, status, code: 'provider_auth', hint: `Check ${source}, or run \`clawcode config\`.`, cause: error },
    );
  }
  if (status === 404) {
    const what = config.provider === 'azure' ? 'deployment' : 'model';
    return new ProviderRequestError(`${label}: unknown ${what} "${model}" (HTTP 404): ${detail}`, {
      provider,
      status,
      code: 'provider_not_found',
      hint: `Check the ${what} name (--model, or the entry in \`clawcode config\`)${config.baseURL ? ` and the base URL ${config.baseURL}` : ''}.`,
      cause: error,
    });
  }
  if (status !== undefined) {
    const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
    const what = status === 429 ? 'rate limited the request' : status >= 500 ? 'had a server error' : 'refused the request';
    return new ProviderRequestError(`${label} ${what} (HTTP ${status}): ${detail}`, {
      provider,
      status,
      retryable,
      retryAfterMs: retryAfterMs(error),
      code: status === 429 ? 'provider_rate_limited' : status >= 500 ? 'provider_server_error' : 'provider_bad_request',
      cause: error,
    });
  }
  const code = networkCode(error);
  if (isConnectionError(error)) {
    const where = config.baseURL ?? config.endpoint;
    return new ProviderRequestError(`Could not reach ${label}${where ? ` at ${where}` : ''}: ${detail}${code ? ` (${code})` : ''}`, {
      provider,
      retryable: true,
      code: 'provider_unreachable',
      hint: 'Check the network, the base URL, and that the server is running.',
      cause: error,
    });
  }
  // Anything else (an unparseable stream, an SDK surprise) is reported, not retried.
  return new ProviderRequestError(`${label} request failed: ${detail}`, { provider, code: 'provider_error', cause: error });
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
export function isConnectionError(error: unknown): boolean {
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
  return status === 400 && /API key not valid|API_KEY_INVALID/i.test(`${providerMessage(error)} ${String((error as ErrorShape | null)?.message ?? '')}`);
}

/** Whether a 400 is about structured output (`response_format`, json_schema, responseSchema...). */
export function isResponseFormatError(error: unknown): boolean {
  if (errorStatus(error) !== 400 && errorStatus(error) !== 422) return false;
  const text = `${providerMessage(error)} ${JSON.stringify((error as ErrorShape).error ?? '')}`.toLowerCase();
  return /response_?format|json_?schema|json_object|response_?mime_?type|response_?(json_)?schema|structured output|json mode/.test(text);
}
