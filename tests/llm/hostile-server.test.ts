import { describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES } from '../../llm/guarded-fetch.js';
import { getStructuredPlan, listProviderModels } from '../../llm/provider.js';
import type { ProviderConfig } from '../../llm/types.js';
import { ProviderError } from '../../utils/errors.js';
import { SAMPLE_PLAN, useLoopbackProvider } from '../support/provider-env.js';
import { startProviderServer } from '../support/provider-server.js';

// A provider server that misbehaves on purpose, through each real SDK (llm/guarded-fetch.ts is the one fetch
// they all get): a redirect to another host, an error body that never ends, one endless line in a 200 stream,
// and token counts no server could mean.

const server = useLoopbackProvider({ apiKey: 'key-0123456789' });
const once = { retry: { baseDelayMs: 1, maxRetries: 0 }, timeoutMs: 60_000 };
const KEY = 'key-0123456789';

const backends: { name: string; config: () => ProviderConfig }[] = [
  {
    name: 'openai',
    config: () => ({ provider: 'openai', name: 'openai', model: 'm', apiKey: KEY, baseURL: `${server.url}/v1` }),
  },
  {
    name: 'azure',
    config: () => ({
      provider: 'azure',
      name: 'azure',
      model: 'dep',
      deployment: 'dep',
      endpoint: server.url,
      apiKey: KEY,
      apiVersion: '2024-10-21',
    }),
  },
  {
    name: 'groq',
    config: () => ({
      provider: 'groq',
      name: 'groq',
      model: 'llama-3.3-70b-versatile',
      apiKey: KEY,
      baseURL: server.url,
    }),
  },
  {
    name: 'gemini',
    config: () => ({ provider: 'gemini', name: 'gemini', model: 'gemini-2.5-flash', apiKey: KEY, baseURL: server.url }),
  },
  {
    name: 'anthropic',
    config: () => ({
      provider: 'anthropic',
      name: 'anthropic',
      model: 'claude-sonnet-4-6',
      apiKey: KEY,
      baseURL: server.url,
    }),
  },
];

/** The same server under another origin: fetch counts `localhost` and `127.0.0.1` as different hosts. */
const elsewhere = (): string => server.url.replace('127.0.0.1', 'localhost');

describe.each(backends)('$name against a hostile server', ({ config }) => {
  it.each([307, 308, 302])(
    'a %i redirect to another host is not followed: nothing, key or code, goes there',
    async (status) => {
      server.reply({ type: 'redirect', status, to: elsewhere() });
      const error = await getStructuredPlan(config(), 's', 'the project code', once).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).code).toBe('provider_redirect');
      expect((error as ProviderError).message).toMatch(new RegExp(`redirect \\(HTTP ${status}\\)`));
      expect(server.requests.map((r) => r.headers.host)).not.toContainEqual(expect.stringMatching(/^localhost:/));
      expect(server.requests).toHaveLength(1);
    },
  );

  it('an error body that goes on and on is cut after a megabyte, and the message is one short line', async () => {
    server.reply({ type: 'bulk', status: 500, bytes: 96 * 2 ** 20 });
    const error = await getStructuredPlan(config(), 's', 'u', once).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    // @google/genai parses a JSON-typed error body itself and reports a cut one as a parse failure.
    expect((error as ProviderError).message).toMatch(/HTTP 500|not valid JSON/);
    expect((error as ProviderError).message.length).toBeLessThan(400);
    // Socket buffers let the server write a few megabytes past what was read; never the whole body.
    expect(server.requests[0]!.sentBytes).toBeLessThan(24 * 2 ** 20);
  }, 30_000);

  it('a 200 body holding one endless line stops at the line cap', async () => {
    server.reply({ type: 'bulk', status: 200, prefix: 'data: ', bytes: 64 * 2 ** 20 });
    const error = await getStructuredPlan(config(), 's', 'u', once).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe('provider_reply_too_large');
    expect((error as ProviderError).message).toMatch(/reply holds a line over 16 MiB; stopped reading it/);
    expect(server.requests[0]!.sentBytes).toBeLessThan(MAX_LINE_BYTES + 16 * 2 ** 20);
  }, 60_000);

  it('a web page instead of the API (a network login page) fails in one line, without a repair request', async () => {
    const page = '<html><body>Log in to the Wi-Fi</body></html>';
    server.reply({
      type: 'bulk',
      status: 200,
      contentType: 'text/html; charset=utf-8',
      bytes: page.length,
      prefix: page,
    });
    const error = await getStructuredPlan(config(), 's', 'u', once).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe('provider_not_api');
    expect((error as ProviderError).message).toMatch(
      /answered with a web page \(content-type text\/html\), not the provider's API$/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it.each([401, 400, 429])('an error message echoing the key (%i) is shown without it', async (status) => {
    server.reply({ type: 'error', status, message: `Invalid API key provided: ${KEY}. Check it.` });
    const error = await getStructuredPlan(config(), 's', 'u', once).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).not.toContain(KEY);
    expect((error as ProviderError).message).toContain('Invalid API key provided: ****. Check it.');
  });

  it('token counts no server could mean (astronomical, negative, text) count as no usage reported', async () => {
    const absurd = [
      { input: 1e300, output: 5 },
      { input: 10, output: -3 },
      { input: '\u001b]0;x\u0007' as unknown as number, output: 5 },
    ];
    for (const usage of absurd) {
      server.reply({ type: 'text', text: JSON.stringify(SAMPLE_PLAN), usage });
      const result = await getStructuredPlan(config(), 's', 'u', once);
      // Where the protocol has no usage to report, OpenAI-compatible clients estimate it from the text.
      if (result.usage) expect(result.usage.estimated).toBe(true);
    }
  });
});

