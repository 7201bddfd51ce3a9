import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanEnv, CLI_PATH, REPO_ROOT } from '../support/fixture.js';
import { replies, startProviderServer, type ProviderServer } from '../support/provider-server.js';
import { spawnPty, type PtySession } from '../support/pty.js';

// `clawcode --shell` and `clawcode --ui` built, in a pseudo-terminal, planning against the loopback server.

const ORIGINAL = "export const greeting = 'hello';\nexport const farewell = 'bye';\n";

function plan(find: string, replace: string) {
  return {
    analysis: 'Change a string.',
    files_to_edit: [{ path: 'src/greet.js', reason: 'the strings live here' }],
    patches: [{ file: 'src/greet.js', operation: 'replace', find, replace, replace_all: null, occurrence: null }],
    commands: [],
    agent_notes: [],
  };
}

let server: ProviderServer;
let project: string;
let env: NodeJS.ProcessEnv;
const sessions: PtySession[] = [];

beforeAll(async () => {
  // A fresh checkout has no dist/ yet; `npm test` builds first.
  if (!existsSync(CLI_PATH)) execFileSync('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: 'ignore' });
  server = await startProviderServer({ apiKey: 'sk-test-pty' });
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  server.reset();
  const home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
  vi.stubEnv('CLAWCODE_HOME', home);
  project = await mkdtemp(join(tmpdir(), 'clawcode-pty-shell-'));
  await mkdir(join(project, 'src'));
  await writeFile(join(project, 'src/greet.js'), ORIGINAL);
  // CI=true as in a CI runner or a dev container: the --ui test must still see Ink draw live.
  env = cleanEnv({ CLAWCODE_HOME: home, OPENAI_API_KEY: 'sk-test-pty', OPENAI_BASE_URL: `${server.url}/v1`, CI: 'true' });
});
afterEach(() => sessions.splice(0).forEach((s) => s.kill()));

function start(args: string[], cols = 100): PtySession {
  const s = spawnPty(process.execPath, [CLI_PATH, ...args], { cwd: project, env, cols, rows: 30 });
  sessions.push(s);
  return s;
}

const greet = () => readFile(join(project, 'src/greet.js'), 'utf8');

describe('interactive surfaces of the built CLI', () => {
  it('--shell: runs a line as a task, Ctrl-C cancels a hanging model request, :undo restores, :exit leaves', { timeout: 90_000 }, async () => {
    server.reply(replies.plan(plan("'bye'", "'goodbye'")), replies.hang());
    const s = start(['--shell', '--dir', project, '--provider', 'openai']);
    await s.waitFor('clawcode:');
    s.mark();
    s.write('say goodbye properly\r');
    await s.waitFor('Apply these changes to 1 file?');
    s.mark();
    s.write('y\r');
    await s.waitFor('clawcode:');
    expect(await greet()).toBe(ORIGINAL.replace("'bye'", "'goodbye'"));

    s.mark();
    s.write('this one hangs\r');
    for (let i = 0; i < 400 && server.completions().length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect(server.completions()).toHaveLength(2);
    s.write('\u0003');
    await s.waitFor('Task cancelled.');
    await s.waitFor('clawcode:');
    expect(await greet()).toBe(ORIGINAL.replace("'bye'", "'goodbye'"));

    // :undo restores the bytes from before the first task (after a confirmation).
    s.mark();
    s.write(':undo\r');
    await s.waitFor('Undo 1 file?');
    s.mark();
    s.write('y\r');
    await s.waitFor('Undid run');
    expect(await greet()).toBe(ORIGINAL);
    await s.waitFor('clawcode:');
    s.mark();
    s.write(':exit\r');
    await s.waitFor('Bye.');
    expect(await s.exitCode()).toBe(0);
  });

  it('--ui at 60 columns: a task from the input shows its diff, y in the TUI writes it, Ctrl-C leaves', { timeout: 90_000 }, async () => {
    server.reply(replies.plan(plan("'hello'", "'hi'"), { usage: { input: 900, output: 60 } }));
    const s = start(['--ui', '--dir', project, '--provider', 'openai'], 60);
    await s.waitFor('describe a task');
    s.mark();
    s.write('shorter greeting');
    await s.waitFor('shorter greeting');
    s.write('\r');
    await s.waitFor('Apply these changes to 1 file? (y/n)');
    expect(s.sinceMark()).toContain("+export const greeting = 'hi';");
    expect(await greet()).toBe(ORIGINAL);
    s.mark();
    s.write('y');
    await s.waitFor('wrote 1 file');
    expect(await greet()).toBe(ORIGINAL.replace("'hello'", "'hi'"));
    expect(s.output()).toContain('tokens 900↑ 60↓');
    // Ctrl-C while the task is still finishing would cancel it; once ready, it leaves.
    await s.waitFor('ready │');
    s.write('\u0003');
    expect(await s.exitCode()).toBe(0);
  });
});
