import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, CLI_PATH, runCli, snapshotTree } from '../support/fixture.js';
import { replies, startProviderServer, type ProviderServer } from '../support/provider-server.js';

// What a new user meets first, through the built CLI without a terminal: pipes closed early, runs
// nobody can confirm, flag values, the config subcommands that hints name, and the --json report.

const SOURCE = "export function greet(name) {\n  return 'hello ' + name;\n}\n";
// Far more than a pipe's buffer (64 KiB), so the CLI is still writing when `head` has left.
const BIG =
  Array.from({ length: 4000 }, (_, i) => `export const value${i} = ${i}; // padding to fill the pipe`).join('\n') +
  '\n';

function plan(patches: { file: string; find: string; replace: string }[]) {
  return {
    analysis: 'Make the greeting friendlier.',
    files_to_edit: patches.map((p) => ({ path: p.file, reason: 'the change' })),
    patches: patches.map((p) => ({ operation: 'replace', ...p, replace_all: null, occurrence: null })),
    commands: [],
    agent_notes: [],
  };
}

let server: ProviderServer;
let project: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startProviderServer({ apiKey: 'sk-test-first' });
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  server.reset();
  project = await mkdtemp(join(tmpdir(), 'clawcode-first-'));
  await writeFile(join(project, 'greet.js'), SOURCE);
  await writeFile(join(project, 'package.json'), '{ "name": "greet", "version": "1.0.0" }\n');
  home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
  env = cleanEnv({ CLAWCODE_HOME: home, OPENAI_API_KEY: 'sk-test-first', OPENAI_BASE_URL: `${server.url}/v1` });
});

