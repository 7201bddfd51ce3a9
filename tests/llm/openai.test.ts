import { describe, expect, it } from 'vitest';
import { getStructuredPlan } from '../../llm/provider.js';
import type { ProviderConfig } from '../../llm/types.js';
import { InterruptedError, ProviderError } from '../../utils/errors.js';
import { PlanParseError } from '../../llm/plan-parser.js';
import { SAMPLE_PLAN, useLoopbackProvider } from '../support/provider-env.js';
import { replies } from '../support/provider-server.js';

const server = useLoopbackProvider();
const fast = { retry: { baseDelayMs: 1 } };

function openai(overrides: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    provider: 'openai',
    name: 'openai',
    model: 'gpt-4o-mini',
    apiKey: 'sk-test-123456789',
    baseURL: `${server.url}/v1`,
    keySource: 'OPENAI_API_KEY',
    ...overrides,
  };
}

describe('openai client through getStructuredPlan', () => {
  it('streams a json_schema request and returns the plan, usage and progress', async () => {
    server.reply(replies.plan(SAMPLE_PLAN, { usage: { input: 120, output: 40 } }));
    const progress: number[] = [];
    const result = await getStructuredPlan(openai(), 'system prompt', 'user prompt', {
      onProgress: (p) => progress.push(p.chars),
    });
    expect(result.plan.patches[0]).toMatchObject({ file: 'src/a.ts', find: 'hello', replace: 'hello world' });
    expect(result.repaired).toBe(false);
    expect(result.usage).toEqual({ inputTokens: 120, outputTokens: 40, totalTokens: 160 });
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.at(-1)).toBe(JSON.stringify(SAMPLE_PLAN).length);
    const [request] = server.completions();
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe('Bearer sk-test-123456789');
    expect(request?.body.stream).toBe(true);
    expect(request?.body.stream_options).toEqual({ include_usage: true });
    expect(request?.body.response_format.type).toBe('json_schema');
    expect(request?.body.response_format.json_schema).toMatchObject({ name: 'clawcode_plan', strict: true });
    expect(request?.body.messages).toEqual([
      { role: 'system', content: 'system prompt' },
      { role: 'user', content: 'user prompt' },
    ]);
    // OpenAI itself: no temperature forced.
    expect(request?.body.temperature).toBeUndefined();
  });

  it('accepts a prose-wrapped plan without a repair request', async () => {
    server.reply(replies.prose(SAMPLE_PLAN));
    const result = await getStructuredPlan(openai(), 's', 'u', fast);
    expect(result.plan.analysis).toBe('Add a greeting.');
    expect(server.completions()).toHaveLength(1);
  });

  it('steps down to json_object, then prompt-only, on 400s about response_format', async () => {
    server.reply(replies.responseFormat400(), replies.responseFormat400(), replies.plan(SAMPLE_PLAN));
    const result = await getStructuredPlan(openai(), 'Plan it.', 'u', fast);
    expect(result.plan.patches).toHaveLength(1);
    const formats = server.completions().map((r) => r.body.response_format?.type);
    expect(formats).toEqual(['json_schema', 'json_object', undefined]);
    // JSON mode needs the word JSON and gets the schema as text.
    expect(server.completions()[1]?.body.messages[0].content).toContain('JSON schema');
  });

  it('the repair request keeps the structured-output mode that worked', async () => {
    server.reply(replies.responseFormat400(), replies.text('not a plan'), replies.plan(SAMPLE_PLAN));
    const result = await getStructuredPlan(openai(), 's', 'u', fast);
    expect(result.repaired).toBe(true);
    expect(server.completions().map((r) => r.body.response_format?.type)).toEqual([
      'json_schema',
      'json_object',
      'json_object',
    ]);
  });

  it('sends exactly one repair request showing the parse error, then succeeds', async () => {
    server.reply(
      replies.text('{"analysis": "x", "patches": [{"file": "a"}]}'),
      replies.plan(SAMPLE_PLAN, { usage: { input: 5, output: 5 } }),
    );
    const result = await getStructuredPlan(openai(), 's', 'the task', fast);
    expect(result.repaired).toBe(true);
    expect(result.usage).toEqual({ inputTokens: 15, outputTokens: 10, totalTokens: 25 });
    const repair = server.completions()[1]?.body.messages[1].content as string;
    expect(repair).toContain('the task');
    expect(repair).toContain('not a valid plan');
    expect(repair).toContain('{"analysis": "x"');
    expect(repair).toMatch(/patches/);
  });

  it('never sends a second repair: invalid twice is a PlanParseError after two requests', async () => {
    server.reply(replies.text('no json here'), replies.text('still none'), replies.plan(SAMPLE_PLAN));
    await expect(getStructuredPlan(openai(), 's', 'u', fast)).rejects.toBeInstanceOf(PlanParseError);
    expect(server.completions()).toHaveLength(2);
  });

  it('401 is one line naming the key source, never the key, and is not retried', async () => {
    server.reply(replies.unauthorized());
    const error = await getStructuredPlan(openai(), 's', 'u', fast).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    const message = (error as ProviderError).message;
    expect(message).toContain('OPENAI_API_KEY');
    expect(message).toContain('401');
    expect(message).not.toContain('sk-test-123456789');
    expect(message).not.toContain('\n');
    expect((error as ProviderError).exitCode).toBe(1);
    expect(server.completions()).toHaveLength(1);
  });

  it('404 names the model', async () => {
    server.reply(replies.notFound('gpt-nope'));
    await expect(getStructuredPlan(openai({ model: 'gpt-nope' }), 's', 'u', fast)).rejects.toThrow(
      /unknown model "gpt-nope"/,
    );
  });

  it('400 shows the provider message', async () => {
    server.reply(replies.status(400, 'messages: too long for this model'));
    await expect(getStructuredPlan(openai(), 's', 'u', fast)).rejects.toThrow(/messages: too long for this model/);
    expect(server.completions()).toHaveLength(1);
  });

  it('retries a 429 honouring Retry-After, then succeeds', async () => {
    server.reply(replies.rateLimited(0), replies.plan(SAMPLE_PLAN));
    const result = await getStructuredPlan(openai(), 's', 'u', fast);
    expect(result.plan.patches).toHaveLength(1);
    expect(server.completions()).toHaveLength(2);
  });

  it('retries a 500 at most twice, then fails with one line', async () => {
    server.reply(replies.serverError(), replies.serverError(), replies.serverError(), replies.plan(SAMPLE_PLAN));
    const error = await getStructuredPlan(openai(), 's', 'u', fast).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toMatch(/server error \(HTTP 500\)/);
    expect(server.completions()).toHaveLength(3);
  });

  it('does not wait for a Retry-After longer than a minute', async () => {
    server.reply(replies.rateLimited(3600), replies.plan(SAMPLE_PLAN));
    await expect(getStructuredPlan(openai(), 's', 'u', fast)).rejects.toThrow(/rate limited/);
    expect(server.completions()).toHaveLength(1);
  });

  it('times out a reply that never comes', async () => {
    server.reply(replies.hang());
    const started = Date.now();
    const error = await getStructuredPlan(openai(), 's', 'u', { ...fast, timeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe('provider_timeout');
    expect((error as ProviderError).message).toMatch(/did not answer within/);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(server.completions()).toHaveLength(1);
  });

  it('a truncated reply says so and what to change', async () => {
    server.reply(replies.truncated());
    const error = await getStructuredPlan(openai({ maxOutputTokens: 50 }), 's', 'u', fast).catch((e: unknown) => e);
    expect((error as ProviderError).code).toBe('provider_truncated');
    expect((error as ProviderError).message).toMatch(/truncated.*maxOutputTokens 50/);
    expect((error as ProviderError).hint).toMatch(/maxOutputTokens/);
    expect(server.completions()[0]?.body.max_tokens).toBe(50);
  });

  it('a refusal says so', async () => {
    server.reply(replies.refusal('I cannot do that.'));
    await expect(getStructuredPlan(openai(), 's', 'u', fast)).rejects.toThrow(/refused the task: I cannot do that/);
  });

  it('an aborted signal ends in InterruptedError (exit 130)', async () => {
    server.reply(replies.hang());
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await getStructuredPlan(openai(), 's', 'u', { signal: controller.signal, timeoutMs: 10_000 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as InterruptedError).exitCode).toBe(130);
  });

  it('a stream cut halfway is retried as a connection failure', async () => {
    server.reply(replies.drop(), replies.plan(SAMPLE_PLAN));
    const result = await getStructuredPlan(openai(), 's', 'u', fast);
    expect(result.plan.patches).toHaveLength(1);
    expect(server.completions()).toHaveLength(2);
  });

  it('a connection failure is retried, then reported with the URL', async () => {
    const config = openai({ baseURL: 'http://127.0.0.1:9/v1' });
    const error = await getStructuredPlan(config, 's', 'u', fast).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).toMatch(/^Could not reach http:\/\/127\.0\.0\.1:9\/v1: /);
  });
});

describe('OpenAI-compatible presets', () => {
  it('ollama: placeholder key and an explicit temperature', async () => {
    server.reply(replies.plan(SAMPLE_PLAN));
    await getStructuredPlan(
      { provider: 'openai', name: 'ollama', preset: 'ollama', model: 'qwen2.5-coder', baseURL: `${server.url}/v1` },
      's',
      'u',
      fast,
    );
    const [request] = server.completions();
    expect(request?.headers.authorization).toBe('Bearer ollama');
    expect(request?.body.temperature).toBe(0.2);
    expect(request?.body.model).toBe('qwen2.5-coder');
  });

  it('lmstudio: steps from json_schema straight to prompt-only (it rejects json_object)', async () => {
    server.reply(replies.responseFormat400(), replies.plan(SAMPLE_PLAN));
    await getStructuredPlan(
      { provider: 'openai', name: 'lmstudio', preset: 'lmstudio', model: 'm', baseURL: `${server.url}/v1` },
      's',
      'u',
      fast,
    );
    expect(server.completions().map((r) => r.body.response_format?.type)).toEqual(['json_schema', undefined]);
  });
});
