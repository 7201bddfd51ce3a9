import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_ENV_PREFIXES, SAMPLE_PLAN } from '../support/provider-env.js';
import { replies, startProviderServer, type ProviderServer } from '../support/provider-server.js';

/**
 * Each provider from its env vars alone, in a child process (as the built CLI runs), against the
 * loopback server in this process. The child must be spawned asynchronously: a sync spawn would
 * block the event loop that serves its requests.
 */
const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
let server: ProviderServer;
let dir: string;
let script: string;

beforeAll(async () => {
  server = await startProviderServer();
  server.setFallback(replies.plan(SAMPLE_PLAN, { usage: { input: 100, output: 20 } }));
  dir = mkdtempSync(join(tmpdir(), 'clawcode-envonly-'));
  script = join(dir, 'plan.mts');
  const url = (file: string): string => JSON.stringify(pathToFileURL(join(root, file)).href);
  writeFileSync(
    script,
    `const { resolveProviderConfig } = await import(${url('config/config.ts')});
const { getStructuredPlan } = await import(${url('llm/provider.ts')});
const config = resolveProviderConfig({ config: { providers: {} }, env: process.env });
const result = await getStructuredPlan(config, 'system', 'task', { retry: { baseDelayMs: 1 } });
console.log(JSON.stringify({ provider: config.provider, model: config.model, keySource: config.keySource, patches: result.plan.patches.length, usage: result.usage }));
`,
  );
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A clean environment: no provider variables of this machine, a temp CLAWCODE_HOME, plus `vars`. */
function childEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!PROVIDER_ENV_PREFIXES.some((prefix) => name.startsWith(prefix))) env[name] = value;
  }
  return { ...env, CLAWCODE_HOME: dir, ...vars };
}

describe('each provider from env vars alone, in a child process', () => {
  it('openai, azure, groq and gemini each plan through their real SDK', async () => {
    const cases: [string, Record<string, string>, string][] = [
      [
        'openai',
        { OPENAI_API_KEY: 'sk-env-openai-0123456789', OPENAI_BASE_URL: `${server.url}/v1` },
        '/v1/chat/completions',
      ],
      [
        'azure',
        {
          AZURE_OPENAI_API_KEY: 'azure-env-0123456789',
          AZURE_OPENAI_ENDPOINT: server.url,
          AZURE_OPENAI_DEPLOYMENT: 'dep1',
        },
        '/openai/deployments/dep1/chat/completions',
      ],
      ['groq', { GROQ_API_KEY: 'gsk_env_0123456789', GROQ_BASE_URL: server.url }, '/openai/v1/chat/completions'],
      [
        'gemini',
        { GEMINI_API_KEY: 'AIza-env-0123456789', GEMINI_BASE_URL: server.url },
        '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
      ],
    ];
    const outputs = await Promise.all(
      cases.map(([, vars]) => run(process.execPath, ['--import', 'tsx', script], { cwd: root, env: childEnv(vars) })),
    );
    cases.forEach(([provider, , path], i) => {
      const out = JSON.parse(outputs[i]!.stdout.trim()) as { provider: string; patches: number; usage: unknown };
      expect(out).toMatchObject({
        provider,
        patches: 1,
        usage: { inputTokens: 100, outputTokens: 20, totalTokens: 120 },
      });
      expect(server.completions().some((r) => r.path === path)).toBe(true);
    });
    expect(server.completions()).toHaveLength(4);
  }, 30_000);
});
