import { createServer, request as httpRequest, type Server } from 'node:http';
import { constants, createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getStructuredPlan } from '../../llm/provider.js';
import type { ProviderConfig } from '../../llm/types.js';
import { SAMPLE_PLAN, useLoopbackProvider } from '../support/provider-env.js';
import { replies } from '../support/provider-server.js';

const server = useLoopbackProvider();
let proxy: Server;
let proxyUrl = '';
let proxied = 0;

// A proxy that gzips every reply of the loopback server, chunked, flushing after every chunk (as a CDN does).
beforeAll(async () => {
  proxy = createServer((req, res) => {
    proxied += 1;
    const target = new URL(req.url ?? '/', server.url);
    const upstream = httpRequest(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (up) => {
        const headers = { ...up.headers };
        delete headers['content-length'];
        res.writeHead(up.statusCode ?? 500, { ...headers, 'content-encoding': 'gzip' });
        const gz = createGzip({ flush: constants.Z_SYNC_FLUSH });
        up.pipe(gz).pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  const address = proxy.address();
  proxyUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(() => new Promise<void>((r) => proxy.close(() => r())));

function configs(): ProviderConfig[] {
  return [
    {
      provider: 'openai',
      name: 'openai',
      model: 'gpt-4o-mini',
      apiKey: 'sk-test-123456789',
      baseURL: `${proxyUrl}/v1`,
      keySource: 'OPENAI_API_KEY',
    },
    {
      provider: 'anthropic',
      name: 'anthropic',
      model: 'claude-sonnet-4-6',
      apiKey: 'sk-ant-test-0123456789',
      baseURL: proxyUrl,
      keySource: 'ANTHROPIC_API_KEY',
    },
    {
      provider: 'gemini',
      name: 'gemini',
      model: 'gemini-2.5-flash',
      apiKey: 'AIza-test-0123456789',
      baseURL: proxyUrl,
      keySource: 'GEMINI_API_KEY',
    },
    {
      provider: 'groq',
      name: 'groq',
      model: 'llama-3.3-70b-versatile',
      apiKey: 'gsk_good_0123456789',
      baseURL: proxyUrl,
      keySource: 'GROQ_API_KEY',
    },
    {
      provider: 'azure',
      name: 'work',
      model: 'my-dep',
      deployment: 'my-dep',
      endpoint: proxyUrl,
      apiKey: 'azure-key-0123456789',
      apiVersion: '2024-10-21',
      keySource: 'AZURE_OPENAI_API_KEY',
    },
  ] as ProviderConfig[];
}

describe('gzip-encoded replies through providerFetch (every provider SDK)', () => {
  for (const [index, provider] of ['openai', 'anthropic', 'gemini', 'groq', 'azure'].entries()) {
    it(`${provider}: a streamed plan in a gzip, chunked body`, async () => {
      const config = configs()[index]!;
      proxied = 0;
      server.reply(replies.plan(SAMPLE_PLAN));
      const result = await getStructuredPlan(config, 's', 'u', { retry: { baseDelayMs: 1 } });
      expect(result.plan.analysis).toBe('Add a greeting.');
      expect(proxied).toBeGreaterThan(0);
    });
    it(`${provider}: a 3 MB plan in a gzip, chunked body passes the caps`, async () => {
      const config = configs()[index]!;
      proxied = 0;
      const big = structuredClone(SAMPLE_PLAN);
      big.patches[0]!.replace = 'x'.repeat(3_000_000);
      server.reply(replies.plan(big));
      const result = await getStructuredPlan(config, 's', 'u', { retry: { baseDelayMs: 1 } });
      expect(result.plan.patches[0]).toMatchObject({ replace: big.patches[0]!.replace });
    }, 60_000);
  }
});
