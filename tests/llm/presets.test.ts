import { describe, expect, it } from 'vitest';
import { resolveProviderConfig } from '../../config/config.js';
import { findRegistryEntry } from '../../config/registry.js';
import { getStructuredPlan } from '../../llm/provider.js';
import { ConfigError } from '../../utils/errors.js';
import { SAMPLE_PLAN, useLoopbackProvider } from '../support/provider-env.js';
import { replies } from '../support/provider-server.js';

// Hosted OpenAI-compatible presets: selectable by name, each with its key variable, base URL,
// headers and JSON mode; exercised through the real openai SDK against the loopback server (the
// entry's baseURL points there, as a user's override would).

const server = useLoopbackProvider();
const fast = { retry: { baseDelayMs: 1 } };

const presets = [
  {
    id: 'openrouter',
    env: 'OPENROUTER_API_KEY',
    baseURL: 'https://openrouter.ai/api/v1',
    model: 'openai/gpt-4.1-mini',
    format: 'json_schema',
    streamOptions: true,
  },
  {
    id: 'deepseek',
    env: 'DEEPSEEK_API_KEY',
    baseURL: 'https://api.deepseek.com/v1',
    model: 'deepseek-chat',
    format: 'json_object',
    streamOptions: true,
  },
  {
    id: 'mistral',
    env: 'MISTRAL_API_KEY',
    baseURL: 'https://api.mistral.ai/v1',
    model: 'mistral-large-latest',
    format: 'json_schema',
    streamOptions: false,
  },
] as const;

describe.each(presets)('$id preset', (preset) => {
  it('--provider <name> with only its key variable set resolves to the service', () => {
    const env = { [preset.env]: 'key-0123456789', OPENAI_API_KEY: 'sk-openai-must-not-leak' };
    const config = resolveProviderConfig({ config: { providers: {} }, env, provider: preset.id });
    expect(config).toEqual({
      provider: 'openai',
      name: preset.id,
      preset: preset.id,
      model: preset.model,
      apiKey: 'key-0123456789',
      keySource: preset.env,
      baseURL: preset.baseURL,
      jsonMode: preset.format,
    });
    expect(findRegistryEntry(preset.id)?.keyEnv).toBe(preset.env);
  });

  it('without its key variable it is not configured, and says which variable to set', () => {
    const call = (): unknown =>
      resolveProviderConfig({ config: { providers: {} }, env: { OPENAI_API_KEY: 'sk-x' }, provider: preset.id });
    expect(call).toThrow(ConfigError);
    try {
      call();
    } catch (error) {
      expect((error as ConfigError).hint).toContain(preset.env);
    }
  });

  it('sends its JSON mode, key and headers through the openai SDK', async () => {
    const env = { [preset.env]: 'key-0123456789' };
    const config = resolveProviderConfig({
      config: { providers: { [preset.id]: { provider: 'openai', preset: preset.id, baseURL: `${server.url}/v1` } } },
      env,
    });
    server.reply(replies.plan(SAMPLE_PLAN, { usage: { input: 20, output: 10 } }));
    const result = await getStructuredPlan(config!, 's', 'u', fast);
    expect(result.plan.patches).toHaveLength(1);
    const [request] = server.completions();
    expect(request?.headers.authorization).toBe('Bearer key-0123456789');
    expect(request?.body.response_format.type).toBe(preset.format);
    expect(request?.body.model).toBe(preset.model);
    expect(Boolean(request?.body.stream_options)).toBe(preset.streamOptions);
    if (preset.id === 'openrouter') expect(request?.headers['x-title']).toBe('clawcode');
    // Mistral reports usage without stream_options; the loopback server does not, so it is estimated.
    if (preset.streamOptions) expect(result.usage).toEqual({ inputTokens: 20, outputTokens: 10, totalTokens: 30 });
    else expect(result.usage?.estimated).toBe(true);
  });
});

describe('errors name the preset, not OpenAI', () => {
  it('a refused DeepSeek key names DEEPSEEK_API_KEY', async () => {
    const config = resolveProviderConfig({
      config: { providers: { deepseek: { provider: 'openai', preset: 'deepseek', baseURL: `${server.url}/v1` } } },
      env: { DEEPSEEK_API_KEY: 'bad-key-0123' },
    });
    server.reply(replies.unauthorized());
    await expect(getStructuredPlan(config!, 's', 'u', fast)).rejects.toThrow(
      /^DeepSeek rejected the API key from DEEPSEEK_API_KEY \(HTTP 401\)/,
    );
  });
});
