import { describe, expect, it } from 'vitest';
import { getStructuredPlan } from '../../llm/provider.js';
import type { ProviderConfig } from '../../llm/types.js';
import { ProviderError } from '../../utils/errors.js';
import { SAMPLE_PLAN, useLoopbackProvider } from '../support/provider-env.js';
import { replies } from '../support/provider-server.js';

// One deadline over the whole reply, and a size cap: a reply that trickles in (one character every
// 100 ms) must not outlive the timeout, and an endless stream must be cut off, not read into memory.

const server = useLoopbackProvider();
const fast = { retry: { baseDelayMs: 1, maxRetries: 0 } };

const backends: { name: string; config: () => ProviderConfig }[] = [
  {
    name: 'openai',
    config: () => ({ provider: 'openai', name: 'openai', model: 'm', apiKey: 'k', baseURL: `${server.url}/v1` }),
  },
  {
    name: 'gemini',
    config: () => ({ provider: 'gemini', name: 'gemini', model: 'gemini-2.5-flash', apiKey: 'k', baseURL: server.url }),
  },
  {
    name: 'anthropic',
    config: () => ({
      provider: 'anthropic',
      name: 'anthropic',
      model: 'claude-sonnet-4-6',
      apiKey: 'k',
      baseURL: server.url,
    }),
  },
];

describe.each(backends)('$name: the timeout bounds the whole reply', ({ config }) => {
  it('a reply trickling in never outlives the deadline', async () => {
    server.reply(replies.trickle(SAMPLE_PLAN, 100));
    const started = performance.now();
    const error = await getStructuredPlan(config(), 's', 'u', { ...fast, timeoutMs: 800 }).catch((e: unknown) => e);
    const ms = performance.now() - started;
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe('provider_timeout');
    // It had started to answer: the message says the reply did not finish, and how much had come.
    expect((error as ProviderError).message).toMatch(
      /did not finish its reply within 0\.8 s \(model .+\): \d+ characters had arrived$/,
    );
    expect(ms).toBeLessThan(3000);
  }, 15_000);

  it('an endless stream is cut off at the size cap with one clear line, not retried', async () => {
    server.reply(replies.flood(64 * 1024));
    const error = await getStructuredPlan(config(), 's', 'u', {
      retry: { baseDelayMs: 1 },
      maxReplyChars: 1_000_000,
      timeoutMs: 10_000,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe('provider_reply_too_large');
    expect((error as ProviderError).message).toMatch(/reply passed 1,000,000 characters; stopped reading it/);
    expect(server.completions()).toHaveLength(1);
  }, 15_000);
});

describe('the deadline and the cap leave normal replies alone', () => {
  it('a reply that arrives in time and under the cap is parsed', async () => {
    server.reply({ type: 'text', text: JSON.stringify(SAMPLE_PLAN), chunkChars: 40, intervalMs: 5 });
    const result = await getStructuredPlan(backends[0]!.config(), 's', 'u', {
      ...fast,
      timeoutMs: 5000,
      maxReplyChars: 10_000,
    });
    expect(result.plan.patches).toHaveLength(1);
  });

  it('an unstreamed reply over the cap is refused too', async () => {
    server.reply(replies.plan({ ...SAMPLE_PLAN, analysis: 'x'.repeat(5000) }));
    const groq: ProviderConfig = {
      provider: 'groq',
      name: 'groq',
      model: 'llama-3.3-70b-versatile',
      apiKey: 'k',
      baseURL: server.url,
    };
    await expect(getStructuredPlan(groq, 's', 'u', { ...fast, maxReplyChars: 1000 })).rejects.toThrow(
      /reply passed 1,000 characters/,
    );
  });
});
