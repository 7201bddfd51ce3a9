import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getStructuredPlan } from '../../llm/provider.js';
import type { ProviderConfig, Usage } from '../../llm/types.js';
import { SAMPLE_PLAN, useLoopbackProvider } from '../support/provider-env.js';
import { replies, type RecordedRequest } from '../support/provider-server.js';

// Azure OpenAI streams as the service sent them (tests/support/fixtures/azure/*.sse, recorded by other
// projects, with their sources in the README there), replayed byte for byte through the real openai SDK.

const server = useLoopbackProvider();
const fast = { retry: { baseDelayMs: 1 } };
const planChars = JSON.stringify(SAMPLE_PLAN).length;

function azure(apiVersion: string): ProviderConfig {
  return {
    provider: 'azure',
    name: 'work',
    model: 'dep',
    deployment: 'dep',
    endpoint: server.url,
    apiKey: 'azure-key-0123456789',
    apiVersion,
  };
}

/** Azure's answer: the stream recorded for a request that asked for usage, or the one recorded for a request that did not. */
function answer(asked: string, unasked: string): (request: RecordedRequest) => ReturnType<typeof replies.fixture> {
  return (request) => replies.fixture(request.body?.stream_options?.include_usage ? asked : unasked, SAMPLE_PLAN);
}

describe('usage in recorded Azure streams', () => {
  const withUsage: [string, string, Usage][] = [
    // No prompt_filter_results chunk, `usage: null` on every chunk, usage in a last chunk with no choices.
    [
      'azure/stream-2023-03-15-preview-usage',
      '2023-03-15-preview',
      { inputTokens: 24, outputTokens: 4, totalTokens: 28 },
    ],
    // A prompt_filter_results chunk with no choices first, usage last.
    [
      'azure/stream-2024-08-01-preview-usage',
      '2024-08-01-preview',
      { inputTokens: 24, outputTokens: 2, totalTokens: 26 },
    ],
    // gpt-4o-mini in JSON mode and with a strict json_schema: usage with token details (no cached tokens).
    ['azure/stream-json-object-usage', 'v1', { inputTokens: 278, outputTokens: 47, totalTokens: 325 }],
    ['azure/stream-4o-mini-strict-usage', 'v1', { inputTokens: 172, outputTokens: 30, totalTokens: 202 }],
  ];
  it.each(withUsage)('%s: the usage Azure sent (api-version %s)', async (fixture, apiVersion, usage) => {
    server.reply(replies.fixture(fixture, SAMPLE_PLAN));
    const result = await getStructuredPlan(azure(apiVersion), 's', 'u', fast);
    expect(result.reply.text).toBe(JSON.stringify(SAMPLE_PLAN));
    expect(result.usage).toEqual(usage);
  });

  const withoutUsage: [string, string][] = [
    ['azure/stream-2024-02-01', '2024-02-01'],
    ['azure/stream-json-object', '2024-10-21'],
    ['azure/stream-4o-mini-strict', '2024-10-21'],
    // Content-filter chunks after the finish chunk, and no newline after `data: [DONE]`.
    ['azure/stream-async-filter', '2024-10-21'],
  ];
  it.each(withoutUsage)('%s: no usage in the stream, so it is estimated and says so', async (fixture, apiVersion) => {
    server.reply(replies.fixture(fixture, SAMPLE_PLAN));
    const result = await getStructuredPlan(azure(apiVersion), 's', 'u', fast);
    expect(result.reply.text).toBe(JSON.stringify(SAMPLE_PLAN));
    expect(result.usage).toMatchObject({ estimated: true, outputTokens: Math.ceil(planChars / 4) });
  });
});

describe('the loopback server replays a recorded stream', () => {
  it('byte for byte, but for the answer text', async () => {
    server.reply(replies.fixture('azure/stream-async-filter', SAMPLE_PLAN));
    const response = await fetch(`${server.url}/openai/deployments/dep/chat/completions?api-version=2024-10-21`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ stream: true }),
    });
    const recorded = readFileSync(
      new URL('../support/fixtures/azure/stream-async-filter.sse', import.meta.url),
      'utf8',
    );
    expect(await response.text()).toBe(recorded.replace('"$TEXT"', JSON.stringify(JSON.stringify(SAMPLE_PLAN))));
  });
});

describe('Azure is asked for usage on every api-version', () => {
  const cases: [string, string, string, string, Usage][] = [
    [
      '2024-02-01',
      'json_object',
      'azure/stream-json-object-usage',
      'azure/stream-json-object',
      { inputTokens: 278, outputTokens: 47, totalTokens: 325 },
    ],
    [
      '2024-08-01-preview',
      'json_schema',
      'azure/stream-4o-mini-strict-usage',
      'azure/stream-4o-mini-strict',
      { inputTokens: 172, outputTokens: 30, totalTokens: 202 },
    ],
  ];
  it.each(cases)(
    '%s (%s) sends stream_options and reports the usage Azure sends back',
    async (v, mode, asked, unasked, usage) => {
      server.reply(answer(asked, unasked));
      const result = await getStructuredPlan(azure(v), 's', 'u', fast);
      const [request] = server.completions();
      expect(request?.query['api-version']).toBe(v);
      expect(request?.body.response_format.type).toBe(mode);
      expect(request?.body.stream_options).toEqual({ include_usage: true });
      expect(result.usage).toEqual(usage);
    },
  );

  it('an Azure that refuses stream_options (as it did before late 2024) is asked again without it; usage is estimated', async () => {
    const refusing = (request: RecordedRequest): ReturnType<typeof replies.fixture> =>
      request.body?.stream_options
        ? replies.fixture('azure/error-400-stream-options')
        : replies.fixture('azure/stream-2024-02-01', SAMPLE_PLAN);
    server.reply(refusing, refusing);
    const result = await getStructuredPlan(azure('2024-02-01'), 's', 'u', fast);
    expect(server.completions().map((r) => Boolean(r.body.stream_options))).toEqual([true, false]);
    expect(result.reply.text).toBe(JSON.stringify(SAMPLE_PLAN));
    expect(result.usage?.estimated).toBe(true);
  });

  it('an estimate stays marked as one when a repair request adds its usage', async () => {
    // The first reply is not a plan (usage reported), the repair's stream carries none (usage estimated).
    server.reply(
      replies.fixture('azure/stream-json-object-usage', 'Sure! Here is the plan.'),
      replies.fixture('azure/stream-2024-02-01', SAMPLE_PLAN),
    );
    const result = await getStructuredPlan(azure('2024-02-01'), 's', 'u', fast);
    expect(result.repaired).toBe(true);
    expect(result.usage).toMatchObject({ estimated: true, outputTokens: 47 + Math.ceil(planChars / 4) });
  });
});
