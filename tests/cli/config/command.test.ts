import { screen } from '@inquirer/testing/vitest';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatProviderRow, runConfigCommand } from '../../../cli/config/command.js';
import { checkCredentialsAndModel, runOnboarding } from '../../../cli/config/onboarding.js';
import { readConfig, resolveProviderConfig, writeConfig } from '../../../config/config.js';
import { PROVIDER_REGISTRY } from '../../../config/registry.js';
import { getStructuredPlan } from '../../../llm/provider.js';
import { ConfigError, InterruptedError, ProviderError, UsageError } from '../../../utils/errors.js';
import { isolateProviderEnv, SAMPLE_PLAN } from '../../support/provider-env.js';
import { replies, startProviderServer, type ProviderServer } from '../../support/provider-server.js';

const GOOD_KEY = 'sk-good-0123456789abcdef';
let server: ProviderServer;
let home: string;
let cleanup: () => void;
let lines: string[];

beforeAll(async () => {
  server = await startProviderServer({ apiKey: GOOD_KEY, models: ['gpt-4o-mini'] });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  ({ home, cleanup } = isolateProviderEnv());
  server.reset();
  lines = [];
});
afterEach(() => cleanup());

const print = (line: string): void => void lines.push(line);

/** Wait until the prompt screen shows `text` (prompts appear after async work). */
async function waitForScreen(text: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (screen.getScreen().includes(text)) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`screen never showed "${text}"; it shows:\n${screen.getScreen()}`);
}

describe('runOnboarding', () => {
  it('welcome, pick OpenAI, key masked, credentials checked with a real call, saved 0600 as default', async () => {
    const env = { CLAWCODE_HOME: home, OPENAI_BASE_URL: `${server.url}/v1` };
    const done = runOnboarding({ env, print });
    await waitForScreen('Pick a provider to set up');
    expect(screen.getScreen()).toContain('Skip for now');
    screen.keypress('enter'); // OpenAI is first
    await waitForScreen('Name for this provider');
    screen.keypress('enter'); // default name "openai"
    await waitForScreen('OpenAI API key');
    screen.type(GOOD_KEY);
    expect(screen.getScreen()).not.toContain(GOOD_KEY);
    screen.keypress('enter');
    await waitForScreen('Model');
    screen.keypress('enter'); // gpt-4o-mini
    await waitForScreen('Add another provider?');
    screen.keypress('enter'); // default No
    const config = await done;
    expect(lines[0]).toMatch(/^Welcome to clawcode/);
    expect(lines).toContain('Credentials work.');
    expect(config).toEqual({
      defaultProvider: 'openai',
      providers: { openai: { provider: 'openai', apiKey: GOOD_KEY, model: 'gpt-4o-mini' } },
    });
    expect(await readConfig(env)).toEqual(config);
    expect(statSync(join(home, 'config.json')).mode & 0o777).toBe(0o600);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models']);
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${GOOD_KEY}`);
  });

  it('a rejected key is reported in one line, re-entered, then saved', async () => {
    const env = { CLAWCODE_HOME: home, OPENAI_BASE_URL: `${server.url}/v1` };
    const done = runOnboarding({ env, print });
    await waitForScreen('Pick a provider to set up');
    screen.keypress('enter');
    await waitForScreen('Name for this provider');
    screen.keypress('enter');
    await waitForScreen('OpenAI API key');
    screen.type('sk-wrong-0123456789');
    screen.keypress('enter');
    await waitForScreen('Model');
    screen.keypress('enter');
    await waitForScreen('What now?');
    // OPENAI_BASE_URL points at the loopback server: the message names that host, not OpenAI.
    expect(lines.some((l) => /^Check failed: 127\.0\.0\.1:\d+ rejected the API key/.test(l))).toBe(true);
    expect(lines.join('\n')).not.toContain('sk-wrong-0123456789');
    screen.keypress('enter'); // Re-enter the settings
    await waitForScreen('OpenAI API key');
    screen.type(GOOD_KEY);
    screen.keypress('enter');
    await waitForScreen('Model');
    screen.keypress('enter');
    await waitForScreen('Add another provider?');
    screen.keypress('enter');
    const config = await done;
    expect(config?.providers.openai?.apiKey).toBe(GOOD_KEY);
    expect(server.requests.filter((r) => r.path === '/v1/models')).toHaveLength(2);
  });

  it('a key already in OPENAI_API_KEY can be used without storing it', async () => {
    const env = { CLAWCODE_HOME: home, OPENAI_API_KEY: GOOD_KEY, OPENAI_BASE_URL: `${server.url}/v1` };
    const done = runOnboarding({ env, print });
    await waitForScreen('Pick a provider to set up');
    screen.keypress('enter');
    await waitForScreen('Name for this provider');
    screen.keypress('enter');
    await waitForScreen('Use the key from OPENAI_API_KEY');
    screen.keypress('enter'); // Yes
    await waitForScreen('Model');
    screen.keypress('enter');
    await waitForScreen('Add another provider?');
    screen.keypress('enter');
    const config = await done;
    expect(config?.providers.openai).toEqual({ provider: 'openai', model: 'gpt-4o-mini' });
    expect(readFileSync(join(home, 'config.json'), 'utf8')).not.toContain(GOOD_KEY);
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${GOOD_KEY}`);
  });

  it('add with a preset kind: ollama asks for the URL and model, no key', async () => {
    const check = vi.fn(async () => {});
    const adding = runConfigCommand({
      action: 'add',
      kind: 'ollama',
      env: { CLAWCODE_HOME: home },
      print,
      interactive: true,
      checkCredentials: check,
    });
    await waitForScreen('Name for this provider');
    screen.keypress('enter');
    await waitForScreen('Server URL');
    screen.keypress('enter');
    await waitForScreen('Model');
    screen.keypress('enter');
    await adding;
    expect(await readConfig({ CLAWCODE_HOME: home })).toEqual({
      defaultProvider: 'ollama',
      providers: {
        ollama: { provider: 'openai', preset: 'ollama', baseURL: 'http://localhost:11434/v1', model: 'qwen2.5-coder' },
      },
    });
    expect(check).toHaveBeenCalledWith(
      expect.objectContaining({ preset: 'ollama', baseURL: 'http://localhost:11434/v1' }),
    );
  });

  it('skip saves nothing and returns undefined', async () => {
    const done = runOnboarding({ env: { CLAWCODE_HOME: home }, print });
    await waitForScreen('Pick a provider to set up');
    for (let i = 0; i < PROVIDER_REGISTRY.length; i++) screen.keypress('down'); // past every registry kind
    await waitForScreen('❯ Skip for now');
    screen.keypress('enter');
    expect(await done).toBeUndefined();
    expect(existsSync(join(home, 'config.json'))).toBe(false);
  });

  it('Ctrl-C in a prompt is an InterruptedError', async () => {
    const done = runOnboarding({ env: { CLAWCODE_HOME: home }, print });
    await waitForScreen('Pick a provider to set up');
    screen.keypress({ name: 'c', ctrl: true });
    await expect(done).rejects.toBeInstanceOf(InterruptedError);
  });
});

