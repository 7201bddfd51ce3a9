import { mkdirSync, readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  listConfiguredProviders,
  maskKey,
  readConfig,
  resolveProviderConfig,
  writeConfig,
  type ClawcodeConfig,
} from '../../config/config.js';
import { ConfigError, UsageError } from '../../utils/errors.js';
import { isolateProviderEnv } from '../support/provider-env.js';

let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ home, cleanup } = isolateProviderEnv());
});
afterEach(() => cleanup());

const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ CLAWCODE_HOME: home, ...extra });

describe('readConfig / writeConfig', () => {
  it('a missing file is an empty config', async () => {
    expect(await readConfig(env())).toEqual({ providers: {} });
  });

  it('round-trips, with file 0600 and folder 0700 even over an existing 0644 file', async () => {
    const nested = join(home, 'nested');
    const config: ClawcodeConfig = {
      defaultProvider: 'openai',
      providers: { openai: { provider: 'openai', apiKey: 'sk-abcdefghijklmnop', model: 'gpt-4o' } },
    };
    await writeConfig(config, env({ CLAWCODE_HOME: nested }));
    const file = join(nested, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(nested).mode & 0o777).toBe(0o700);
    chmodSync(file, 0o644);
    await writeConfig({ ...config, defaultProvider: undefined }, env({ CLAWCODE_HOME: nested }));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await readConfig(env({ CLAWCODE_HOME: nested }))).toEqual({ providers: config.providers });
  });

  it('a corrupt file is a ConfigError naming the file and the position, and is left untouched', async () => {
    const file = join(home, 'config.json');
    const text = '{\n  "providers": {\n    "openai": { "provider": "openai", }\n  }\n}\n';
    writeFileSync(file, text);
    const error = await readConfig(env()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(file);
    expect((error as ConfigError).message).toMatch(/line 3, column \d+/);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('a wrong shape names the field', async () => {
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'config.json'), JSON.stringify({ providers: { x: { provider: 'cohere' } } }));
    await expect(readConfig(env())).rejects.toThrow(/providers\.x\.provider/);
  });
});

describe('resolveProviderConfig', () => {
  const two: ClawcodeConfig = {
    providers: {
      work: {
        provider: 'azure',
        endpoint: 'https://r.openai.azure.com',
        apiKey: 'azure-key-0123456789',
        deployment: 'gpt4o-dep',
      },
      local: { provider: 'openai', preset: 'ollama' },
    },
  };

  it('env only: OPENAI_API_KEY and OPENAI_BASE_URL make an openai provider', () => {
    const resolved = resolveProviderConfig({
      config: { providers: {} },
      env: env({ OPENAI_API_KEY: 'sk-env', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' }),
    });
    expect(resolved).toMatchObject({
      provider: 'openai',
      name: 'openai',
      model: 'gpt-4o-mini',
      apiKey: 'sk-env',
      baseURL: 'http://127.0.0.1:1/v1',
      keySource: 'OPENAI_API_KEY',
    });
  });

  it("a provider named after an Object member is unknown, not Object's member (it ended in an internal error)", () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(
        () => resolveProviderConfig({ config: two, env: env({ OPENAI_API_KEY: 'k' }), provider: name }),
        name,
      ).toThrow(UsageError);
      expect(() => resolveProviderConfig({ config: { ...two, defaultProvider: name }, env: env() }), name).toThrow(
        /The default provider ".+" has no entry in config\.json/,
      );
    }
  });

  it('nothing configured is undefined', () => {
    expect(resolveProviderConfig({ config: { providers: {} }, env: env() })).toBeUndefined();
  });

  it('env-only order: openai, azure, groq, gemini; GOOGLE_API_KEY stands in for GEMINI_API_KEY', () => {
    expect(
      resolveProviderConfig({ config: { providers: {} }, env: env({ GROQ_API_KEY: 'g', GOOGLE_API_KEY: 'k' }) })
        ?.provider,
    ).toBe('groq');
    const gemini = resolveProviderConfig({
      config: { providers: {} },
      env: env({ GOOGLE_API_KEY: 'k', GEMINI_BASE_URL: 'http://127.0.0.1:2' }),
    });
    expect(gemini).toMatchObject({
      provider: 'gemini',
      apiKey: 'k',
      keySource: 'GOOGLE_API_KEY',
      baseURL: 'http://127.0.0.1:2',
      model: 'gemini-2.5-flash',
    });
    const azure = resolveProviderConfig({
      config: { providers: {} },
      env: env({
        AZURE_OPENAI_API_KEY: 'a',
        AZURE_OPENAI_ENDPOINT: 'https://x',
        AZURE_OPENAI_DEPLOYMENT: 'dep',
        OPENAI_API_VERSION: '2024-10-21',
      }),
    });
    expect(azure).toMatchObject({
      provider: 'azure',
      endpoint: 'https://x',
      deployment: 'dep',
      model: 'dep',
      apiVersion: '2024-10-21',
    });
  });

  it('--provider beats the default, the default beats the only entry, and --model overrides', () => {
    const config: ClawcodeConfig = { ...two, defaultProvider: 'local' };
    expect(resolveProviderConfig({ config, env: env(), provider: 'work' })?.name).toBe('work');
    expect(resolveProviderConfig({ config, env: env() })).toMatchObject({
      name: 'local',
      preset: 'ollama',
      baseURL: 'http://localhost:11434/v1',
      model: 'qwen2.5-coder',
    });
    expect(resolveProviderConfig({ config, env: env(), model: 'llama3.1' })?.model).toBe('llama3.1');
    expect(resolveProviderConfig({ config, env: env(), provider: 'work', model: 'other-dep' })).toMatchObject({
      deployment: 'other-dep',
    });
  });

  it('the only entry is used; several without a default is a ConfigError', () => {
    expect(resolveProviderConfig({ config: { providers: { local: two.providers.local! } }, env: env() })?.name).toBe(
      'local',
    );
    expect(() => resolveProviderConfig({ config: two, env: env() })).toThrow(ConfigError);
  });

  it('--provider accepts a backend or preset id and finds its entry or falls back to env', () => {
    expect(resolveProviderConfig({ config: two, env: env(), provider: 'azure' })?.name).toBe('work');
    expect(resolveProviderConfig({ config: two, env: env({ GROQ_API_KEY: 'gk' }), provider: 'groq' })).toMatchObject({
      name: 'groq',
      apiKey: 'gk',
    });
    expect(resolveProviderConfig({ config: { providers: {} }, env: env(), provider: 'lmstudio' })).toMatchObject({
      preset: 'lmstudio',
      baseURL: 'http://localhost:1234/v1',
    });
    expect(() => resolveProviderConfig({ config: two, env: env(), provider: 'gemini' })).toThrow(/not configured/);
    expect(() => resolveProviderConfig({ config: two, env: env(), provider: 'nope' })).toThrow(UsageError);
  });

  it('env vars fill missing fields of an entry; the entry wins where it has a value', () => {
    const config: ClawcodeConfig = { providers: { openai: { provider: 'openai', model: 'gpt-4.1' } } };
    const resolved = resolveProviderConfig({ config, env: env({ OPENAI_API_KEY: 'sk-from-env' }) });
    expect(resolved).toMatchObject({ apiKey: 'sk-from-env', keySource: 'OPENAI_API_KEY', model: 'gpt-4.1' });
    const withKey = resolveProviderConfig({
      config: { providers: { openai: { provider: 'openai', apiKey: 'sk-file' } } },
      env: env({ OPENAI_API_KEY: 'sk-env' }),
    });
    expect(withKey).toMatchObject({ apiKey: 'sk-file', keySource: 'config.json providers.openai.apiKey' });
  });

  it('OPENAI_API_KEY is never sent to a preset or another server', () => {
    const resolved = resolveProviderConfig({
      config: { providers: { local: { provider: 'openai', preset: 'ollama' } } },
      env: env({ OPENAI_API_KEY: 'sk-secret' }),
    });
    expect(resolved?.apiKey).toBeUndefined();
  });

  it('a default naming a missing entry is a ConfigError', () => {
    expect(() => resolveProviderConfig({ config: { defaultProvider: 'gone', providers: {} }, env: env() })).toThrow(
      /gone/,
    );
  });
});

