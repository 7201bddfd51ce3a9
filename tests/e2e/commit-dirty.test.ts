import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, GIT_TEST_ENV, gitIn, replacePlan, runCli } from '../support/fixture.js';
import { replies, startProviderServer, type ProviderServer } from '../support/provider-server.js';

// --commit over a file holding the person's uncommitted work: that work gets a commit of its own first, so
// clawcode's commit holds only its edit, and undo's revert commit leaves the work committed.

const GREET = 'function greet(name) {\n  return "Hello " + name;\n}\n';
const WORK = '// my uncommitted work\n';
const PLAN = replacePlan(
  'greet.js',
  [{ find: 'return "Hello " + name;', replace: 'return "Hello " + name + "!";' }],
  'Add an exclamation mark.',
);

let server: ProviderServer;
let project: string;
let env: NodeJS.ProcessEnv;
const git = (...args: string[]) => gitIn(project, ...args);

beforeAll(async () => {
  server = await startProviderServer({ apiKey: 'k' });
});
afterAll(async () => server.close());
beforeEach(async () => {
  server.reset();
  project = await mkdtemp(join(tmpdir(), 'clawcode-commit-dirty-'));
  await writeFile(join(project, 'greet.js'), GREET);
  await writeFile(join(project, 'notes.txt'), 'notes\n');
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'base');
  await writeFile(join(project, 'greet.js'), GREET + WORK);
  await writeFile(join(project, 'notes.txt'), 'notes, edited\n');
  env = cleanEnv({
    ...GIT_TEST_ENV,
    CLAWCODE_HOME: await mkdtemp(join(tmpdir(), 'clawcode-home-')),
    OPENAI_API_KEY: 'k',
    OPENAI_BASE_URL: `${server.url}/v1`,
  });
});

describe('--commit over uncommitted work', () => {
  it("commits the person's work first, on its own; clawcode's commit holds only its edit; undo keeps the work", async () => {
    server.reply(replies.plan(PLAN));
    const r = await runCli(['add an exclamation mark', '--dir', project, '--yes', '--commit'], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('! Uncommitted changes in greet.js: --commit commits them first, on their own');
    expect(r.stdout).toMatch(/✓ Committed the uncommitted changes in greet\.js first, as [0-9a-f]{10}/);

    expect(git('log', '--format=%s').trim().split('\n')).toEqual([
      'add an exclamation mark',
      'Uncommitted changes in greet.js, committed before a clawcode edit',
      'base',
    ]);
    // clawcode's commit: the edit alone.
    expect(git('diff', '-U0', 'HEAD~1', 'HEAD')).toContain('+  return "Hello " + name + "!";');
    expect(git('diff', '-U0', 'HEAD~1', 'HEAD')).not.toContain('my uncommitted work');
    // The person's commit: the work alone.
    expect(git('diff', '-U0', 'HEAD~2', 'HEAD~1', '--', 'greet.js')).toContain(`+${WORK.trim()}`);
    expect(git('diff', '-U0', 'HEAD~2', 'HEAD~1', '--', 'greet.js')).not.toContain('"!"');
    // Files clawcode did not write are left as they were.
    expect(git('status', '--porcelain')).toBe(' M notes.txt\n');

    const undo = await runCli(['undo', '--dir', project, '--yes'], { env });
    expect(undo.code).toBe(0);
    expect(await readFile(join(project, 'greet.js'), 'utf8')).toBe(GREET + WORK);
    expect(git('log', '-1', '--format=%s').trim()).toBe('Revert "add an exclamation mark"');
    expect(git('diff', 'HEAD~2', 'HEAD')).toBe('');
    expect(git('status', '--porcelain')).toBe(' M notes.txt\n');
  });

  it('a clean file needs no extra commit', async () => {
    git('checkout', '--', 'greet.js');
    server.reply(replies.plan(PLAN));
    const r = await runCli(['add an exclamation mark', '--dir', project, '--yes', '--commit'], { env });
    expect(r.code).toBe(0);
    expect(git('log', '--format=%s').trim().split('\n')).toEqual(['add an exclamation mark', 'base']);
  });

  it('when the work cannot be committed first, nothing is written (exit 1)', async () => {
    // git refuses to touch an index another git process holds.
    await writeFile(join(project, '.git', 'index.lock'), '');
    server.reply(replies.plan(PLAN));
    const r = await runCli(['add an exclamation mark', '--dir', project, '--yes', '--commit', '--json'], { env });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.filesWritten).toEqual([]);
    expect(report.error).toMatch(/^nothing written: the uncommitted changes could not be committed first: /);
    expect(await readFile(join(project, 'greet.js'), 'utf8')).toBe(GREET + WORK);
    expect(git('log', '--format=%s').trim()).toBe('base');
  });
});
