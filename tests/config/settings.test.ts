import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { loadSettings, type SettingsLayer, type SettingsValues } from '../../config/settings.js';
import { findSecret, isSecretKeyName, looksLikeSecretValue, maskSecrets } from '../../config/settings-secrets.js';
import { ConfigError, UsageError } from '../../utils/errors.js';
import { setProjectTrust } from '../../config/trust.js';

let home: string;
let root: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
  vi.stubEnv('CLAWCODE_HOME', home);
  root = await mkdtemp(join(tmpdir(), 'clawcode-settings-'));
});

const writeJson = async (path: string, data: unknown) => {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, typeof data === 'string' ? data : JSON.stringify(data, null, 2));
};
const writeUser = (data: unknown) => writeJson(join(home, 'config.json'), data);
const writeProject = (data: unknown) => writeJson(join(root, '.clawcode', 'settings.json'), data);
const writeLocal = (data: unknown) => writeJson(join(root, '.clawcode', 'settings.local.json'), data);
const load = (env: NodeJS.ProcessEnv = {}, flags?: Partial<SettingsValues>) =>
  loadSettings({ rootDir: root, env: { CLAWCODE_HOME: home, ...env }, flags });
/** The person trusts the project's settings files as they are now (what `clawcode trust` does). */
const trustProject = async () => {
  const untrusted = (await load()).untrusted;
  expect(untrusted).toBeDefined();
  await setProjectTrust(home, root, untrusted!.sha256);
};

async function expectError<T extends Error>(promise: Promise<unknown>, type: new (...a: never[]) => T): Promise<T> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  return error as T;
}

type Scalars = Pick<
  SettingsValues,
  'provider' | 'model' | 'budgetChars' | 'timeoutMs' | 'verifyCommand' | 'autoCommit'
>;
const STACK = ['user', 'project', 'local', 'env', 'flag'] as const;

/** Distinct scalar values per layer; autoCommit alternates so every layer flips the one below. */
function scalarsFor(layer: (typeof STACK)[number], i: number): Scalars {
  return {
    provider: `provider-${layer}`,
    model: `model-${layer}`,
    budgetChars: 1000 + i,
    timeoutMs: 5000 + i,
    verifyCommand: `npm run verify-${layer}`,
    autoCommit: i % 2 === 0,
  };
}

async function writeLayers(top: number): Promise<{ env: NodeJS.ProcessEnv; flags?: Partial<SettingsValues> }> {
  let env: NodeJS.ProcessEnv = {};
  let flags: Partial<SettingsValues> | undefined;
  for (let i = 0; i <= top; i++) {
    const layer = STACK[i]!;
    const v = scalarsFor(layer, i);
    if (layer === 'user') await writeUser({ providers: {}, settings: v });
    if (layer === 'project') await writeProject(v);
    if (layer === 'local') await writeLocal(v);
    if (layer === 'env') {
      env = {
        CLAWCODE_PROVIDER: v.provider,
        CLAWCODE_MODEL: v.model,
        CLAWCODE_BUDGET: String(v.budgetChars),
        CLAWCODE_TIMEOUT_MS: String(v.timeoutMs),
        CLAWCODE_VERIFY: v.verifyCommand,
        CLAWCODE_AUTO_COMMIT: v.autoCommit ? 'true' : 'false',
      };
    }
    if (layer === 'flag') flags = v;
  }
  return { env, flags };
}

