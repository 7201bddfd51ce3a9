import { InterruptedError, ProviderError } from '../utils/errors.js';
import { ProviderRequestError } from './errors-map.js';

/**
 * Retries for provider calls, done once here for every client (the SDKs' own retries are off).
 * Policy: retry 429, 5xx and connection errors — i.e. `ProviderError.retryable` — at
 * most `maxRetries` times (default 2). The delay is the server's Retry-After / retry-after-ms when
 * given, else exponential backoff like the openai SDK's (0.5 s · 2ⁿ, capped at 8 s, up to 25 % less
 * by jitter). A Retry-After longer than `maxRetryAfterMs` is not waited for: the error is thrown.
 */

/** Tuning of `withRetries`; every field has a default. */
export interface RetryOptions {
  /** Cancels waiting between attempts (→ InterruptedError). */
  signal?: AbortSignal;
  /** Retries after the first attempt. @default 2 */
  maxRetries?: number;
  /** First backoff delay in ms when the server gives none. @default 500 */
  baseDelayMs?: number;
  /** Cap of the computed backoff in ms. @default 8000 */
  maxDelayMs?: number;
  /** Longest server-requested delay still waited for, in ms. @default 60000 */
  maxRetryAfterMs?: number;
  /** Called before each wait, e.g. to tell the person. */
  onRetry?: (info: { attempt: number; delayMs: number; error: ProviderError }) => void;
}

/** The delay before retry number `retry` (0-based) when the server named none, in ms. */
export function backoffDelayMs(
  retry: number,
  baseDelayMs = 500,
  maxDelayMs = 8000,
  random: () => number = Math.random,
): number {
  const delay = Math.min(baseDelayMs * 2 ** retry, maxDelayMs);
  return Math.round(delay * (1 - 0.25 * random()));
}

/**
 * Wait `ms` milliseconds, or until `signal` aborts.
 *
 * @throws InterruptedError when `signal` aborts before or during the wait
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new InterruptedError('Provider request cancelled'));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new InterruptedError('Provider request cancelled'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Run `attempt` until it succeeds, fails with a non-retryable error, or retries run out.
 *
 * @param attempt  called with the 0-based attempt number
 * @returns what the successful attempt returned
 * @throws the last error (unchanged), or InterruptedError when `signal` aborts during a wait
 */
export async function withRetries<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const maxRetries = options.maxRetries ?? 2;
  for (let n = 0; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!(error instanceof ProviderError) || !error.retryable || n >= maxRetries) throw error;
      const requested = error instanceof ProviderRequestError ? error.retryAfterMs : undefined;
      if (requested !== undefined && requested > (options.maxRetryAfterMs ?? 60_000)) throw error;
      const delayMs = requested ?? backoffDelayMs(n, options.baseDelayMs, options.maxDelayMs);
      options.onRetry?.({ attempt: n + 1, delayMs, error });
      await sleep(delayMs, options.signal);
    }
  }
}
