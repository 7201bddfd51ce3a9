import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../support/fixture.js';
import { startProviderServer, type ProviderServer } from '../support/provider-server.js';
import { useCliInPty } from '../support/pty.js';

// `clawcode help [command]`, and one-word tasks that are commands: the built CLI, checking that nothing
// reaches the model (the loopback server counts the requests).

let server: ProviderServer;
let project: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startProviderServer({ apiKey: 'sk-test-help' });
});
afterAll(async () => server.close());
beforeEach(async () => {
  server.reset();
  project = await mkdtemp(join(tmpdir(), 'clawcode-help-'));
  await writeFile(join(project, 'greet.js'), 'export const greet = () => "hi";\n');
  const home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
  env = cleanEnv({ CLAWCODE_HOME: home, OPENAI_API_KEY: 'sk-test-help', OPENAI_BASE_URL: `${server.url}/v1` });
});

describe('clawcode help', () => {
  it('prints the program help, exit 0', async () => {
    const r = await runCli(['help'], { env, cwd: project });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: clawcode \[options\] \[command\] \[task\.\.\.\]/);
    expect(r.stdout).toContain('help [command]');
    expect(server.requests).toEqual([]);
  });

  it("prints one command's help", async () => {
    const r = await runCli(['help', 'undo'], { env, cwd: project });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: clawcode undo \[options\] \[runId\]/);
  });

  it('names the command a mistyped name meant, exit 2', async () => {
    const r = await runCli(['help', 'udno'], { env, cwd: project });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('clawcode: No command "udno"; did you mean `undo`?');
  });
});

describe('a one-word task that is a command', () => {
  for (const [word, meant] of [
    ['udno', 'undo'],
    ['hisotry', 'history'],
    ['status', 'history'],
    ['version', '--version'],
  ] as const) {
    it(`"${word}" → did you mean \`clawcode ${meant}\`?, exit 2, no request`, async () => {
      const r = await runCli([word, '--dry-run'], { env, cwd: project });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `clawcode: Did you mean \`clawcode ${meant}\`? "${word}" was not sent to the model.\n` +
          'To send a task of one word, say more: clawcode "rename the status field".\n',
      );
      expect(server.requests).toEqual([]);
    });
  }

  it('a one-word task two edits from every command is still a task', async () => {
    server.setFallback({ type: 'error', status: 500, message: 'no plan scripted' });
    const r = await runCli(['refactor', '--dry-run', '--timeout', '1000'], { env, cwd: project });
    expect(server.completions().length).toBeGreaterThan(0);
    expect(r.stderr).not.toContain('Did you mean');
  });
});

const pty = useCliInPty({ prefix: 'clawcode-help-pty-', files: { 'greet.js': 'export const x = 1;\n' }, rows: 40 });

describe('in a terminal', () => {
  it('`clawcode help` shows the help and ends, with no plan offered and no request', { timeout: 30_000 }, async () => {
    const s = pty.start(['help']);
    expect(await s.exitCode()).toBe(0);
    expect(s.output()).toContain('Usage: clawcode [options] [command] [task...]');
    expect(s.output()).not.toContain('Apply these changes');
    expect(pty.server.requests).toEqual([]);
  });

  it('`clawcode udno` says which command it meant, exit 2, no request', { timeout: 30_000 }, async () => {
    const s = pty.start(['udno']);
    expect(await s.exitCode()).toBe(2);
    expect(s.output()).toContain('Did you mean `clawcode undo`?');
    expect(pty.server.requests).toEqual([]);
  });
});
