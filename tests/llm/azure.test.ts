import { describe, expect, it, vi } from 'vitest';
import { resolveProviderConfig } from '../../config/config.js';
import { azureJsonMode } from '../../llm/azure.js';
import { checkProviderCredentials, getStructuredPlan } from '../../llm/provider.js';
import type { ProviderConfig } from '../../llm/types.js';
import type { ProviderError } from '../../utils/errors.js';
import { SAMPLE_PLAN, useLoopbackProvider } from '../support/provider-env.js';
import { replies, startProviderServer } from '../support/provider-server.js';

const server = useLoopbackProvider();
const fast = { retry: { baseDelayMs: 1 } };

function azure(overrides: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    provider: 'azure',
    name: 'work',
    model: 'my-dep',
    deployment: 'my-dep',
    endpoint: server.url,
    apiKey: 'azure-key-0123456789',
    apiVersion: '2024-10-21',
    keySource: 'AZURE_OPENAI_API_KEY',
    ...overrides,
  };
}

describe('azure client', () => {
  it('uses the deployments path with api-version and the api-key header, streamed with usage', async () => {
    server.reply(replies.plan(SAMPLE_PLAN, { usage: { input: 7, output: 3 } }));
    const result = await getStructuredPlan(azure(), 's', 'u', fast);
    expect(result.usage).toEqual({ inputTokens: 7, outputTokens: 3, totalTokens: 10 });
    const [request] = server.completions();
    expect(request?.path).toBe('/openai/deployments/my-dep/chat/completions');
    expect(request?.query['api-version']).toBe('2024-10-21');
    expect(request?.headers['api-key']).toBe('azure-key-0123456789');
    expect(request?.body.stream).toBe(true);
    expect(request?.body.response_format.type).toBe('json_schema');
  });

  it('works while OPENAI_BASE_URL is set (the SDK would otherwise refuse endpoint + baseURL)', async () => {
    vi.stubEnv('OPENAI_BASE_URL', 'http://127.0.0.1:9/v1');
    server.reply(replies.plan(SAMPLE_PLAN));
    await getStructuredPlan(azure(), 's', 'u', fast);
    expect(server.completions()[0]?.path).toBe('/openai/deployments/my-dep/chat/completions');
  });

  it('the v1 API shape: plain client on <endpoint>/openai/v1/, deployment as the model, no api-version', async () => {
    server.reply(replies.plan(SAMPLE_PLAN));
    await getStructuredPlan(azure({ apiVersion: 'v1' }), 's', 'u', fast);
    const [request] = server.completions();
    expect(request?.path).toBe('/openai/v1/chat/completions');
    expect(request?.query['api-version']).toBeUndefined();
    expect(request?.body.model).toBe('my-dep');
    expect(request?.headers['api-key']).toBe('azure-key-0123456789');
  });

  it('older API versions get JSON mode or prompt-only', async () => {
    expect(azureJsonMode('2024-02-01')).toBe('json_object');
    expect(azureJsonMode('2023-05-15')).toBe('prompt');
    expect(azureJsonMode('2024-08-01-preview')).toBe('json_schema');
    server.reply(replies.plan(SAMPLE_PLAN));
    await getStructuredPlan(azure({ apiVersion: '2024-02-01' }), 's', 'u', fast);
    expect(server.completions()[0]?.body.response_format).toEqual({ type: 'json_object' });
  });

  it('401 names the env var; 404 names the deployment', async () => {
    server.reply(replies.unauthorized(), replies.status(404, 'The API deployment for this resource does not exist.'));
    await expect(getStructuredPlan(azure(), 's', 'u', fast)).rejects.toThrow(/AZURE_OPENAI_API_KEY/);
    await expect(getStructuredPlan(azure(), 's', 'u', fast)).rejects.toThrow(/unknown deployment "my-dep"/);
  });

  it('429 with Retry-After is retried; a truncated reply is reported', async () => {
    server.reply(replies.rateLimited(0), replies.truncated());
    const error = await getStructuredPlan(azure(), 's', 'u', fast).catch((e: unknown) => e);
    expect((error as ProviderError).code).toBe('provider_truncated');
    expect(server.completions()).toHaveLength(2);
  });

  it('works from env vars alone', async () => {
    const config = resolveProviderConfig({
      config: { providers: {} },
      env: {
        AZURE_OPENAI_API_KEY: 'k-0123456789abc',
        AZURE_OPENAI_ENDPOINT: server.url,
        AZURE_OPENAI_DEPLOYMENT: 'envdep',
      },
    });
    server.reply(replies.plan(SAMPLE_PLAN));
    await getStructuredPlan(config!, 's', 'u', fast);
    expect(server.completions()[0]?.url).toBe('/openai/deployments/envdep/chat/completions?api-version=2024-10-21');
  });

  it('credential check: a one-token request; 401 fails, success passes', async () => {
    server.reply(replies.plan({}), replies.unauthorized());
    await checkProviderCredentials(azure());
    expect(server.completions()[0]?.body.max_tokens).toBe(1);
    await expect(checkProviderCredentials(azure())).rejects.toThrow(/rejected the API key/);
  });

  it('credential check: a deployment that does not exist (404 DeploymentNotFound) fails in one line', async () => {
    const strict = await startProviderServer({ deployments: ['my-dep'] });
    try {
      strict.setFallback(replies.text('OK'));
      await checkProviderCredentials(azure({ endpoint: strict.url }));
      for (const config of [
        azure({ endpoint: strict.url, deployment: 'no-dep', model: 'no-dep' }),
        azure({ endpoint: strict.url, deployment: 'no-dep', model: 'no-dep', apiVersion: 'v1' }),
      ]) {
        const error = (await checkProviderCredentials(config).catch((e: unknown) => e)) as ProviderError;
        expect(error).toMatchObject({ code: 'provider_not_found', status: 404 });
        expect(error.message).toMatch(
          /^work \(Azure OpenAI\): unknown deployment "no-dep" \(HTTP 404\): The API deployment/,
        );
        expect(error.message).not.toContain('\n');
        expect(error.hint).toMatch(/deployment name/);
      }
      expect(strict.completions().map((r) => r.path)).toEqual([
        '/openai/deployments/my-dep/chat/completions',
        '/openai/deployments/no-dep/chat/completions',
        '/openai/v1/chat/completions',
      ]);
    } finally {
      await strict.close();
    }
  });
});