describe('loadSettings precedence', () => {
  it('uses the defaults when no layer sets anything, and reports the files looked for', async () => {
    const s = await load();
    expect(s.values).toEqual({
      budgetChars: 18000,
      timeoutMs: 120000,
      ignore: [],
      commands: { allow: [], deny: [] },
      autoCommit: false,
      repair: true,
    });
    expect(s.sources.budgetChars).toEqual({ layer: 'default', where: 'default' });
    expect(s.sources.ignore).toEqual({ layer: 'default', where: 'default' });
    expect(s.files).toEqual([
      { layer: 'user', path: join(home, 'config.json'), found: false },
      { layer: 'project', path: join(root, '.clawcode/settings.json'), found: false },
      { layer: 'local', path: join(root, '.clawcode/settings.local.json'), found: false },
    ]);
  });

  const expectedWhere: Record<(typeof STACK)[number], Record<keyof Scalars, string> | string> = {
    user: '', // filled in the test: the absolute config.json path
    project: '.clawcode/settings.json',
    local: '.clawcode/settings.local.json',
    env: {
      provider: 'CLAWCODE_PROVIDER',
      model: 'CLAWCODE_MODEL',
      budgetChars: 'CLAWCODE_BUDGET',
      timeoutMs: 'CLAWCODE_TIMEOUT_MS',
      verifyCommand: 'CLAWCODE_VERIFY',
      autoCommit: 'CLAWCODE_AUTO_COMMIT',
    },
    flag: {
      provider: '--provider',
      model: '--model',
      budgetChars: '--budget',
      timeoutMs: '--timeout',
      verifyCommand: '--verify-cmd',
      autoCommit: '--commit',
    },
  };

  for (const [top, layer] of STACK.entries()) {
    it(`${layer} overrides every scalar of the layers below it`, async () => {
      const { env, flags } = await writeLayers(top);
      if (layer === 'project' || layer === 'local') await trustProject();
      const s = await load(env, flags);
      const want = scalarsFor(layer, top);
      expect(s.values).toMatchObject(want);
      if (top > 0) expect(s.values.autoCommit).not.toBe(scalarsFor(STACK[top - 1]!, top - 1).autoCommit);
      for (const key of Object.keys(want) as (keyof Scalars)[]) {
        const where = layer === 'user' ? join(home, 'config.json') : expectedWhere[layer];
        expect(s.sources[key]).toEqual({ layer, where: typeof where === 'string' ? where : where[key] });
      }
    });
  }

  it('a layer that leaves a key out keeps the value from below', async () => {
    await writeUser({ settings: { model: 'from-user', budgetChars: 4000 } });
    await writeProject({ budgetChars: 6000 });
    const s = await load({ CLAWCODE_PROVIDER: 'groq' });
    expect(s.values).toMatchObject({ model: 'from-user', budgetChars: 6000, provider: 'groq', timeoutMs: 120000 });
    expect(s.sources.model.layer).toBe('user');
    expect(s.sources.budgetChars).toEqual({ layer: 'project', where: '.clawcode/settings.json' });
    expect(s.sources.timeoutMs.layer).toBe('default');
  });

  it('takes config.json defaultProvider as the user provider, below settings.provider', async () => {
    await writeUser({
      defaultProvider: 'azure',
      providers: { azure: { apiKey: 'sk-userkeysareallowedinthehomeconfig' } },
    });
    expect((await load()).values.provider).toBe('azure');
    expect((await load()).sources.provider).toEqual({ layer: 'user', where: join(home, 'config.json') });
    await writeUser({ defaultProvider: 'azure', providers: {}, settings: { provider: 'gemini' } });
    expect((await load()).values.provider).toBe('gemini');
  });

  it('an empty verifyCommand switches off the one from a lower layer', async () => {
    await writeProject({ verifyCommand: 'npm test' });
    await writeLocal({ verifyCommand: '' });
    const s = await load();
    expect(s.values.verifyCommand).toBeUndefined();
    expect(s.sources.verifyCommand.layer).toBe('local');
  });

  it('reads CLAWCODE_HOME from env when no homeDir is given, and homeDir wins over it', async () => {
    await writeUser({ settings: { model: 'home-model' } });
    const other = await mkdtemp(join(tmpdir(), 'clawcode-home2-'));
    await writeJson(join(other, 'config.json'), { settings: { model: 'other-model' } });
    expect((await loadSettings({ rootDir: root, env: { CLAWCODE_HOME: home } })).values.model).toBe('home-model');
    expect((await loadSettings({ rootDir: root, env: { CLAWCODE_HOME: home }, homeDir: other })).values.model).toBe(
      'other-model',
    );
  });
});

