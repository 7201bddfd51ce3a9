import { describe, expect, it } from 'vitest';
import { resolveProviderConfig } from '../../config/config.js';
import { checkProviderCredentials, getStructuredPlan } from '../../llm/provider.js';
import type { ProviderConfig } from '../../llm/types.js';
import { InterruptedError, type ProviderError } from '../../utils/errors.js';
import { SAMPLE_PLAN, useLoopbackProvider } from '../support/provider-env.js';
import { replies, startProviderServer } from '../support/provider-server.js';

const server = useLoopbackProvider();
const fast = { retry: { baseDelayMs: 1 } };

function gemini(overrides: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    provider: 'gemini',
    name: 'gemini',
    model: 'gemini-2.5-flash',
    apiKey: 'AIza-test-0123456789',
    baseURL: server.url,
    keySource: 'GEMINI_API_KEY',
    ...overrides,
  };
}

describe('gemini client', () => {
  it('streams with responseJsonSchema, progress and usage', async () => {
    server.reply(replies.plan(SAMPLE_PLAN, { usage: { input: 11, output: 9 } }));
    const progress: number[] = [];
    const result = await getStructuredPlan(gemini(), 'the system', 'the user', {
      ...fast,
      onProgress: (p) => progress.push(p.chars),
    });
    expect(result.plan.patches).toHaveLength(1);
    expect(result.usage).toEqual({ inputTokens: 11, outputTokens: 9, totalTokens: 20 });
    expect(progress.length).toBeGreaterThan(1);
    const [request] = server.completions();
    expect(request?.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent');
    expect(request?.query.alt).toBe('sse');
    expect(request?.headers['x-goog-api-key']).toBe('AIza-test-0123456789');
    expect(request?.body.generationConfig).toMatchObject({
      responseMimeType: 'application/json',
      responseJsonSchema: { type: 'object' },
    });
    expect(request?.body.systemInstruction.parts[0].text).toBe('the system');
    expect(request?.body.contents[0].parts[0].text).toBe('the user');
  });

  it('steps down to JSON mime type only on a 400 about the schema', async () => {
    server.reply(
      replies.status(400, 'Invalid JSON payload received. Unknown name "responseJsonSchema" at generation_config'),
      replies.plan(SAMPLE_PLAN),
    );
    await getStructuredPlan(gemini(), 's', 'u', fast);
    const second = server.completions()[1]?.body.generationConfig;
    expect(second.responseMimeType).toBe('application/json');
    expect(second.responseJsonSchema).toBeUndefined();
  });

  it('MAX_TOKENS is reported as truncated', async () => {
    server.reply(replies.truncated());
    const error = await getStructuredPlan(gemini(), 's', 'u', fast).catch((e: unknown) => e);
    expect((error as ProviderError).code).toBe('provider_truncated');
  });

  it('a SAFETY stop is reported as a refusal', async () => {
    server.reply({ type: 'text', text: '', finishReason: 'content_filter' });
    await expect(getStructuredPlan(gemini(), 's', 'u', fast)).rejects.toThrow(
      /refused the task \(finish reason SAFETY\)/,
    );
  });

  it('429 RESOURCE_EXHAUSTED with Retry-After is retried; 401 names the key source; 404 the model', async () => {
    server.reply(replies.rateLimited(0), replies.plan(SAMPLE_PLAN));
    await getStructuredPlan(gemini(), 's', 'u', fast);
    expect(server.completions()).toHaveLength(2);
    server.reply(replies.status(401, 'Request had invalid authentication credentials.'));
    await expect(getStructuredPlan(gemini(), 's', 'u', fast)).rejects.toThrow(
      /^Gemini rejected the API key from GEMINI_API_KEY \(HTTP 401\)/,
    );
    server.reply(replies.status(404, 'models/gemini-9 is not found for API version v1beta'));
    await expect(getStructuredPlan(gemini({ model: 'gemini-9' }), 's', 'u', fast)).rejects.toThrow(
      /unknown model "gemini-9"/,
    );
  });

  it('a stream cut halfway is retried', async () => {
    server.reply(replies.drop(), replies.plan(SAMPLE_PLAN));
    expect((await getStructuredPlan(gemini(), 's', 'u', fast)).plan.patches).toHaveLength(1);
    expect(server.completions()).toHaveLength(2);
  });

  it('500 is retried at most twice', async () => {
    server.reply(replies.serverError(), replies.serverError(), replies.serverError());
    await expect(getStructuredPlan(gemini(), 's', 'u', fast)).rejects.toThrow(/HTTP 500/);
    expect(server.completions()).toHaveLength(3);
  });

  it('a prose reply is parsed; a reply that never comes times out; abort is an interruption', async () => {
    server.reply(replies.prose(SAMPLE_PLAN));
    expect((await getStructuredPlan(gemini(), 's', 'u', fast)).repaired).toBe(false);
    server.reply(replies.hang());
    await expect(getStructuredPlan(gemini(), 's', 'u', { ...fast, timeoutMs: 150 })).rejects.toThrow(/did not answer/);
    server.reply(replies.hang());
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    await expect(getStructuredPlan(gemini(), 's', 'u', { signal: controller.signal })).rejects.toBeInstanceOf(
      InterruptedError,
    );
  });

  it('works from GEMINI_API_KEY and GEMINI_BASE_URL alone; credential check rejects an invalid key', async () => {
    const config = resolveProviderConfig({
      config: { providers: {} },
      env: { GEMINI_API_KEY: 'AIza-env-0123456789', GEMINI_BASE_URL: server.url },
    });
    server.reply(replies.plan(SAMPLE_PLAN));
    await getStructuredPlan(config!, 's', 'u', fast);
    expect(server.completions()[0]?.headers['x-goog-api-key']).toBe('AIza-env-0123456789');
    const strict = await startProviderServer({ apiKey: 'right-key', models: [config!.model] });
    try {
      await expect(checkProviderCredentials({ ...config!, baseURL: strict.url })).rejects.toThrow(
        /rejected the API key from GEMINI_API_KEY/,
      );
      await checkProviderCredentials({ ...config!, baseURL: strict.url, apiKey: 'right-key' });
    } finally {
      await strict.close();
    }
  });

  it('credential check gets the model (GET /v1beta/models/<model>): a model the service does not have fails in one line', async () => {
    const strict = await startProviderServer({ apiKey: 'right-key', models: ['gemini-2.5-flash'] });
    try {
      const config = gemini({ baseURL: strict.url, apiKey: 'right-key' });
      await checkProviderCredentials(config);
      expect(strict.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1beta/models/gemini-2.5-flash']);
      // Generation would be answered: only the model lookup can tell the model is unknown.
      strict.setFallback(replies.text('OK'));
      const error = (await checkProviderCredentials({ ...config, model: 'gemini-9-typo' }).catch(
        (e: unknown) => e,
      )) as ProviderError;
      expect(error).toMatchObject({ code: 'provider_not_found', status: 404 });
      expect(error.message).toMatch(/^Gemini.*unknown model "gemini-9-typo" \(HTTP 404\)/);
      expect(error.message).not.toContain('\n');
      expect(error.hint).toMatch(/model name/);
      expect(strict.completions()).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });
});