/** Run `clawcode args | head -n lines` in bash; resolves with what head printed and the CLI's own stderr and exit code. */
function throughHead(args: string[], lines: number): Promise<{ head: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const script = `"$NODE" "$CLI" ${quoted} 2>"$ERRS" | head -n ${lines}; echo "\${PIPESTATUS[0]}" >"$CODE"`;
    const dir = join(home, 'pipe');
    const child = spawn('bash', ['-c', `mkdir -p "${dir}"; ${script}`], {
      env: { ...env, NODE: process.execPath, CLI: CLI_PATH, ERRS: join(dir, 'stderr'), CODE: join(dir, 'code') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let head = '';
    child.stdout.on('data', (d: Buffer) => (head += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', () => {
      void Promise.all([readFile(join(dir, 'stderr'), 'utf8'), readFile(join(dir, 'code'), 'utf8')]).then(
        ([stderr, code]) => resolve({ head, stderr, code: Number(code.trim()) }),
      );
    });
  });
}

describe('a pipe closed early', () => {
  it('`clawcode "x" --dry-run | head -2` ends quietly with exit 0: no EPIPE, no stack', async () => {
    server.reply(replies.plan(plan([{ file: 'big.js', find: '', replace: BIG }])));
    const { head, stderr, code } = await throughHead(
      ['add big.js', '--dir', project, '--dry-run', '--provider', 'openai'],
      2,
    );
    expect(head).toBe('Plan: Make the greeting friendlier.\n\n');
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('`clawcode "x" --events | head -1` ends quietly with exit 0', async () => {
    server.reply(replies.plan(plan([{ file: 'big.js', find: '', replace: BIG }])));
    const { head, stderr, code } = await throughHead(
      ['add big.js', '--dir', project, '--events', '--provider', 'openai'],
      1,
    );
    expect(JSON.parse(head).event).toBeTypeOf('string');
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});

describe('runs nobody can confirm are refused before the model call', () => {
  it('`clawcode apply plan.json` without a terminal and without --yes: exit 2, nothing written', async () => {
    const file = join(home, 'plan.json');
    await writeFile(file, JSON.stringify(plan([{ file: 'greet.js', find: "'hello '", replace: "'hi '" }])));
    const before = await snapshotTree(project);
    const result = await runCli(['apply', file, '--dir', project], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'clawcode: No terminal to confirm in: pass --yes to write the changes, or --dry-run or --json to write nothing.\n',
    );
    const after = await snapshotTree(project);
    for (const [path, bytes] of before) expect(after.get(path)?.equals(bytes), path).toBe(true);
    const applied = await runCli(['apply', file, '--dir', project, '--yes'], { env });
    expect(applied.code).toBe(0);
    expect(await readFile(join(project, 'greet.js'), 'utf8')).toBe(SOURCE.replace("'hello '", "'hi '"));
  });

  it('--json together with --events is a usage error, with no model call', async () => {
    server.reply(replies.plan(plan([{ file: 'greet.js', find: "'hello '", replace: "'hi '" }])));
    const result = await runCli(['task', '--dir', project, '--json', '--events', '--yes'], { env });
    expect(result.code).toBe(2);
    // Under --json every error is a JSON document on stdout.
    expect(JSON.parse(result.stdout).error).toMatchObject({
      code: 'usage',
      exitCode: 2,
      message: '--json and --events both print to stdout; choose one.',
    });
    expect(server.completions()).toHaveLength(0);
  });
});

describe('the --json report', () => {
  it("holds each file's unified diff, also when nothing is written", async () => {
    server.reply(
      replies.plan(
        plan([
          { file: 'greet.js', find: "'hello '", replace: "'hi '" },
          { file: 'new.txt', find: '', replace: 'new\n' },
        ]),
      ),
    );
    const result = await runCli(['friendlier', '--dir', project, '--json', '--provider', 'openai'], { env });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.status).toBe('not_confirmed');
    expect(report.changes).toEqual([
      {
        path: 'greet.js',
        created: false,
        added: 1,
        removed: 1,
        diff: "--- a/greet.js\n+++ b/greet.js\n@@ -1,3 +1,3 @@\n export function greet(name) {\n-  return 'hello ' + name;\n+  return 'hi ' + name;\n }\n",
      },
      {
        path: 'new.txt',
        created: true,
        added: 1,
        removed: 0,
        diff: '--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,1 @@\n+new\n',
      },
    ]);
  });
});

describe('the summary', () => {
  it('shows no cost for a local server, and "Model: none (saved plan)" for apply -', async () => {
    server.reply(
      replies.plan(plan([{ file: 'greet.js', find: "'hello '", replace: "'hi '" }]), {
        usage: { input: 1000, output: 50 },
      }),
    );
    const task = await runCli(['friendlier', '--dir', project, '--yes', '--provider', 'openai'], { env });
    expect(task.code).toBe(0);
    expect(task.stdout).toMatch(/Model: openai\/gpt-4o-mini · 1,000 in \/ 50 out tokens +│/);
    const answer = JSON.stringify(plan([{ file: 'greet.js', find: "'hi '", replace: "'hey '" }]));
    const apply = await runCli(['apply', '-', '--dir', project, '--yes'], { env, input: answer });
    expect(apply.code).toBe(0);
    expect(apply.stdout).toMatch(/Model: none \(saved plan\) +│/);
    expect(apply.stdout).not.toContain('saved plan/');
  });
});

describe('numeric flags', () => {
  it('--budget 10 and --timeout 5 are refused with one line naming the minimum; --budget 2000 is taken', async () => {
    const budget = await runCli(['task', '--dir', project, '--budget', '10', '--dry-run'], { env });
    expect(budget.code).toBe(2);
    expect(budget.stderr).toBe('clawcode: --budget 10 is too small: the minimum is 2,000 characters.\n');
    const context = await runCli(['context', 'greet', '--dir', project, '--budget', '10'], { env });
    expect(context.code).toBe(2);
    expect(context.stderr).toBe('clawcode: --budget 10 is too small: the minimum is 2,000 characters.\n');
    const timeout = await runCli(['task', '--dir', project, '--timeout', '5', '--dry-run'], { env });
    expect(timeout.code).toBe(2);
    expect(timeout.stderr).toBe('clawcode: --timeout 5 is too small: the minimum is 1,000 ms.\n');
    const fraction = await runCli(['task', '--dir', project, '--budget', '2500.5', '--dry-run'], { env });
    expect(fraction.stderr).toBe('clawcode: --budget must be a whole number of characters, got "2500.5".\n');
    const ok = await runCli(['context', 'greet', '--dir', project, '--budget', '2000', '--json'], { env });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).files.map((f: { path: string }) => f.path)).toContain('greet.js');
  });
});

describe('config subcommands', () => {
  it('`config list`, `config show` and `config default <name>` work without a terminal; `config add` asks for one', async () => {
    await writeFile(
      join(home, 'config.json'),
      JSON.stringify({
        defaultProvider: 'one',
        providers: {
          one: { provider: 'openai', model: 'm1', apiKey: 'sk-one-123456' },
          two: { provider: 'openai', model: 'm2', apiKey: 'sk-two-123456' },
        },
      }),
      { mode: 0o600 },
    );
    const bare = cleanEnv({ CLAWCODE_HOME: home });
    const list = await runCli(['config', 'list'], { env: bare });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`Providers (${join(home, 'config.json')}; * = default):`);
    expect(list.stdout).toMatch(/^\* one {2}\(openai\) {2}model m1/m);
    expect(list.stdout).not.toContain('sk-one-123456');

    const setDefault = await runCli(['config', 'default', 'two'], { env: bare });
    expect(setDefault.code).toBe(0);
    expect(setDefault.stdout).toBe('Default provider: two.\n');
    expect(JSON.parse(await readFile(join(home, 'config.json'), 'utf8')).defaultProvider).toBe('two');

    const show = await runCli(['config', 'show', '--dir', project, '--json'], { env: bare });
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout).values.budgetChars).toBe(18000);

    const add = await runCli(['config', 'add', 'ollama'], { env: bare });
    expect(add.code).toBe(2);
    expect(add.stderr.split('\n')[0]).toBe('clawcode: `clawcode config add` needs an interactive terminal');
    const unknown = await runCli(['config', 'frobnicate'], { env: bare });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      "'frobnicate' is invalid for argument 'action'. Allowed choices are list, add, edit",
    );
  });
});
