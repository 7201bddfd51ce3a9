import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { runConfigShow } from '../../../cli/config/show.js';
import { ConfigError } from '../../../utils/errors.js';
import { loadSettings } from '../../../config/settings.js';
import { setProjectTrust } from '../../../config/trust.js';

let home: string;
let root: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
  vi.stubEnv('CLAWCODE_HOME', home);
  root = await mkdtemp(join(tmpdir(), 'clawcode-show-'));
  await mkdir(join(root, '.clawcode'));
  await writeFile(
    join(home, 'config.json'),
    JSON.stringify({
      defaultProvider: 'openai',
      providers: { openai: { apiKey: 'sk-userkeyABCDEFGHIJKLMNOP123456' } },
    }),
  );
  await writeFile(
    join(root, '.clawcode', 'settings.json'),
    JSON.stringify({ budgetChars: 24000, ignore: ['dist/**'], commands: { allow: ['npm test'] } }),
  );
  await writeFile(join(root, '.clawcode', 'settings.local.json'), JSON.stringify({ ignore: ['scratch/'] }));
  // The project's allow rule is a grant: these tests show a project the person has trusted.
  await setProjectTrust(
    home,
    root,
    (await loadSettings({ rootDir: root, env: { CLAWCODE_HOME: home } })).untrusted!.sha256,
  );
});

async function show(options: { env?: NodeJS.ProcessEnv; json?: boolean } = {}): Promise<string> {
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  await runConfigShow({
    rootDir: root,
    env: { CLAWCODE_HOME: home, ...options.env },
    flags: { model: 'gpt-4.1' },
    stdout,
    json: options.json,
  });
  return out;
}

describe('runConfigShow', () => {
  it('prints each merged value with where it came from, then the files looked for', async () => {
    const out = await show({ env: { CLAWCODE_TIMEOUT_MS: '60000' } });
    const lines = out.split('\n');
    const row = (name: string) => lines.find((l) => l.startsWith(`${name} `))?.split(/\s{2,}/);
    expect(lines[0]).toMatch(/^SETTING\s+VALUE\s+SOURCE$/);
    expect(row('provider')).toEqual(['provider', 'openai', `user: ${join(home, 'config.json')}`]);
    expect(row('model')).toEqual(['model', 'gpt-4.1', 'flag: --model']);
    expect(row('budgetChars')).toEqual(['budgetChars', '24000', 'project: .clawcode/settings.json']);
    expect(row('timeoutMs')).toEqual(['timeoutMs', '60000', 'env: CLAWCODE_TIMEOUT_MS']);
    expect(row('ignore')).toEqual([
      'ignore',
      'dist/**, scratch/',
      'project: .clawcode/settings.json + local: .clawcode/settings.local.json',
    ]);
    expect(row('verifyCommand')).toEqual(['verifyCommand', '(not set)', 'default']);
    expect(row('commands')).toEqual(['commands', 'allow: npm test; deny: (none)', 'project: .clawcode/settings.json']);
    expect(row('autoCommit')).toEqual(['autoCommit', 'false', 'default']);
    expect(out).toContain(`  user     ${join(home, 'config.json')}\n`);
    expect(out).toContain(`  local    ${join(root, '.clawcode', 'settings.local.json')}\n`);
    expect(out).not.toContain('sk-userkey');
  });

  it("shows the provider entry's model when no settings layer names one", async () => {
    await writeFile(
      join(home, 'config.json'),
      JSON.stringify({
        defaultProvider: 'work',
        providers: { work: { provider: 'openai', model: 'gpt-4o-mini', apiKey: 'sk-userkeyABCDEFGHIJKLMNOP123456' } },
      }),
    );
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    await runConfigShow({ rootDir: root, env: { CLAWCODE_HOME: home }, flags: {}, stdout });
    const model = out
      .split('\n')
      .find((l) => l.startsWith('model '))
      ?.split(/\s{2,}/);
    expect(model).toEqual(['model', 'gpt-4o-mini', `provider entry "work": ${join(home, 'config.json')}`]);
  });

  it('marks settings files that do not exist', async () => {
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const empty = await mkdtemp(join(tmpdir(), 'clawcode-empty-'));
    await runConfigShow({ rootDir: empty, env: { CLAWCODE_HOME: empty }, flags: {}, stdout });
    expect(out).toContain(`  project  ${join(empty, '.clawcode', 'settings.json')}  (not found)`);
    expect(out).toMatch(/^budgetChars\s+18000\s+default$/m);
  });

  it('prints one JSON document with values, sources and files under --json', async () => {
    const doc = JSON.parse(await show({ json: true, env: { CLAWCODE_AUTO_COMMIT: 'yes' } }));
    expect(doc.values).toEqual({
      provider: 'openai',
      model: 'gpt-4.1',
      budgetChars: 24000,
      timeoutMs: 120000,
      ignore: ['dist/**', 'scratch/'],
      commands: { allow: ['npm test'], deny: [] },
      autoCommit: true,
      repair: true,
    });
    expect(doc.sources.autoCommit).toEqual({ layer: 'env', where: 'CLAWCODE_AUTO_COMMIT' });
    expect(doc.sources.model).toEqual({ layer: 'flag', where: '--model' });
    expect(doc.files.map((f: { layer: string; found: boolean }) => [f.layer, f.found])).toEqual([
      ['user', true],
      ['project', true],
      ['local', true],
    ]);
  });

  it('masks anything key-like that reached a value, in both forms', async () => {
    const key = 'sk-proj-ABCDEFGHIJKLMNOPQRSTUV123456';
    const env = { CLAWCODE_VERIFY: `curl -H "Authorization: Bearer ${key}" http://127.0.0.1/ok` };
    const table = await show({ env });
    expect(table).not.toContain(key);
    expect(table).toContain('Bearer sk-***');
    const json = await show({ env, json: true });
    expect(json).not.toContain(key);
    expect(JSON.parse(json).values.verifyCommand).toBe('curl -H "Authorization: Bearer sk-***" http://127.0.0.1/ok');
  });

  it('--json writes C1 and bidi controls of project settings as \\u escapes, and parses back the same', async () => {
    const pattern = 'dist/\u202e\u009b31m**';
    await writeFile(join(root, '.clawcode', 'settings.local.json'), JSON.stringify({ ignore: [pattern] }));
    const json = await show({ json: true });
    expect(json).not.toMatch(/[\u0080-\u009f\u202e]/);
    expect(json).toContain('dist/\\u202e\\u009b31m**');
    expect(JSON.parse(json).values.ignore).toContain(pattern);
  });

  it("an untrusted project's allow rule is not shown as applied, and the table says why", async () => {
    await setProjectTrust(home, root, undefined);
    const out = await show();
    expect(out).toMatch(/^commands\s+allow: \(none\); deny: \(none\)\s+default$/m);
    expect(out).toContain('Not applied until you trust this project (clawcode trust): commands.allow\n');
  });

  it('passes on a settings error for the caller to report', async () => {
    await writeFile(join(root, '.clawcode', 'settings.json'), JSON.stringify({ token: 'abc' }));
    await expect(show()).rejects.toBeInstanceOf(ConfigError);
  });
});