describe('loadSettings lists', () => {
  it('concatenates ignore and command rules across layers, lowest first, without duplicates', async () => {
    await writeUser({ settings: { ignore: ['*.log'], commands: { allow: ['npm test'] } } });
    await writeProject({ ignore: ['dist/**', '*.log'], commands: { allow: ['npm run *'], deny: ['rm'] } });
    await writeLocal({ ignore: ['scratch/'], commands: { deny: ['git push'] } });
    await trustProject();
    const s = await load({}, { ignore: ['tmp/'], commands: { allow: ['make'], deny: [] } });
    expect(s.values.ignore).toEqual(['*.log', 'dist/**', 'scratch/', 'tmp/']);
    expect(s.values.commands).toEqual({ allow: ['npm test', 'npm run *', 'make'], deny: ['rm', 'git push'] });
    const user = { layer: 'user', where: join(home, 'config.json') };
    const project = { layer: 'project', where: '.clawcode/settings.json' };
    const local = { layer: 'local', where: '.clawcode/settings.local.json' };
    expect(s.sources.ignore).toEqual({
      layer: 'flag',
      where: '--ignore',
      from: [user, project, local, { layer: 'flag', where: '--ignore' }],
    });
    expect(s.sources.commands).toEqual({
      layer: 'flag',
      where: '--allow/--deny',
      from: [user, project, local, { layer: 'flag', where: '--allow/--deny' }],
    });
  });

  it('an empty list in a higher layer adds nothing and takes no credit', async () => {
    await writeProject({ ignore: ['build/'] });
    await writeLocal({ ignore: [] });
    const s = await load();
    expect(s.values.ignore).toEqual(['build/']);
    expect(s.sources.ignore.layer satisfies SettingsLayer).toBe('project');
  });
});