describe('maskKey and listConfiguredProviders', () => {
  it('masks keys', () => {
    expect(maskKey('sk-proj-abcdefghijklmnopqrstuvwxyz')).toBe('sk-…wxyz');
    expect(maskKey('short')).toBe('****');
    expect(maskKey(undefined)).toBe('(none)');
  });

  it('lists entries and env-only backends without any key in clear', () => {
    const rows = listConfiguredProviders(
      {
        defaultProvider: 'work',
        providers: {
          work: { provider: 'azure', endpoint: 'https://r', apiKey: 'azure-key-0123456789', deployment: 'd' },
        },
      },
      env({ GROQ_API_KEY: 'gsk_0123456789abcdef' }),
    );
    expect(rows).toEqual([
      expect.objectContaining({
        name: 'work',
        provider: 'azure',
        isDefault: true,
        source: 'config',
        maskedKey: 'azu…6789',
        url: 'https://r',
      }),
      expect.objectContaining({
        name: 'groq',
        provider: 'groq',
        isDefault: false,
        source: 'env',
        keySource: 'GROQ_API_KEY',
      }),
    ]);
    expect(JSON.stringify(rows)).not.toContain('0123456789abcdef');
  });

  it('shows a base URL with a user name and password in it masked (config list printed the password)', () => {
    const rows = listConfiguredProviders(
      { providers: {} },
      env({ OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: 'https://bob:hunter2secret@gateway.example/v1' }),
    );
    expect(rows[0]?.url).toBe('https://***:***@gateway.example/v1');
  });
});

describe('keys owned by others', () => {
  it('readConfig/writeConfig keep `settings` and unknown keys untouched', async () => {
    const file = join(home, 'config.json');
    writeFileSync(
      file,
      JSON.stringify({
        settings: { budgetChars: 9000 },
        future: [1],
        providers: { g: { provider: 'groq', apiKey: 'k', label: 'mine' } },
      }),
    );
    const config = await readConfig(env());
    await writeConfig({ ...config, defaultProvider: 'g' }, env());
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      settings: { budgetChars: 9000 },
      future: [1],
      defaultProvider: 'g',
      providers: { g: { provider: 'groq', apiKey: 'k', label: 'mine' } },
    });
  });
});
