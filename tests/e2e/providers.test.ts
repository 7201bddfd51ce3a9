import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, copyPackageFixture, runCli, snapshotTree } from '../support/fixture.js';
import { replies, startProviderServer, type ProviderServer, type ScriptedReply } from '../support/provider-server.js';

// One end-to-end run per provider: the built CLI with only that provider's environment
// variables set, talking through the real SDK to the loopback server, applies a plan byte-exact.

const FIND = 'exports.CommanderError = CommanderError;';
const REPLACE = 'exports.CommanderError = CommanderError;\nexports.PROVIDER_TEST = true;';
const PLAN = {
  analysis: 'Export a flag.',
  files_to_edit: [{ path: 'lib/error.js', reason: 'flag' }],
  patches: [
    { file: 'lib/error.js', operation: 'replace', find: FIND, replace: REPLACE, replace_all: null, occurrence: null },
  ],
  commands: [],
  agent_notes: [],
};

let server: ProviderServer;
beforeAll(async () => {
  server = await startProviderServer({ apiKey: 'key-123' });
});
afterAll(async () => server.close());

const cases: {
  provider: string;
  env: () => Record<string, string>;
  expectPath: RegExp;
  expectAuth: (h: Record<string, unknown>) => boolean;
}[] = [
  {
    provider: 'openai',
    env: () => ({ OPENAI_API_KEY: 'key-123', OPENAI_BASE_URL: `${server.url}/v1` }),
    expectPath: /^\/v1\/chat\/completions$/,
    expectAuth: (h) => h.authorization === 'Bearer key-123',
  },
  {
    provider: 'azure',
    env: () => ({
      AZURE_OPENAI_API_KEY: 'key-123',
      AZURE_OPENAI_ENDPOINT: server.url,
      AZURE_OPENAI_DEPLOYMENT: 'my-dep',
      OPENAI_API_VERSION: '2024-10-21',
    }),
    expectPath: /^\/openai\/deployments\/my-dep\/chat\/completions$/,
    expectAuth: (h) => h['api-key'] === 'key-123',
  },
  {
    provider: 'groq',
    env: () => ({ GROQ_API_KEY: 'key-123', GROQ_BASE_URL: server.url }),
    expectPath: /^\/openai\/v1\/chat\/completions$/,
    expectAuth: (h) => h.authorization === 'Bearer key-123',
  },
  {
    provider: 'gemini',
    env: () => ({ GEMINI_API_KEY: 'key-123', GEMINI_BASE_URL: server.url }),
    expectPath: /^\/v1beta\/models\/[^/]+:(stream)?[gG]enerateContent$/,
    expectAuth: (h) => h['x-goog-api-key'] === 'key-123',
  },
  {
    provider: 'anthropic',
    env: () => ({ ANTHROPIC_API_KEY: 'key-123', ANTHROPIC_BASE_URL: server.url }),
    expectPath: /^\/v1\/messages$/,
    expectAuth: (h) => h.authorization === 'Bearer key-123' || h['x-api-key'] === 'key-123',
  },
];

describe('each provider from its environment variables alone', () => {
  for (const c of cases) {
    it(`${c.provider}: applies a plan byte-exact`, async () => {
      server.reset();
      server.reply(replies.plan(PLAN, { usage: { input: 700, output: 40 } }));
      const project = await copyPackageFixture('commander');
      const before = await snapshotTree(project);
      const env = cleanEnv({ CLAWCODE_HOME: await mkdtemp(join(tmpdir(), 'clawcode-home-')), ...c.env() });
      const result = await runCli(
        ['export a provider test flag from lib/error.js', '--dir', project, '--yes', '--json'],
        { env },
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout);
      expect(report.providerId).toBe(c.provider);
      expect(report.usage).toMatchObject({ inputTokens: 700, outputTokens: 40 });

      const original = before.get('lib/error.js')!.toString('utf8');
      expect(await readFile(join(project, 'lib/error.js'), 'utf8')).toBe(original.replace(FIND, () => REPLACE));
      const calls = server.completions();
      expect(calls).toHaveLength(1);
      expect(calls[0]!.path).toMatch(c.expectPath);
      expect(c.expectAuth(calls[0]!.headers as Record<string, unknown>)).toBe(true);
    });
  }

  it('a wrong key ends in one line naming the variable, exit 1, nothing written', async () => {
    server.reset();
    const project = await copyPackageFixture('commander');
    const before = await snapshotTree(project);
    const env = cleanEnv({
      CLAWCODE_HOME: await mkdtemp(join(tmpdir(), 'clawcode-home-')),
      GROQ_API_KEY: 'wrong',
      GROQ_BASE_URL: server.url,
    });
    const result = await runCli(['export a flag', '--dir', project, '--yes'], { env });
    expect(result.code).toBe(1);
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines.length).toBeLessThanOrEqual(2); // the message, and at most one hint line
    expect(lines.join('\n')).toMatch(/GROQ_API_KEY/);
    expect(result.stderr).not.toMatch(/\bat .*\.js:\d+/); // no stack trace
    const after = await snapshotTree(project);
    for (const [path, bytes] of before) expect(after.get(path)?.equals(bytes)).toBe(true);
  });
});

