import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SAMPLE_PLAN } from '../support/provider-env.js';
import { cleanEnv, runCli } from '../support/fixture.js';
import { replies, startProviderServer, type ProviderServer } from '../support/provider-server.js';

// What clawcode keeps in its home can hold secrets (pre-images of edited files, API keys): a home it
// creates is 0700, journal files 0600, and a config.json others can read draws one warning line.

let server: ProviderServer;
let base: string;
let project: string;

beforeAll(async () => {
  server = await startProviderServer();
});
afterAll(async () => server.close());
beforeEach(async () => {
  server.reset();
  base = await mkdtemp(join(tmpdir(), 'cc-modes-'));
  project = join(base, 'project');
  await mkdir(join(project, 'src'), { recursive: true });
  await writeFile(join(project, 'src/a.ts'), 'export const s = "hello";\nconst API_KEY = "secret-value";\n');
});
afterEach(async () => rm(base, { recursive: true, force: true }));

const modeOf = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

describe('the clawcode home', () => {
  it('is created 0700 with its folders; pre-images, manifests and memory are 0600', async () => {
    const home = join(base, 'home', '.clawcode');
    const env = cleanEnv({ CLAWCODE_HOME: home, OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${server.url}/v1` });
    server.reply(replies.plan(SAMPLE_PLAN));
    const result = await runCli(['greet the world', '--dir', project, '--yes', '--provider', 'openai'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(await modeOf(home)).toBe(0o700);
    const [hash] = await readdir(join(home, 'runs'));
    const [runId] = await readdir(join(home, 'runs', hash!));
    const runDir = join(home, 'runs', hash!, runId!);
    for (const dir of [join(home, 'runs'), join(home, 'runs', hash!), runDir, join(home, 'memory')])
      expect(await modeOf(dir), dir).toBe(0o700);
    for (const file of ['pre-0', 'manifest.json']) expect(await modeOf(join(runDir, file)), file).toBe(0o600);
    const [session] = await readdir(join(home, 'memory', 'sessions'));
    expect(await modeOf(join(home, 'memory', 'sessions', session!))).toBe(0o600);
  });

  it('warns in one line about a config.json that other users can read, and not about a 0600 one', async () => {
    const home = join(base, 'home2');
    await mkdir(home, { mode: 0o700 });
    await writeFile(join(home, 'config.json'), '{}\n');
    await chmod(join(home, 'config.json'), 0o644);
    const env = cleanEnv({ CLAWCODE_HOME: home, OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${server.url}/v1` });
    server.reply(replies.plan(SAMPLE_PLAN), replies.plan(SAMPLE_PLAN));
    const open = await runCli(['greet the world', '--dir', project, '--dry-run', '--provider', 'openai'], { env });
    expect(open.code, open.stderr).toBe(0);
    const warnings = open.stderr.split('\n').filter((l) => l.includes('config.json'));
    expect(warnings).toEqual([
      `warning: ${join(home, 'config.json')} is readable by other users (mode 0644) and may hold API keys; run: chmod 600 ${join(home, 'config.json')}`,
    ]);
    await chmod(join(home, 'config.json'), 0o600);
    const closed = await runCli(['greet the world', '--dir', project, '--dry-run', '--provider', 'openai'], { env });
    expect(closed.code, closed.stderr).toBe(0);
    expect(closed.stderr).not.toContain('config.json');
  });
});