describe('loadSettings errors', () => {
  it('refuses a credential key name in a project file, naming the file and key', async () => {
    await writeProject({ model: 'gpt-4o', apiKey: 'x' });
    const e = await expectError(load(), ConfigError);
    expect(e.message).toBe('Secret refused in .clawcode/settings.json: key "apiKey" holds a credential');
    expect(e.exitCode).toBe(1);
    expect(e.code).toBe('settings_secret');
  });

  it('refuses nested and differently spelt credential keys in the local file', async () => {
    await writeLocal({ commands: { allow: [] }, providers: { openai: { api_key: 'abc' } } });
    const e = await expectError(load(), ConfigError);
    expect(e.message).toContain('.clawcode/settings.local.json');
    expect(e.message).toContain('"providers.openai.api_key"');
    for (const name of ['token', 'authToken', 'client_secret', 'password', 'key', 'API-KEY', 'accessKey']) {
      expect(isSecretKeyName(name), name).toBe(true);
    }
    for (const name of ['model', 'maxTokens', 'keys', 'tokenBudget', 'ignore', 'verifyCommand']) {
      expect(isSecretKeyName(name), name).toBe(false);
    }
  });

  it('refuses a value that looks like an API key, without printing it', async () => {
    const key = 'sk-proj-Abcdefghijklmnop1234567890';
    await writeProject({ verifyCommand: `curl -H "Authorization: Bearer ${key}" localhost` });
    const e = await expectError(load(), ConfigError);
    expect(e.message).toBe('Secret refused in .clawcode/settings.json: value of "verifyCommand" looks like an API key');
    expect(`${e.message} ${e.hint}`).not.toContain(key);
  });

  it('recognises known key formats and high-entropy tokens, not ordinary settings', () => {
    const secrets = [
      'sk-abcdefghijklmnopqrstuv12',
      'gsk_abcdefghijklmnopqrstuvwxyz0123',
      `AIza${'Sy0123456789abcdefghijklmnopqrstuvw'.slice(0, 35)}`,
      'ghp_0123456789abcdefghijABCDEFGHIJ0123',
      'Zk8qP2mX9vL4tR7wB1nC6yH3jF5dS0aGeU',
      'token: 3f9a0c1b7d2e4f6a8b0c1d2e3f4a5b6c', // 32 hex digits: the Azure OpenAI key format
      'x7k2m9q4w8e1r5t3y6u0i2o7p4a9s1d8f3g5', // lowercase + digits
      'Q2hhbmdlIHRoaXMga2V5IG5vdy9wbGVhc2U+MTIzNA==', // base64
    ];
    for (const s of secrets) expect(looksLikeSecretValue(s), s).toBe(true);
    const ordinary = [
      'npm run test:unit -- --coverage',
      'packages/generated-clients/openapi/**/*.ts',
      'gpt-4o-mini-2024-07-18',
      'claude-3-5-sonnet-20241022',
      '0123456789abcdef0123456789abcdef01234567',
      'src/components/ProfileSettingsPanel2.tsx',
      'accounts/fireworks/models/llama-v3p1-405b-instruct',
      'anthropic/claude-3-5-sonnet-20241022',
      'Qwen/Qwen2.5-Coder-32B-Instruct-GPTQ-Int4',
      'ProfileSettingsPanel2ComponentV3Redesign2024',
      'sha256-9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      'projects/my-project-123456/locations/us-central1/endpoints/987654321',
    ];
    for (const s of ordinary) expect(looksLikeSecretValue(s), s).toBe(false);
    expect(findSecret({ commands: { allow: ['ok', 'gsk_abcdefghijklmnopqrstuvwxyz0123'] } })).toEqual({
      path: 'commands.allow[1]',
      reason: 'value',
    });
    expect(maskSecrets('use sk-abcdefghijklmnopqrstuv12 now')).toBe('use sk-*** now');
  });

  it('reports bad JSON without quoting the file, so a pasted key is not echoed', async () => {
    await writeLocal('{"model": "x", "k": sk-abcdefghijklmnopqrstuv12 }');
    const e = await expectError(load(), ConfigError);
    expect(e.message).toBe(
      `Invalid JSON in .clawcode/settings.local.json at line 1, column 21: expected a value, found 's'`,
    );
    expect(e.cause).toBeUndefined();
  });

  it('reports bad JSON with the file, line and column', async () => {
    await writeProject('{\n  "model": "x",\n  oops\n}');
    const e = await expectError(load(), ConfigError);
    expect(e.message).toMatch(/^Invalid JSON in \.clawcode\/settings\.json at line 3, column 3: /);
    expect(e.code).toBe('settings_bad_json');
    await writeProject('{"model": "x"');
    expect((await expectError(load(), ConfigError)).message).toMatch(
      /at line 1, column 14: expected ',' or '}', found end of file$/,
    );
  });

  it('reports bad JSON in the user config with its path', async () => {
    await writeUser('{"settings": }');
    const e = await expectError(load(), ConfigError);
    expect(e.message).toBe(
      `Invalid JSON in ${join(home, 'config.json')} at line 1, column 14: expected a value, found '}'`,
    );
  });

  it('reads an empty settings file as no settings', async () => {
    await writeProject('  \n');
    const s = await load();
    expect(s.values.budgetChars).toBe(18000);
    expect(s.files[1]!.found).toBe(true);
  });

  it('names the file and key for an unknown key, at any depth and in the user settings', async () => {
    await writeProject({ budget: 5000 });
    let e = await expectError(load(), ConfigError);
    expect(e.message).toBe('Unknown key "budget" in .clawcode/settings.json');
    expect(e.hint).toContain('budgetChars');
    await writeProject({ commands: { allowed: ['npm test'] } });
    e = await expectError(load(), ConfigError);
    expect(e.message).toBe('Unknown key "commands.allowed" in .clawcode/settings.json');
    await writeProject({});
    await writeUser({ providers: {}, settings: { autocommit: true } });
    e = await expectError(load(), ConfigError);
    expect(e.message).toBe(`Unknown key "settings.autocommit" in ${join(home, 'config.json')}`);
  });

  it('names the file and key for a value of the wrong type', async () => {
    await writeLocal({ budgetChars: '18000' });
    const e = await expectError(load(), ConfigError);
    expect(e.message).toMatch(/^Invalid value for "budgetChars" in \.clawcode\/settings\.local\.json: /);
    await writeLocal({ timeoutMs: -1 });
    expect((await expectError(load(), ConfigError)).message).toContain('"timeoutMs"');
    await writeLocal({ ignore: ['ok', 3] });
    expect((await expectError(load(), ConfigError)).message).toContain('"ignore.1"');
  });

  it('names the key of a project file nested thousands of levels deep (the secret check overflowed the stack)', async () => {
    const depth = 100_000;
    await writeLocal(`{"ignore":${'['.repeat(depth)}${']'.repeat(depth)}}`);
    const e = await expectError(load(), ConfigError);
    expect(e.message).toBe(
      'Invalid value for "ignore.0" in .clawcode/settings.local.json: Invalid input: expected string, received array',
    );
  });

  it('rejects bad environment values with a UsageError naming the variable', async () => {
    const bad: [string, string][] = [
      ['CLAWCODE_BUDGET', 'lots'],
      ['CLAWCODE_BUDGET', '-5'],
      ['CLAWCODE_BUDGET', '1.5'],
      ['CLAWCODE_BUDGET', '0'],
      ['CLAWCODE_TIMEOUT_MS', '30s'],
      ['CLAWCODE_AUTO_COMMIT', 'maybe'],
    ];
    for (const [name, value] of bad) {
      const e = await expectError(load({ [name]: value }), UsageError);
      expect(e.message, `${name}=${value}`).toContain(name);
      expect(e.message).toContain(value);
      expect(e.exitCode).toBe(2);
    }
  });

  it('parses environment booleans and numbers, and skips blank variables', async () => {
    for (const [raw, want] of [
      ['1', true],
      ['YES', true],
      ['on', true],
      ['0', false],
      ['No', false],
      ['off', false],
    ] as const) {
      expect((await load({ CLAWCODE_AUTO_COMMIT: raw })).values.autoCommit, raw).toBe(want);
    }
    const s = await load({ CLAWCODE_BUDGET: ' 9000 ', CLAWCODE_MODEL: '  ', CLAWCODE_TIMEOUT_MS: '' });
    expect(s.values).toMatchObject({ budgetChars: 9000, timeoutMs: 120000 });
    expect(s.values.model).toBeUndefined();
    expect(s.sources.model.layer).toBe('default');
  });

  it('rejects a non-positive or fractional number flag with a UsageError naming the flag', async () => {
    expect((await expectError(load({}, { budgetChars: Number.NaN }), UsageError)).message).toContain('--budget');
    expect((await expectError(load({}, { timeoutMs: 2.5 }), UsageError)).message).toContain('--timeout');
  });

  it('refuses a timeout longer than a timer holds, from a project file, the environment or a flag (it fired at once)', async () => {
    await writeLocal({ timeoutMs: 3_000_000_000 });
    expect((await expectError(load(), ConfigError)).message).toMatch(/^Invalid value for "timeoutMs" in /);
    await writeLocal({ timeoutMs: 2_000_000_000 });
    expect((await load()).values.timeoutMs).toBe(2_000_000_000);
    await writeLocal({});
    const env = await expectError(load({ CLAWCODE_TIMEOUT_MS: '3000000000' }), UsageError);
    expect(env.message).toBe(
      'CLAWCODE_TIMEOUT_MS must be a positive whole number of milliseconds (at most 2000000000), got "3000000000"',
    );
    const flag = await expectError(load({}, { timeoutMs: 3_000_000_000 }), UsageError);
    expect(flag.message).toBe('--timeout must be a positive whole number (at most 2000000000), got 3000000000');
  });
});