describe('runConfigCommand', () => {
  it('list prints entries with keys masked and the default starred, without prompting', async () => {
    const env = { CLAWCODE_HOME: home, GROQ_API_KEY: 'gsk_env_0123456789abcdef' };
    await writeConfig(
      {
        defaultProvider: 'local',
        providers: {
          local: { provider: 'openai', preset: 'ollama' },
          oa: { provider: 'openai', apiKey: 'sk-proj-secret-0123456789' },
        },
      },
      env,
    );
    await runConfigCommand({ action: 'list', env, print, interactive: false });
    const out = lines.join('\n');
    expect(out).toContain('* local  (ollama)  model qwen2.5-coder  http://localhost:11434/v1');
    expect(out).toContain('  oa  (openai)');
    expect(out).toContain('sk-…6789');
    expect(out).toContain('groq  (groq)');
    expect(out).toContain('[env only]');
    expect(out).not.toContain('secret');
    expect(out).not.toContain('0123456789abcdef');
  });

  it('without a terminal, anything but list is a UsageError', async () => {
    await expect(runConfigCommand({ env: { CLAWCODE_HOME: home }, print, interactive: false })).rejects.toBeInstanceOf(
      UsageError,
    );
  });

  it('set default and remove, through the menu-less actions', async () => {
    const env = { CLAWCODE_HOME: home };
    await writeConfig(
      {
        defaultProvider: 'a',
        providers: { a: { provider: 'groq', apiKey: 'k1' }, b: { provider: 'gemini', apiKey: 'k2' } },
      },
      env,
    );
    await runConfigCommand({ action: 'default', name: 'b', env, print, interactive: true });
    expect((await readConfig(env)).defaultProvider).toBe('b');
    const removing = runConfigCommand({ action: 'remove', name: 'b', env, print, interactive: true });
    await waitForScreen('Remove b?');
    screen.type('y');
    screen.keypress('enter');
    await removing;
    expect(await readConfig(env)).toEqual({
      defaultProvider: 'a',
      providers: { a: { provider: 'groq', apiKey: 'k1' } },
    });
  });

  it("edit keeps the key on an empty answer, offers the server's models (the call that checks the key) and saves", async () => {
    const env = { CLAWCODE_HOME: home, OPENAI_BASE_URL: `${server.url}/v1` };
    await writeConfig({ providers: { openai: { provider: 'openai', apiKey: GOOD_KEY, model: 'gpt-4o-mini' } } }, env);
    const check = vi.fn(async () => {});
    const listModels = vi.fn(async () => ['gpt-4o-mini', 'gpt-4.1', 'o3']);
    const editing = runConfigCommand({
      action: 'edit',
      name: 'openai',
      env,
      print,
      interactive: true,
      checkCredentials: check,
      listModels,
    });
    await waitForScreen('empty keeps the current one');
    screen.keypress('enter');
    await waitForScreen('type to narrow the list');
    expect(screen.getScreen()).toMatch(/❯ gpt-4o-mini\s+gpt-4\.1\s+o3/);
    screen.type('4.1');
    await waitForScreen('❯ gpt-4.1');
    screen.keypress('enter');
    await editing;
    expect((await readConfig(env)).providers.openai).toEqual({
      provider: 'openai',
      apiKey: GOOD_KEY,
      model: 'gpt-4.1',
    });
    expect(listModels).toHaveBeenCalledWith(expect.objectContaining({ apiKey: GOOD_KEY }));
    expect(lines).toContain('Credentials work.');
    expect(check).not.toHaveBeenCalled();
  });

  it('model options: temperature, JSON mode and output limit are saved and sent on the wire; empty answers remove them', async () => {
    const env = { CLAWCODE_HOME: home };
    await writeConfig(
      {
        providers: {
          local: { provider: 'openai', apiKey: GOOD_KEY, model: 'gpt-4o-mini', baseURL: `${server.url}/v1` },
        },
      },
      env,
    );
    const tuning = runConfigCommand({ action: 'options', name: 'local', env, print, interactive: true });
    await waitForScreen('Temperature');
    screen.type('3');
    screen.keypress('enter');
    await waitForScreen('A number from 0 to 2');
    screen.keypress('backspace');
    screen.type('0.3');
    screen.keypress('enter');
    await waitForScreen('How to ask for the JSON plan');
    expect(screen.getScreen()).toContain('Provider default (json_schema)');
    screen.keypress('down');
    screen.keypress('down');
    screen.keypress('enter'); // json_object
    await waitForScreen('Max output tokens');
    screen.type('2048');
    screen.keypress('enter');
    await tuning;
    const saved = await readConfig(env);
    expect(saved.providers.local).toEqual({
      provider: 'openai',
      apiKey: GOOD_KEY,
      model: 'gpt-4o-mini',
      baseURL: `${server.url}/v1`,
      temperature: 0.3,
      jsonMode: 'json_object',
      maxOutputTokens: 2048,
    });
    expect(lines).toContain('Saved model options of local.');

    server.reply(replies.plan(SAMPLE_PLAN));
    await getStructuredPlan(resolveProviderConfig({ config: saved, env })!, 'system', 'user');
    const body = server.completions()[0]!.body;
    expect(body).toMatchObject({ temperature: 0.3, response_format: { type: 'json_object' }, max_tokens: 2048 });

    const clearing = runConfigCommand({ action: 'options', name: 'local', env, print, interactive: true });
    await waitForScreen('Temperature');
    for (let i = 0; i < 3; i++) screen.keypress('backspace');
    screen.keypress('enter');
    await waitForScreen('How to ask for the JSON plan');
    screen.keypress('up');
    screen.keypress('up');
    screen.keypress('enter'); // provider default
    await waitForScreen('Max output tokens');
    for (let i = 0; i < 4; i++) screen.keypress('backspace');
    screen.keypress('enter');
    await clearing;
    expect((await readConfig(env)).providers.local).toEqual({
      provider: 'openai',
      apiKey: GOOD_KEY,
      model: 'gpt-4o-mini',
      baseURL: `${server.url}/v1`,
    });
  });

  it('a corrupt config is reported and kept unless the person agrees to move it aside', async () => {
    const env = { CLAWCODE_HOME: home };
    writeFileSync(join(home, 'config.json'), '{ "providers": ');
    const refusing = runConfigCommand({ env, print, interactive: true });
    await waitForScreen('start a new config?');
    screen.keypress('enter'); // default No
    await expect(refusing).rejects.toBeInstanceOf(ConfigError);
    expect(readFileSync(join(home, 'config.json'), 'utf8')).toBe('{ "providers": ');
    expect(lines.some((l) => l.includes('config.json is not valid JSON'))).toBe(true);
    screen.clear();
    const accepting = runConfigCommand({ env, print, interactive: true, action: 'default' });
    await waitForScreen('start a new config?');
    screen.type('y');
    screen.keypress('enter');
    await expect(accepting).rejects.toThrow(/No providers in config.json yet/);
    expect(readdirSync(home).some((f) => f.startsWith('config.json.corrupt-'))).toBe(true);
  });

  it('formatProviderRow shows env-only rows', () => {
    expect(
      formatProviderRow({
        name: 'openai',
        provider: 'openai',
        model: 'gpt-4o-mini',
        maskedKey: 'sk-…abcd',
        keySource: 'OPENAI_API_KEY',
        isDefault: false,
        source: 'env',
      }),
    ).toBe('  openai  (openai)  model gpt-4o-mini  key sk-…abcd from OPENAI_API_KEY  [env only]');
  });

  it('formatProviderRow shows a name or model holding escapes as visible text (config list printed them raw)', () => {
    expect(
      formatProviderRow({
        name: 'x\u001b]0;title\u0007',
        provider: 'openai',
        model: 'm\u001b[2J',
        maskedKey: 'sk-…abcd',
        keySource: 'config.json',
        isDefault: true,
        source: 'config',
      }),
    ).toBe('* x\\x1b]0;title\\x07  (openai)  model m\\x1b[2J  key sk-…abcd from config.json');
  });
});

