import { describe, expect, it } from 'vitest';
import { ProviderRequestError, retryAfterMs, toProviderError, isResponseFormatError } from '../../llm/errors-map.js';
import { backoffDelayMs, withRetries } from '../../llm/retry.js';
import type { ProviderConfig } from '../../llm/types.js';
import { InterruptedError, ProviderError } from '../../utils/errors.js';

const config: ProviderConfig = {
  provider: 'openai',
  name: 'openai',
  model: 'gpt-4o-mini',
  keySource: 'OPENAI_API_KEY',
};

function retryable(after?: number): ProviderRequestError {
  return new ProviderRequestError('busy', { provider: 'openai', status: 503, retryable: true, retryAfterMs: after });
}

describe('withRetries', () => {
  it('retries a retryable error at most twice', async () => {
    let calls = 0;
    await expect(
      withRetries(async () => {
        calls++;
        throw retryable(0);
      }),
    ).rejects.toThrow('busy');
    expect(calls).toBe(3);
  });

  it('does not retry a non-retryable error', async () => {
    let calls = 0;
    const fail = new ProviderError('bad key', { provider: 'openai', status: 401 });
    await expect(
      withRetries(async () => {
        calls++;
        throw fail;
      }),
    ).rejects.toBe(fail);
    expect(calls).toBe(1);
  });

  it('waits the server-given delay, and reports each retry', async () => {
    const delays: number[] = [];
    let calls = 0;
    const started = Date.now();
    const value = await withRetries(
      async () => {
        if (++calls < 3) throw retryable(40);
        return 'ok';
      },
      { onRetry: ({ delayMs }) => delays.push(delayMs) },
    );
    expect(value).toBe('ok');
    expect(delays).toEqual([40, 40]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(75);
  });

  it('gives up at once on a Retry-After longer than maxRetryAfterMs', async () => {
    let calls = 0;
    await expect(
      withRetries(async () => {
        calls++;
        throw retryable(120_000);
      }),
    ).rejects.toThrow('busy');
    expect(calls).toBe(1);
  });

  it('an abort during the wait is an InterruptedError', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    await expect(
      withRetries(
        async () => {
          throw retryable(10_000);
        },
        { signal: controller.signal, maxRetryAfterMs: 60_000 },
      ),
    ).rejects.toBeInstanceOf(InterruptedError);
  });

  it('backoff doubles from the base, is capped, and jitter only shortens it by up to 25 %', () => {
    expect(backoffDelayMs(0, 500, 8000, () => 0)).toBe(500);
    expect(backoffDelayMs(3, 500, 8000, () => 0)).toBe(4000);
    expect(backoffDelayMs(10, 500, 8000, () => 0)).toBe(8000);
    expect(backoffDelayMs(1, 500, 8000, () => 1)).toBe(750);
  });
});

describe('errors-map', () => {
  it('reads retry-after-ms, Retry-After seconds and dates, and Gemini retryDelay', () => {
    expect(retryAfterMs({ headers: new Headers({ 'retry-after-ms': '250' }) })).toBe(250);
    expect(retryAfterMs({ headers: new Headers({ 'retry-after': '3' }) })).toBe(3000);
    expect(retryAfterMs({ headers: new Headers({ 'retry-after': new Date(10_000).toUTCString() }) }, 4000)).toBe(6000);
    expect(retryAfterMs({ message: '{"error":{"details":[{"retryDelay":"7s"}]}}' })).toBe(7000);
    expect(retryAfterMs(new Error('x'))).toBeUndefined();
  });

  it('401 names the key source and never the key; an abort maps to InterruptedError', () => {
    const error = toProviderError(
      { status: 401, error: { message: 'Incorrect API key provided: sk-abc***xyz' } },
      { config },
    );
    expect(error.message).toBe(
      'OpenAI rejected the API key from OPENAI_API_KEY (HTTP 401): Incorrect API key provided: sk-abc***xyz',
    );
    expect(toProviderError({ name: 'APIUserAbortError' }, { config })).toBeInstanceOf(InterruptedError);
  });

  it('Gemini\'s 400 "API key not valid" is an auth error; genai JSON messages are unwrapped', () => {
    const genai = {
      status: 400,
      message:
        '{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}',
    };
    const error = toProviderError(genai, {
      config: { ...config, provider: 'gemini', name: 'gemini', keySource: 'GEMINI_API_KEY' },
    });
    expect(error.message).toBe(
      'Gemini rejected the API key from GEMINI_API_KEY (HTTP 400): API key not valid. Please pass a valid API key.',
    );
  });

  it('recognises 400s about structured output, and only those', () => {
    expect(
      isResponseFormatError({
        status: 400,
        error: { message: "'response_format.type' must be 'json_schema' or 'text'" },
      }),
    ).toBe(true);
    expect(
      isResponseFormatError({
        status: 400,
        error: { message: 'This model does not support response format `json_schema`' },
      }),
    ).toBe(true);
    expect(isResponseFormatError({ status: 400, error: { message: 'context length exceeded' } })).toBe(false);
    expect(isResponseFormatError({ status: 500, error: { message: 'response_format broke' } })).toBe(false);
  });
});

describe('connection errors', () => {
  it('fetch failures are retryable "could not reach"; other surprises are reported once', () => {
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
    });
    const mapped = toProviderError(refused, {
      config: { ...config, baseURL: 'http://127.0.0.1:9/v1' },
    }) as ProviderError;
    expect(mapped.message).toBe('Could not reach http://127.0.0.1:9/v1: fetch failed (ECONNREFUSED)');
    expect(mapped.retryable).toBe(true);
    const odd = toProviderError(new Error('Incomplete JSON segment at the end'), { config }) as ProviderError;
    expect(odd.message).toBe('OpenAI request failed: Incomplete JSON segment at the end');
    expect(odd.retryable).toBe(false);
  });
});
