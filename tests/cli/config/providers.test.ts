import { screen } from '@inquirer/testing/vitest';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runConfigCommand } from '../../../cli/config/command.js';
import { readConfig } from '../../../config/config.js';
import { isolateProviderEnv } from '../../support/provider-env.js';
import { startProviderServer, type ProviderServer } from '../../support/provider-server.js';

// Onboarding of the Anthropic provider and the hosted presets comes from the registry data:
// `clawcode config add <kind>` asks for the key and model, checks them with a real call, saves.

const KEY = 'sk-ant-good-0123456789';
let server: ProviderServer;
let home: string;
let cleanup: () => void;
const lines: string[] = [];
const print = (line: string): void => void lines.push(line);

beforeAll(async () => {
  server = await startProviderServer({ apiKey: KEY, models: ['claude-sonnet-4-6'] });
});
afterAll(async () => server.close());
beforeEach(() => {
  ({ home, cleanup } = isolateProviderEnv());
  server.reset();
  lines.length = 0;
});
afterEach(() => cleanup());

async function waitForScreen(text: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (screen.getScreen().includes(text)) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`screen never showed "${text}"; it shows:\n${screen.getScreen()}`);
}

describe('clawcode config add', () => {
  it('anthropic: key masked, default model, credentials and model checked by getting the model, saved', async () => {
    // ANTHROPIC_BASE_URL stands in for the service, as a user's override would.
    const env = { CLAWCODE_HOME: home, ANTHROPIC_BASE_URL: server.url };
    const adding = runConfigCommand({ action: 'add', kind: 'anthropic', env, print, interactive: true });
    await waitForScreen('Name for this provider');
    screen.keypress('enter');
    await waitForScreen('Anthropic API key');
    screen.type(KEY);
    expect(screen.getScreen()).not.toContain(KEY);
    screen.keypress('enter');
    await waitForScreen('Model');
    expect(screen.getScreen()).toContain('claude-sonnet-4-6');
    screen.keypress('enter');
    await adding;
    expect(lines).toContain('Credentials work.');
    expect(await readConfig(env)).toEqual({
      defaultProvider: 'anthropic',
      providers: { anthropic: { provider: 'anthropic', apiKey: KEY, model: 'claude-sonnet-4-6' } },
    });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models/claude-sonnet-4-6']);
  });

  it('openrouter: saved as an OpenAI-compatible preset that names its key variable', async () => {
    const env = { CLAWCODE_HOME: home };
    const adding = runConfigCommand({
      action: 'add',
      kind: 'openrouter',
      env,
      print,
      interactive: true,
      checkCredentials: async () => undefined,
    });
    await waitForScreen('Name for this provider');
    screen.keypress('enter');
    await waitForScreen('OpenRouter API key');
    screen.type('sk-or-0123456789');
    screen.keypress('enter');
    await waitForScreen('Model');
    screen.keypress('enter');
    await adding;
    expect(await readConfig(env)).toEqual({
      defaultProvider: 'openrouter',
      providers: {
        openrouter: {
          provider: 'openai',
          preset: 'openrouter',
          apiKey: 'sk-or-0123456789',
          model: 'openai/gpt-4.1-mini',
        },
      },
    });
  });
});
