import { describe, expect, it } from 'vitest';
import { ProviderRequestError } from '../../llm/errors-map.js';
import { getStructuredPlan, retryOptions, type RetryNotice } from '../../llm/provider.js';
import { parsePlan } from '../../llm/plan-parser.js';
import type { ProviderConfig } from '../../llm/types.js';
import { type ProviderError } from '../../utils/errors.js';
import { SAMPLE_PLAN, useLoopbackProvider } from '../support/provider-env.js';
import { replies } from '../support/provider-server.js';

// Providers as they really answer: responses recorded from the services (tests/support/fixtures, with
// their sources), replayed through the real SDKs against the loopback server.

const server = useLoopbackProvider();
const fast = { retry: { baseDelayMs: 1 } };

function config(overrides: Partial<ProviderConfig> & Pick<ProviderConfig, 'provider'>): ProviderConfig {
  return { name: overrides.provider, model: 'm', apiKey: 'key-0123456789', baseURL: server.url, ...overrides };
}
const gemini = (o: Partial<ProviderConfig> = {}): ProviderConfig =>
  config({ provider: 'gemini', model: 'gemini-2.5-flash', keySource: 'GEMINI_API_KEY', ...o });

describe('Gemini errors on the streamed path (text/event-stream bodies)', () => {
  it('shows the message in one clean line and reads RetryInfo.retryDelay', async () => {
    server.reply(replies.fixture('gemini/error-429-retry-info'));
    // 34.4 s is more than this test allows to wait, so the error comes back at once with the delay on it.
    const error = await getStructuredPlan(gemini(), 's', 'u', { retry: { maxRetryAfterMs: 1000 } }).catch(
      (e: unknown) => e,
    );
    expect(server.completions()[0]?.stream).toBe(true);
    expect((error as ProviderError).message).toBe(
      'Gemini rate limited the request (HTTP 429): You exceeded your current quota, please check your plan.',
    );
    expect((error as ProviderRequestError).retryAfterMs).toBe(34_400);
    expect(server.completions()).toHaveLength(1);
  });

  it('honours the retry delay and reports the retry', async () => {
    const details = [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '0.05s' }];
    server.reply({ type: 'error', status: 429, message: 'Quota exceeded.', details }, replies.plan(SAMPLE_PLAN));
    const notices: RetryNotice[] = [];
    await getStructuredPlan(gemini(), 's', 'u', { ...fast, onRetry: (n) => notices.push(n) });
    expect(notices).toEqual([
      {
        attempt: 1,
        maxRetries: 2,
        delayMs: 50,
        reason: 'rate limited',
        message: 'rate limited; retrying in 50 ms, 1 of 2',
      },
    ]);
  });

  it('a refused key on the streamed path names the key source, with the provider message only', async () => {
    server.reply({ type: 'error', status: 400, message: 'API key not valid. Please pass a valid API key.' });
    await expect(getStructuredPlan(gemini(), 's', 'u', fast)).rejects.toThrow(
      /^Gemini rejected the API key from GEMINI_API_KEY \(HTTP 400\): API key not valid\. Please pass a valid API key\.$/,
    );
  });
});

describe('Azure api-versions before 2024-10-21', () => {
  const azure = (apiVersion: string): ProviderConfig =>
    config({ provider: 'azure', name: 'work', model: 'dep', deployment: 'dep', endpoint: server.url, apiVersion });

  it('are sent stream_options, and report the usage that comes back', async () => {
    server.reply(replies.plan(SAMPLE_PLAN, { usage: { input: 7, output: 3 } }));
    const result = await getStructuredPlan(azure('2024-06-01'), 'sys', 'user', fast);
    expect(result.plan.patches).toHaveLength(1);
    expect(server.completions()[0]?.body.stream_options).toEqual({ include_usage: true });
    expect(result.usage).toEqual({ inputTokens: 7, outputTokens: 3, totalTokens: 10 });
  });

  it('a server that refuses stream_options gets the request again without it', async () => {
    server.reply(
      (request) =>
        request.body?.stream_options
          ? { type: 'error', status: 400, message: "Unknown parameter: 'stream_options'.", param: 'stream_options' }
          : replies.plan(SAMPLE_PLAN),
      replies.plan(SAMPLE_PLAN),
    );
    const result = await getStructuredPlan(config({ provider: 'openai', baseURL: `${server.url}/v1` }), 's', 'u', fast);
    expect(result.plan.patches).toHaveLength(1);
    expect(server.completions().map((r) => Boolean(r.body.stream_options))).toEqual([true, false]);
  });

  it('replays the recorded stream: prompt_filter_results first, usage: null chunks, usage last', async () => {
    server.reply(replies.fixture('azure/stream-prompt-filter', SAMPLE_PLAN));
    const result = await getStructuredPlan(azure('2024-10-21'), 's', 'u', fast);
    expect(result.plan.patches[0]?.replace).toBe('hello world');
    expect(result.usage).toEqual({ inputTokens: 15, outputTokens: 5, totalTokens: 20 });
    expect(result.reply.model).toBe('gpt-4');
  });
});

