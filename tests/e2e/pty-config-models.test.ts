import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliInPty } from '../support/pty.js';

// `clawcode config` of the built CLI in an 80x24 terminal, against the loopback server's `GET /v1/models`: the
// model question offers the models the server lists (the same call checks the key), and the menu can pick
// an entry's model from that list.

const pty = useCliInPty({
  prefix: 'clawcode-pty-config-models-',
  files: {},
  rows: 24,
  models: ['llama3.2:3b', 'qwen2.5-coder:7b', 'mistral:7b'],
});

const config = async () => JSON.parse(await readFile(join(pty.env.CLAWCODE_HOME!, 'config.json'), 'utf8'));

describe('clawcode config with a server that lists its models', () => {
  it(
    'add: the model question lists the server’s models; typing narrows, Enter saves the one picked',
    { timeout: 60_000 },
    async () => {
      const s = pty.start(['config', 'add', 'openai-compatible'], 80);
      await s.answer('Name for this provider', 'local\r');
      await s.answer('Base URL', `${pty.server.url}/v1\r`);
      await s.answer('API key', 'sk-test-pty\r');
      await s.waitFor('mistral:7b');
      const screen = (await s.screen()).join('\n');
      expect(screen).toContain('Model (type to narrow the list)');
      expect(screen).toMatch(/llama3\.2:3b\s+qwen2\.5-coder:7b\s+mistral:7b/);
      s.mark();
      s.write('qwen');
      await s.waitFor('qwen');
      s.write('\r');
      await s.waitFor('Saved local');
      expect(await s.exitCode()).toBe(0);
      expect((await config()).providers.local).toEqual({
        provider: 'openai',
        baseURL: `${pty.server.url}/v1`,
        apiKey: 'sk-test-pty',
        model: 'qwen2.5-coder:7b',
      });
      // One call: the list that checks the key.
      expect(pty.server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models']);
    },
  );

  it('the menu picks an entry’s model from the server’s list', { timeout: 60_000 }, async () => {
    await writeFile(
      join(pty.env.CLAWCODE_HOME!, 'config.json'),
      JSON.stringify({
        defaultProvider: 'local',
        providers: {
          local: { provider: 'openai', baseURL: `${pty.server.url}/v1`, apiKey: 'sk-test-pty', model: 'llama3.2:3b' },
        },
      }),
      { mode: 0o600 },
    );
    const s = pty.start(['config'], 80);
    await s.waitFor('What do you want to do?');
    s.mark();
    // Down to "Pick a provider's model from the server's list" (after Add and Edit).
    s.write('\u001b[B\u001b[B');
    await s.waitFor("❯ Pick a provider's model");
    s.write('\r');
    await s.answer('Model of which provider?', '\r');
    await s.answer('mistral:7b', 'mis');
    await s.waitFor('❯ mistral:7b');
    s.write('\r');
    await s.waitFor('Saved local: model mistral:7b.');
    await s.answer('What do you want to do?', '\u001b[A\r');
    expect(await s.exitCode()).toBe(0);
    expect((await config()).providers.local.model).toBe('mistral:7b');
  });
});
