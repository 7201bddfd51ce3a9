import { describe, expect, it } from 'vitest';
import { resolveProviderConfig } from '../../config/config.js';
import { estimateCostUsd } from '../../config/prices.js';
import { PLAN_TOOL_NAME, splitStablePrefix } from '../../llm/anthropic.js';
import { PLAN_JSON_SCHEMA } from '../../utils/plan.js';
import { checkProviderCredentials, getStructuredPlan, type RetryNotice } from '../../llm/provider.js';
import type { ProviderConfig } from '../../llm/types.js';
import { type ProviderError } from '../../utils/errors.js';
import { SAMPLE_PLAN, useLoopbackProvider } from '../support/provider-env.js';
import { replies } from '../support/provider-server.js';

const KEY = 'sk-ant-test-0123456789';
const server = useLoopbackProvider({ apiKey: KEY, models: ['claude-sonnet-4-6'] });
const fast = { retry: { baseDelayMs: 1 } };

function anthropic(overrides: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    provider: 'anthropic',
    name: 'anthropic',
    model: 'claude-sonnet-4-6',
    apiKey: KEY,
    baseURL: server.url,
    keySource: 'ANTHROPIC_API_KEY',
    ...overrides,
  };
}

const USER =
  '# Task\nAdd a flag.\n\n# Project instructions\nUse tabs.\n\n# Project files\nsrc/a.ts\n\n# File contents\n## src/a.ts (whole file)\n```\nhello\n```\n\nReply with the JSON plan only.';