describe('OpenAI-compatible services name themselves, with the upstream reason', () => {
  it('an OpenRouter 429 keeps metadata.raw and names OpenRouter', async () => {
    server.reply(replies.fixture('openrouter/error-429-upstream'));
    const openrouter = config({
      provider: 'openai',
      preset: 'openrouter',
      name: 'openrouter',
      baseURL: `${server.url}/v1`,
    });
    const error = await getStructuredPlan(openrouter, 's', 'u', { retry: { maxRetries: 0 } }).catch((e: unknown) => e);
    expect((error as ProviderError).message).toMatch(
      /^OpenRouter rate limited the request \(HTTP 429\): Provider returned error \(DeepInfra: deepseek\/deepseek-chat-v3\.1:free is temporarily rate-limited upstream\./,
    );
    expect((error as ProviderError).code).toBe('provider_rate_limited');
  });

  it('the openai client at another base URL is named by its host, not "OpenAI"', async () => {
    server.reply(replies.status(400, 'model is required'));
    const host = new URL(server.url).host;
    await expect(
      getStructuredPlan(config({ provider: 'openai', baseURL: `${server.url}/v1` }), 's', 'u', fast),
    ).rejects.toThrow(`${host} refused the request (HTTP 400): model is required`);
  });
});

describe('reasoning blocks', () => {
  it('a draft inside <think> is not taken as the plan', () => {
    const draft = { patches: [{ file: 'draft.ts', find: 'a', replace: 'b' }] };
    const final = { patches: [{ file: 'final.ts', find: 'a', replace: 'b' }] };
    expect(parsePlan(`<think>draft ${JSON.stringify(draft)}</think>${JSON.stringify(final)}`).patches[0]?.file).toBe(
      'final.ts',
    );
    expect(parsePlan(`thinking ${JSON.stringify(draft)}</think>\n${JSON.stringify(final)}`).patches[0]?.file).toBe(
      'final.ts',
    );
    // A plan that merely mentions the tags in its text is kept whole.
    const mention = { patches: [{ file: 'p.md', find: '<think>', replace: '<think></think>' }] };
    expect(parsePlan(JSON.stringify(mention)).patches[0]?.replace).toBe('<think></think>');
  });

  it('through an OpenAI-compatible server that puts think blocks in the content', async () => {
    const draft = { ...SAMPLE_PLAN, patches: [{ ...SAMPLE_PLAN.patches[0], file: 'draft.ts' }] };
    server.reply(replies.text(`<think>Let me draft: ${JSON.stringify(draft)}</think>\n${JSON.stringify(SAMPLE_PLAN)}`));
    const result = await getStructuredPlan(
      config({ provider: 'openai', preset: 'vllm', baseURL: `${server.url}/v1` }),
      's',
      'u',
      fast,
    );
    expect(result.plan.patches[0]?.file).toBe('src/a.ts');
    expect(result.repaired).toBe(false);
  });

  it('asks Groq for hidden reasoning on models that reason', async () => {
    const groq = (model: string): ProviderConfig => config({ provider: 'groq', model });
    server.reply(replies.plan(SAMPLE_PLAN), replies.plan(SAMPLE_PLAN), replies.plan(SAMPLE_PLAN));
    await getStructuredPlan(groq('qwen/qwen3-32b'), 's', 'u', fast);
    await getStructuredPlan(groq('openai/gpt-oss-20b'), 's', 'u', fast);
    await getStructuredPlan(groq('llama-3.3-70b-versatile'), 's', 'u', fast);
    const bodies = server.completions().map((r) => r.body);
    expect(bodies[0].reasoning_format).toBe('hidden');
    expect(bodies[1].include_reasoning).toBe(false);
    expect(bodies[1].reasoning_format).toBeUndefined();
    expect(bodies[2].reasoning_format).toBeUndefined();
    expect(bodies[2].include_reasoning).toBeUndefined();
  });

  it('Gemini thought parts and reasoning_content never reach the plan text', async () => {
    server.reply({ type: 'text', text: JSON.stringify(SAMPLE_PLAN), thought: 'Draft: {"patches": []}' });
    const fromGemini = await getStructuredPlan(gemini(), 's', 'u', fast);
    expect(fromGemini.reply.text).toBe(JSON.stringify(SAMPLE_PLAN));
    server.reply({ type: 'text', text: JSON.stringify(SAMPLE_PLAN), thought: 'Draft: {"patches": []}' });
    const fromOpenAI = await getStructuredPlan(
      config({ provider: 'openai', baseURL: `${server.url}/v1` }),
      's',
      'u',
      fast,
    );
    expect(fromOpenAI.reply.text).toBe(JSON.stringify(SAMPLE_PLAN));
  });
});

describe('retries are reported', () => {
  it('each retry reaches onRetry with one line for a person', async () => {
    server.reply(replies.rateLimited(0), replies.serverError(), replies.plan(SAMPLE_PLAN));
    const notices: RetryNotice[] = [];
    await getStructuredPlan(config({ provider: 'openai', baseURL: `${server.url}/v1` }), 's', 'u', {
      ...fast,
      onRetry: (n) => notices.push(n),
    });
    expect(notices.map((n) => n.message)).toEqual([
      'rate limited; retrying in 0 ms, 1 of 2',
      'server error; retrying in 1 ms, 2 of 2',
    ]);
  });

  it('a server-requested wait is said in seconds', () => {
    const notices: RetryNotice[] = [];
    const options = retryOptions(gemini(), { onRetry: (n) => notices.push(n) });
    const error = new ProviderRequestError('x', {
      provider: 'gemini',
      code: 'provider_rate_limited',
      status: 429,
      retryable: true,
    });
    options.onRetry?.({ attempt: 1, delayMs: 47_000, error });
    expect(notices[0]?.message).toBe('rate limited; retrying in 47 s, 1 of 2');
  });
});

describe('Gemini schema form', () => {
  it('sends nullable fields as anyOf, never as a type array', async () => {
    server.reply(replies.plan(SAMPLE_PLAN));
    await getStructuredPlan(gemini(), 's', 'u', fast);
    const schema = server.completions()[0]?.body.generationConfig.responseJsonSchema;
    expect(schema.properties.patches.items.properties.replace_all).toEqual({
      anyOf: [{ type: 'boolean' }, { type: 'null' }],
    });
    expect(schema.properties.patches.items.properties.occurrence).toEqual({
      anyOf: [{ type: 'integer' }, { type: 'null' }],
    });
    expect(JSON.stringify(schema)).not.toMatch(/"type":\[/);
    expect(schema.properties.patches.items.required).toContain('replace_all');
  });
});

describe('Mistral reasoning content', () => {
  it('thinking parts of an array content are not the answer; usage comes without stream_options', async () => {
    server.reply(replies.fixture('mistral/stream-thinking', SAMPLE_PLAN));
    const mistral = config({ provider: 'openai', preset: 'mistral', name: 'mistral', baseURL: `${server.url}/v1` });
    const result = await getStructuredPlan(mistral, 's', 'u', fast);
    expect(result.reply.text).toBe(JSON.stringify(SAMPLE_PLAN));
    expect(result.usage).toEqual({ inputTokens: 28, outputTokens: 139, totalTokens: 167 });
    expect(server.completions()[0]?.body.stream_options).toBeUndefined();
  });
});

describe('cached prompt tokens', () => {
  it('OpenAI prompt_tokens_details.cached_tokens is reported as cache reads', async () => {
    server.reply(replies.plan(SAMPLE_PLAN, { usage: { input: 2000, output: 50, cacheRead: 1536 } }));
    const result = await getStructuredPlan(config({ provider: 'openai', baseURL: `${server.url}/v1` }), 's', 'u', fast);
    expect(result.usage).toEqual({ inputTokens: 2000, outputTokens: 50, totalTokens: 2050, cacheReadTokens: 1536 });
  });
});

describe('recorded streams', () => {
  it('Groq: x_groq chunks, usage from the last chunk', async () => {
    server.reply(replies.fixture('groq/stream-x-groq', SAMPLE_PLAN));
    const result = await getStructuredPlan(
      config({ provider: 'groq', model: 'llama-3.3-70b-versatile', jsonMode: 'prompt' }),
      's',
      'u',
      fast,
    );
    expect(result.plan.patches).toHaveLength(1);
    expect(server.completions()[0]?.body.stream).toBe(true);
    expect(result.usage).toEqual({ inputTokens: 45, outputTokens: 662, totalTokens: 707 });
  });

  it('Gemini 3: a last part with only a thought signature; thinking tokens billed as output', async () => {
    server.reply(replies.fixture('gemini/stream-thought-signature', SAMPLE_PLAN));
    const result = await getStructuredPlan(gemini({ model: 'gemini-3-pro-preview' }), 's', 'u', fast);
    expect(result.reply.text).toBe(JSON.stringify(SAMPLE_PLAN));
    expect(result.usage).toEqual({ inputTokens: 9, outputTokens: 29 + 256, totalTokens: 294 });
    expect(result.reply.finishReason).toBe('STOP');
  });
});
