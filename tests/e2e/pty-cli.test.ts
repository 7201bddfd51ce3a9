import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanEnv, CLI_PATH, REPO_ROOT } from '../support/fixture.js';
import { replies, startProviderServer, type ProviderServer } from '../support/provider-server.js';
import { spawnPty, type PtySession } from '../support/pty.js';

// The built CLI in a pseudo-terminal, as a person uses it: the "What next?" loop with the per-hunk
// review. Plans come from the loopback server.

const lines = Array.from({ length: 20 }, (_, i) => `// line ${i + 1}`);
lines[1] = "export const greeting = 'hello';";
lines[17] = "export const farewell = 'bye';";
const ORIGINAL = `${lines.join('\n')}\n`;

function plan(patches: { find: string; replace: string }[]) {
  return {
    analysis: 'Change the strings.',
    files_to_edit: [{ path: 'src/greet.js', reason: 'the strings live here' }],
    patches: patches.map((p) => ({ file: 'src/greet.js', operation: 'replace', ...p, replace_all: null, occurrence: null })),
    commands: [],
    agent_notes: [],
  };
}

let server: ProviderServer;
let project: string;
let env: NodeJS.ProcessEnv;
const sessions: PtySession[] = [];

beforeAll(async () => {
  // A fresh checkout has no dist/ yet; CI builds before testing.
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
  project = await mkdtemp(join(tmpdir(), 'clawcode-pty-cli-'));
  await mkdir(join(project, 'src'));
  await writeFile(join(project, 'src/greet.js'), ORIGINAL);
  await writeFile(join(project, 'package.json'), '{ "name": "greet", "version": "1.0.0" }\n');
  env = cleanEnv({ CLAWCODE_HOME: home, OPENAI_API_KEY: 'sk-test-pty', OPENAI_BASE_URL: `${server.url}/v1` });
});
afterEach(() => sessions.splice(0).forEach((s) => s.kill()));

function start(args: string[]): PtySession {
  const s = spawnPty(process.execPath, [CLI_PATH, ...args], { cwd: project, env, cols: 100, rows: 40 });
  sessions.push(s);
  return s;
}

async function answer(s: PtySession, waitText: string, keys: string) {
  await s.waitFor(waitText);
  s.mark();
  s.write(keys);
}

describe('clawcode in a terminal (built CLI)', () => {
  it('"What next?" loop: applies the first plan, takes one hunk of the second through the review, leaves on an empty answer', { timeout: 90_000 }, async () => {
    server.reply(
      replies.plan(plan([{ find: "'hello'", replace: "'hello there'" }])),
      replies.plan(plan([{ find: "'hello there'", replace: "'HELLO'" }, { find: "'bye'", replace: "'BYE'" }])),
    );
    const s = start(['make the greeting friendlier', '--dir', project, '--provider', 'openai']);
    await answer(s, 'Apply these changes to 1 file?', 'y');
    s.write('\r');
    await s.waitFor('What next?');
    const afterFirst = ORIGINAL.replace("'hello'", "'hello there'");
    expect(await readFile(join(project, 'src/greet.js'), 'utf8')).toBe(afterFirst);

    s.mark();
    s.write('shout both strings\r');
    await answer(s, 'Apply these changes to 1 file?', 'r');
    s.write('\r');
    await answer(s, '(hunk 1/2)', 'y');
    s.write('\r');
    await answer(s, '(hunk 2/2)', 'n');
    s.write('\r');
    await s.waitFor('What next?');
    expect(await readFile(join(project, 'src/greet.js'), 'utf8')).toBe(afterFirst.replace("'hello there'", "'HELLO'"));

    s.write('\r');
    expect(await s.exited).toBe(0);
    expect(server.completions()).toHaveLength(2);
  });
});