describe('anthropic client', () => {
  it('asks for the plan as a forced tool call, streamed, with the stable prefix cached', async () => {
    server.reply(replies.plan(SAMPLE_PLAN, { usage: { input: 12, output: 40 } }));
    const progress: number[] = [];
    const result = await getStructuredPlan(anthropic(), 'the system', USER, {
      ...fast,
      onProgress: (p) => progress.push(p.chars),
    });
    expect(result.plan.patches[0]?.replace).toBe('hello world');
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.at(-1)).toBe(JSON.stringify(SAMPLE_PLAN).length);
    const [request] = server.completions();
    expect(request?.path).toBe('/v1/messages');
    // This SDK version sends the key as a bearer token (older ones used x-api-key; the server takes both).
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request?.headers['anthropic-version']).toBeDefined();
    expect(request?.body.stream).toBe(true);
    expect(request?.body.tools).toEqual([
      { name: PLAN_TOOL_NAME, description: expect.any(String), input_schema: PLAN_JSON_SCHEMA },
    ]);
    expect(request?.body.tool_choice).toEqual({ type: 'tool', name: PLAN_TOOL_NAME });
    expect(request?.body.system).toEqual([{ type: 'text', text: 'the system', cache_control: { type: 'ephemeral' } }]);
    const content = request?.body.messages[0].content;
    expect(content[0]).toEqual({
      type: 'text',
      text: '# Project instructions\nUse tabs.\n\n# Project files\nsrc/a.ts',
      cache_control: { type: 'ephemeral' },
    });
    expect(content[1].text).toMatch(/^# Task\nAdd a flag\.\n\n# File contents\n/);
    expect(content[1].cache_control).toBeUndefined();
    expect(request?.body.max_tokens).toBe(16_384);
  });

  it('splits every section once, in order, and leaves a prompt without stable sections whole', () => {
    const { stable, rest } = splitStablePrefix(USER);
    expect(`${stable}\n\n${rest}`.split('\n\n').sort()).toEqual(USER.split('\n\n').sort());
    expect(splitStablePrefix('# Task\nx\n\n# File contents\ny')).toEqual({
      stable: '',
      rest: '# Task\nx\n\n# File contents\ny',
    });
  });

  it('usage counts cache reads and writes as input, and prices them at cache rates', async () => {
    server.reply(replies.plan(SAMPLE_PLAN, { usage: { input: 10, output: 20, cacheRead: 1000, cacheWrite: 200 } }));
    const result = await getStructuredPlan(anthropic(), 's', USER, fast);
    expect(result.usage).toEqual({
      inputTokens: 1210,
      outputTokens: 20,
      totalTokens: 1230,
      cacheReadTokens: 1000,
      cacheWriteTokens: 200,
    });
    // Sonnet: 3 $/M input, 0.30 cache read, 3.75 cache write, 15 output.
    expect(estimateCostUsd('claude-sonnet-4-6', result.usage!)).toBeCloseTo(
      (10 * 3 + 1000 * 0.3 + 200 * 3.75 + 20 * 15) / 1e6,
      12,
    );
  });

  it('replays a recorded Messages API stream (ping, input_json_delta, usage in message_delta)', async () => {
    server.reply(replies.fixture('anthropic/stream-tool-use', SAMPLE_PLAN));
    const result = await getStructuredPlan(anthropic(), 's', 'u', fast);
    expect(result.plan.patches).toHaveLength(1);
    expect(result.usage).toEqual({
      inputTokens: 849,
      outputTokens: 47,
      totalTokens: 896,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    expect(result.reply.model).toBe('claude-haiku-4-5-20251001');
  });

  it('a refusal stop is reported as a refusal', async () => {
    server.reply({ type: 'text', text: '', finishReason: 'content_filter' });
    await expect(getStructuredPlan(anthropic(), 's', 'u', fast)).rejects.toThrow(
      /^Anthropic refused the task \(finish reason refusal\)$/,
    );
  });

  it('max_tokens is reported as truncated', async () => {
    server.reply(replies.truncated());
    await expect(getStructuredPlan(anthropic({ maxOutputTokens: 100 }), 's', 'u', fast)).rejects.toThrow(
      /truncated at the output token limit \(maxOutputTokens 100\)/,
    );
    expect(server.completions()[0]?.body.max_tokens).toBe(100);
  });

  it('401 names the key source in one line; 404 names the model', async () => {
    await expect(getStructuredPlan(anthropic({ apiKey: 'sk-ant-wrong' }), 's', 'u', fast)).rejects.toThrow(
      /^Anthropic rejected the API key from ANTHROPIC_API_KEY \(HTTP 401\): invalid x-api-key$/,
    );
    server.reply({ type: 'error', status: 404, message: 'model: claude-9' });
    await expect(getStructuredPlan(anthropic({ model: 'claude-9' }), 's', 'u', fast)).rejects.toThrow(
      /^Anthropic: unknown model "claude-9" \(HTTP 404\): model: claude-9$/,
    );
  });

  it('429 waits for retry-after and says so; 529 overloaded is retried, then one clear line', async () => {
    server.reply(replies.rateLimited(0), replies.plan(SAMPLE_PLAN));
    const notices: RetryNotice[] = [];
    await getStructuredPlan(anthropic(), 's', 'u', { ...fast, onRetry: (n) => notices.push(n) });
    expect(notices.map((n) => n.message)).toEqual(['rate limited; retrying in 0 ms, 1 of 2']);
    server.reset();
    server.reply(replies.overloaded(), replies.overloaded(), replies.overloaded());
    const error = await getStructuredPlan(anthropic(), 's', 'u', fast).catch((e: unknown) => e);
    expect((error as ProviderError).message).toBe('Anthropic is overloaded (HTTP 529): Overloaded');
    expect((error as ProviderError).code).toBe('provider_overloaded');
    expect(server.completions()).toHaveLength(3);
  });

  it('an overloaded_error event in the middle of a stream is retried', async () => {
    server.reply({ type: 'error', status: 529, message: 'Overloaded', midStream: true }, replies.plan(SAMPLE_PLAN));
    const result = await getStructuredPlan(anthropic(), 's', 'u', fast);
    expect(result.plan.patches).toHaveLength(1);
    expect(server.completions()).toHaveLength(2);
  });

  it('resolves from ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL alone; credentials are checked by getting the model', async () => {
    const config = resolveProviderConfig({
      config: { providers: {} },
      env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
    });
    expect(config).toMatchObject({
      provider: 'anthropic',
      model: 'claude-sonnet-4-6',
      baseURL: server.url,
      keySource: 'ANTHROPIC_API_KEY',
    });
    await checkProviderCredentials(config!);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models/claude-sonnet-4-6']);
    await expect(checkProviderCredentials({ ...config!, apiKey: 'bad' })).rejects.toThrow(
      /rejected the API key from ANTHROPIC_API_KEY/,
    );
  });

  it('credential check fails in one line when Anthropic has no such model (GET /v1/models/<id> answers 404)', async () => {
    const config = resolveProviderConfig({
      config: { providers: {} },
      env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
    });
    const error = (await checkProviderCredentials({ ...config!, model: 'claude-9-typo' }).catch(
      (e: unknown) => e,
    )) as ProviderError;
    expect(error).toMatchObject({ code: 'provider_not_found', status: 404 });
    expect(error.message).toBe('Anthropic: unknown model "claude-9-typo" (HTTP 404): model: claude-9-typo');
    expect(error.hint).toMatch(/model name/);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models/claude-9-typo']);
  });
});
