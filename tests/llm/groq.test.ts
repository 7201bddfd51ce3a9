import { describe, expect, it } from 'vitest';
import { resolveProviderConfig } from '../../config/config.js';
import { checkProviderCredentials, getStructuredPlan } from '../../llm/provider.js';
import type { ProviderConfig } from '../../llm/types.js';
import { ProviderError } from '../../utils/errors.js';
import { SAMPLE_PLAN, useLoopbackProvider } from '../support/provider-env.js';
import { replies } from '../support/provider-server.js';

const server = useLoopbackProvider({ apiKey: 'gsk_good_0123456789', models: ['llama-3.3-70b-versatile'] });
const fast = { retry: { baseDelayMs: 1 } };

function groq(overrides: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    provider: 'groq',
    name: 'groq',
    model: 'llama-3.3-70b-versatile',
    apiKey: 'gsk_good_0123456789',
    baseURL: server.url,
    keySource: 'GROQ_API_KEY',
    ...overrides,
  };
}

describe('groq client', () => {
  it('JSON mode by default, unstreamed (Groq JSON mode cannot stream), with usage', async () => {
    server.reply(replies.plan(SAMPLE_PLAN, { usage: { input: 30, output: 20 } }));
    const progress: number[] = [];
    const result = await getStructuredPlan(groq(), 'sys', 'u', { ...fast, onProgress: (p) => progress.push(p.chars) });
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 20, totalTokens: 50 });
    expect(progress).toEqual([JSON.stringify(SAMPLE_PLAN).length]);
    const [request] = server.completions();
    expect(request?.path).toBe('/openai/v1/chat/completions');
    expect(request?.headers.authorization).toBe('Bearer gsk_good_0123456789');
    expect(request?.body.response_format).toEqual({ type: 'json_object' });
    expect(request?.body.stream).toBeUndefined();
    expect(request?.body.messages[0].content).toContain('JSON');
  });

  it('strict json_schema on gpt-oss models', async () => {
    server.reply(replies.plan(SAMPLE_PLAN));
    await getStructuredPlan(groq({ model: 'openai/gpt-oss-120b' }), 's', 'u', fast);
    expect(server.completions()[0]?.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { strict: true },
    });
  });

  it('falls back to a streamed prompt-only request after 400s about response_format', async () => {
    server.reply(replies.responseFormat400(), replies.plan(SAMPLE_PLAN));
    await getStructuredPlan(groq(), 's', 'u', fast);
    const second = server.completions()[1];
    expect(second?.body.response_format).toBeUndefined();
    expect(second?.body.stream).toBe(true);
  });

  it('a wrong key is one line naming GROQ_API_KEY', async () => {
    const error = await getStructuredPlan(groq({ apiKey: 'gsk_bad_0123456789' }), 's', 'u', fast).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toMatch(/^Groq rejected the API key from GROQ_API_KEY \(HTTP 401\)/);
    expect((error as ProviderError).message).not.toContain('gsk_bad');
  });

  it('500 is retried twice then reported; a prose reply is parsed; a truncated one is reported', async () => {
    server.reply(replies.serverError(), replies.prose(SAMPLE_PLAN));
    expect((await getStructuredPlan(groq(), 's', 'u', fast)).plan.analysis).toBe('Add a greeting.');
    server.reply(replies.truncated());
    await expect(getStructuredPlan(groq(), 's', 'u', fast)).rejects.toThrow(/truncated/);
  });

  it('times out a reply that never comes', async () => {
    server.reply(replies.hang());
    await expect(getStructuredPlan(groq(), 's', 'u', { ...fast, timeoutMs: 150 })).rejects.toThrow(
      /did not answer within/,
    );
  });

  it('works from GROQ_API_KEY and GROQ_BASE_URL alone; credential check lists models', async () => {
    const config = resolveProviderConfig({
      config: { providers: {} },
      env: { GROQ_API_KEY: 'gsk_good_0123456789', GROQ_BASE_URL: server.url },
    });
    expect(config).toMatchObject({ provider: 'groq', model: 'llama-3.3-70b-versatile' });
    server.reply(replies.plan(SAMPLE_PLAN));
    await getStructuredPlan(config!, 's', 'u', fast);
    await checkProviderCredentials(config!);
    expect(server.requests.at(-1)?.path).toBe('/openai/v1/models');
    await expect(checkProviderCredentials({ ...config!, apiKey: 'wrong-0123456789' })).rejects.toThrow(/GROQ_API_KEY/);
  });

  it('credential check fails in one line when Groq does not list the model', async () => {
    const error = (await checkProviderCredentials(groq({ model: 'llama-9-typo' })).catch(
      (e: unknown) => e,
    )) as ProviderError;
    expect(error).toMatchObject({
      code: 'provider_not_found',
      message: 'The Groq key works, but Groq lists no model "llama-9-typo"',
    });
    expect(error.hint).toContain('/openai/v1/models');
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /openai/v1/models']);
  });
});