describe('anthropic failures through the built CLI: one clear line, exit 1, nothing written', () => {
  const failures: { name: string; replies: () => ScriptedReply[]; key: string; line: RegExp }[] = [
    {
      name: '401',
      replies: () => [],
      key: 'wrong',
      line: /^(?:clawcode: )?Anthropic rejected the API key from ANTHROPIC_API_KEY \(HTTP 401\): invalid x-api-key$/,
    },
    {
      name: '429',
      replies: () => [replies.rateLimited(0), replies.rateLimited(0), replies.rateLimited(0)],
      key: 'key-123',
      line: /^(?:clawcode: )?Anthropic rate limited the request \(HTTP 429\): Rate limit reached\.$/,
    },
    {
      name: '529',
      replies: () => [replies.overloaded(), replies.overloaded(), replies.overloaded()],
      key: 'key-123',
      line: /^(?:clawcode: )?Anthropic is overloaded \(HTTP 529\): Overloaded$/,
    },
  ];
  for (const f of failures) {
    it(`${f.name}`, async () => {
      server.reset();
      server.reply(...f.replies());
      const project = await copyPackageFixture('commander');
      const before = await snapshotTree(project);
      const env = cleanEnv({
        CLAWCODE_HOME: await mkdtemp(join(tmpdir(), 'clawcode-home-')),
        ANTHROPIC_API_KEY: f.key,
        ANTHROPIC_BASE_URL: server.url,
      });
      const result = await runCli(['export a flag', '--dir', project, '--yes'], { env });
      expect(result.code).toBe(1);
      const lines = result.stderr.split('\n').filter(Boolean);
      expect(lines[0]).toMatch(f.line);
      expect(lines.length).toBeLessThanOrEqual(2); // the message, and at most one hint line
      expect(result.stderr).not.toMatch(/\bat .*\.js:\d+/);
      const after = await snapshotTree(project);
      for (const [path, bytes] of before) expect(after.get(path)?.equals(bytes)).toBe(true);
    });
  }
});

describe('retries are visible', () => {
  it('--events shows each retry as a model_retry line', async () => {
    server.reset();
    server.reply(replies.rateLimited(0), replies.plan(PLAN));
    const project = await copyPackageFixture('commander');
    const env = cleanEnv({
      CLAWCODE_HOME: await mkdtemp(join(tmpdir(), 'clawcode-home-')),
      ANTHROPIC_API_KEY: 'key-123',
      ANTHROPIC_BASE_URL: server.url,
    });
    const result = await runCli(
      ['export a provider test flag from lib/error.js', '--dir', project, '--yes', '--events'],
      { env },
    );
    expect(result.code).toBe(0);
    const events = result.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { event: string });
    expect(events.find((e) => e.event === 'model_retry')).toEqual({
      event: 'model_retry',
      attempt: 1,
      maxRetries: 2,
      delayMs: 0,
      reason: 'rate limited',
      message: 'rate limited; retrying in 0 ms, 1 of 2',
    });
    expect(events.findIndex((e) => e.event === 'model_retry')).toBeLessThan(
      events.findIndex((e) => e.event === 'model_reply'),
    );
  });
});

describe('a reply has one deadline and a size cap (built CLI)', () => {
  const openaiEnv = async (): Promise<NodeJS.ProcessEnv> =>
    cleanEnv({
      CLAWCODE_HOME: await mkdtemp(join(tmpdir(), 'clawcode-home-')),
      OPENAI_API_KEY: 'key-123',
      OPENAI_BASE_URL: `${server.url}/v1`,
    });

  it('one character every 500 ms does not outlive --timeout 3000', async () => {
    server.reset();
    server.reply(replies.trickle(PLAN, 500));
    const project = await copyPackageFixture('commander');
    const started = performance.now();
    const result = await runCli(['export a flag', '--dir', project, '--yes', '--timeout', '3000'], {
      env: await openaiEnv(),
    });
    expect(performance.now() - started).toBeLessThan(9000);
    expect(result.code).toBe(1);
    // Characters had come: the reply did not finish, rather than never answered.
    expect(result.stderr.split('\n')[0]).toMatch(
      /did not finish its reply within 3 s \(model gpt-4o-mini\): \d+ characters had arrived$/,
    );
    expect(server.completions()).toHaveLength(1);
  }, 20_000);

  it('an endless stream is cut off at 4,000,000 characters with one line', async () => {
    server.reset();
    server.reply(replies.flood(64 * 1024));
    const project = await copyPackageFixture('commander');
    const result = await runCli(['export a flag', '--dir', project, '--yes'], { env: await openaiEnv() });
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')[0]).toMatch(
      /reply passed 4,000,000 characters; stopped reading it \(model gpt-4o-mini\)$/,
    );
  }, 20_000);
});
