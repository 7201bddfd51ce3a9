import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, fingerprintTree, gitIn, replacePlan, runCli } from '../support/fixture.js';
import { startProviderServer, replies, type ProviderServer } from '../support/provider-server.js';
import { LOOPBACK_KEY } from '../support/loopback-project.js';

// CLAWCODE_HOME under /proc: mkdir there answers ENOENT under folders that exist, and Node's recursive mkdir
// retried that forever in a libuv worker, so the run hung past SIGTERM. Every folder clawcode makes for itself is
// made one level at a time (utils/make-dirs.ts): one line, a non-zero exit, nothing written, in seconds.

const GREET = 'export const greet = (name) => "hi " + name;\n';
const PLAN = replacePlan('greet.js', [{ find: '"hi "', replace: '"hello "' }], 'Say hello.');

let base: string;
let project: string;
let server: ProviderServer;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'clawcode-proc-home-'));
  project = join(base, 'project');
  await mkdir(project);
  await writeFile(join(project, 'greet.js'), GREET);
  await writeFile(join(project, 'plan.json'), JSON.stringify(PLAN));
  gitIn(project, 'init', '-q');
  server = await startProviderServer({ apiKey: LOOPBACK_KEY });
});
afterAll(async () => {
  await server.close();
  await rm(base, { recursive: true, force: true });
});

const homes = ['/proc/self/clawcode-home', '/proc/clawcode-home/deeper'];
const runs: [string, string[]][] = [
  ['a task', ['say hello', '--yes', '--dir', '.']],
  ['apply', ['apply', 'plan.json', '--yes', '--dir', '.']],
  ['config add', ['config', 'add', 'openai', '--name', 'x', '--model', 'gpt-4o', '--no-check', '--api-key', 'sk-abc']],
];

describe.each(homes)('CLAWCODE_HOME=%s', (home) => {
  it.each(runs)(
    '%s: one line, non-zero exit, nothing written, no hang (fails on main)',
    async (_name, args) => {
      server.reset();
      server.reply(replies.plan(PLAN));
      const env = cleanEnv({ CLAWCODE_HOME: home, OPENAI_API_KEY: LOOPBACK_KEY, OPENAI_BASE_URL: `${server.url}/v1` });
      const before = fingerprintTree(project);
      const r = await runCli(args, { env, cwd: project, timeoutMs: 15_000 });
      // Killed by the timeout (the old hang), the code is null.
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^clawcode: /);
      expect(fingerprintTree(project)).toEqual(before);
    },
    30_000,
  );
});