describe('the timeout', () => {
  it('a timeout past what a timer can hold still waits for the reply (it fired at once)', async () => {
    server.reply({ type: 'text', text: JSON.stringify(SAMPLE_PLAN), chunkChars: 40, intervalMs: 5 });
    const result = await getStructuredPlan(backends[0]!.config(), 's', 'u', { ...once, timeoutMs: 3_000_000_000 });
    expect(result.plan.patches).toHaveLength(1);
  });
});

describe('a model list', () => {
  it('offers only ids a person could mean: no escapes, no text-reordering marks, no non-strings, no repeats', async () => {
    const listing = await startProviderServer({
      models: [
        'gpt-4o',
        'evil\u001b]0;title\u0007',
        'rtl\u202egpt',
        42 as unknown as string,
        '',
        'x'.repeat(300),
        'gpt-4o',
        'ok/model:7b',
      ],
    });
    try {
      for (const provider of ['openai', 'groq'] as const) {
        const baseURL = provider === 'openai' ? `${listing.url}/v1` : listing.url;
        const ids = await listProviderModels({ provider, name: provider, model: 'm', apiKey: 'k', baseURL });
        expect(ids, provider).toEqual(['gpt-4o', 'ok/model:7b']);
      }
    } finally {
      await listing.close();
    }
  });
});

describe('what a reply says about itself', () => {
  it('a reported model name that no model has (escapes, not a string, too long) gives way to the configured one', async () => {
    const config = backends[0]!.config();
    for (const model of ['evil\u001b]0;title\u0007', { a: 1 }, 'x'.repeat(300), 'gpt-4o-2024-08-06']) {
      const chunk = (delta: unknown, finish: string | null) => ({
        data: {
          id: 'c',
          object: 'chat.completion.chunk',
          created: 1,
          model,
          choices: [{ index: 0, delta, finish_reason: finish }],
        },
      });
      const fixture = {
        source: {},
        protocol: 'openai' as const,
        events: [chunk({ content: '$TEXT' }, null), chunk({}, 'stop')],
      };
      server.reply({ type: 'fixture', fixture, text: JSON.stringify(SAMPLE_PLAN) });
      const result = await getStructuredPlan(config, 's', 'u', once);
      expect(result.reply.model).toBe(model === 'gpt-4o-2024-08-06' ? model : 'm');
    }
  });
});

describe('a base URL holding credentials', () => {
  it('never shows the password in an error (fetch refuses such a URL, and the message named it whole)', async () => {
    const withPassword = `${server.url.replace('http://', 'http://bob:hunter2secret@')}/v1`;
    const config: ProviderConfig = {
      provider: 'openai',
      name: 'openai',
      model: 'm',
      apiKey: KEY,
      baseURL: withPassword,
    };
    const error = await getStructuredPlan(config, 's', 'u', once).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(`${(error as ProviderError).message} ${(error as ProviderError).hint}`).not.toContain('hunter2secret');
    expect((error as ProviderError).message).toContain('http://***:***@127.0.0.1:');
  });
});