describe('checkCredentialsAndModel (real openai SDK against the loopback server)', () => {
  it("passes when the server lists the entry's model (or name:latest) and says which models it has when it does not", async () => {
    const server = await startProviderServer({ apiKey: 'sk-check', models: ['gpt-4o-mini', 'qwen2.5-coder:latest'] });
    try {
      const base = { provider: 'openai' as const, name: 'local', apiKey: 'sk-check', baseURL: `${server.url}/v1` };
      await expect(checkCredentialsAndModel({ ...base, model: 'gpt-4o-mini' })).resolves.toBeUndefined();
      await expect(checkCredentialsAndModel({ ...base, model: 'qwen2.5-coder' })).resolves.toBeUndefined();
      await expect(checkCredentialsAndModel({ ...base, model: 'gpt-5-typo' })).rejects.toMatchObject({
        code: 'model_not_listed',
        message:
          'The key works, but the server lists no model "gpt-5-typo". It lists: gpt-4o-mini, qwen2.5-coder:latest',
      });
    } finally {
      await server.close();
    }
  });
});

describe('checkCredentialsAndModel for the other providers (real SDKs against the loopback server)', () => {
  it('groq, gemini and anthropic: the model is looked up too, and an unknown one fails in one line', async () => {
    const server = await startProviderServer({
      apiKey: 'key-check',
      models: ['llama-3.3-70b-versatile', 'gemini-2.5-flash', 'claude-sonnet-4-6'],
    });
    try {
      const entries = [
        { provider: 'groq' as const, name: 'groq', model: 'llama-3.3-70b-versatile' },
        { provider: 'gemini' as const, name: 'gemini', model: 'gemini-2.5-flash' },
        { provider: 'anthropic' as const, name: 'anthropic', model: 'claude-sonnet-4-6' },
      ];
      for (const entry of entries) {
        const config = { ...entry, apiKey: 'key-check', baseURL: server.url };
        await expect(checkCredentialsAndModel(config)).resolves.toBeUndefined();
        const error = (await checkCredentialsAndModel({ ...config, model: 'model-typo' }).catch(
          (e: unknown) => e,
        )) as ProviderError;
        expect(error, entry.provider).toBeInstanceOf(ProviderError);
        expect(error.code, entry.provider).toBe('provider_not_found');
        expect(error.message, entry.provider).toContain('"model-typo"');
        expect(error.message, entry.provider).not.toContain('\n');
        expect(error.hint, entry.provider).toBeTruthy();
      }
    } finally {
      await server.close();
    }
  });
});
