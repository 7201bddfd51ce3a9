import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI_PATH, cleanEnv, fingerprintTree, gitIn, replacePlan, runCli, type CliResult } from '../support/fixture.js';

// Inputs the person names on the command line: a plan for `apply`/`check`, a `--task-file`, or standard input in
// their place. A FIFO with no writer was opened in a libuv worker, and an exiting Node process waits for its
// workers: SIGTERM (and the timeout that sends it) could not end clawcode. `/dev/zero` or an endless pipe was
// read until memory ran out, and a Latin-1 plan was decoded to U+FFFD and written into the project as such.

const GREET = 'export const greet = (name) => "hi " + name;\n';
const PLAN = JSON.stringify(replacePlan('greet.js', [{ find: '"hi "', replace: '"hello "' }], 'Say hello.'));
const HINT = "A plan file holds one JSON plan: from --plan-out, or a model's answer to --print-prompt.\n";

let base: string;
let project: string;
let sentinel: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'clawcode-input-attack-'));
  project = join(base, 'project');
  sentinel = join(base, 'sentinel');
  await mkdir(project);
  await mkdir(sentinel);
  await writeFile(join(project, 'greet.js'), GREET);
  await writeFile(join(sentinel, 'keep.txt'), 'outside the root\n');
  gitIn(project, 'init', '-q');
  gitIn(project, 'add', '.');
  gitIn(project, 'commit', '-qm', 'init');
  execFileSync('mkfifo', [join(project, 'plan.fifo')]);
  env = cleanEnv({ CLAWCODE_HOME: join(base, 'home') });
});
afterAll(async () => rm(base, { recursive: true, force: true }));
// Each test starts from the committed file, whatever the one before wrote.
afterEach(async () => writeFile(join(project, 'greet.js'), GREET));

/**
 * Run the CLI in the project; with `termAfterMs` send SIGTERM then, and SIGKILL (exit code null) if it is still
 * alive 8 s later. Standard input gets `input` (a refusal may close it early: that EPIPE is expected).
 */
function spawnCli(args: string[], options: { termAfterMs?: number; input?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], { env, cwd: project, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.stdin.on('error', () => undefined);
    const after = options.termAfterMs ?? 20_000;
    const term = setTimeout(() => child.kill('SIGTERM'), after);
    const kill = setTimeout(() => child.kill('SIGKILL'), after + 8_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(term);
      clearTimeout(kill);
      resolve({ code, stdout, stderr });
    });
    if (options.input !== undefined) child.stdin.end(options.input);
  });
}

describe('a FIFO with no writer as the input', () => {
  const cases: [string, string[]][] = [
    ['apply', ['apply', 'plan.fifo', '--yes']],
    ['check', ['check', 'plan.fifo']],
    ['--task-file', ['--task-file', 'plan.fifo', '--dry-run']],
  ];
  it.each(cases)(
    '%s: SIGTERM ends the wait with one line, exit 143 (fails on main)',
    async (_name, args) => {
      const before = fingerprintTree(project);
      const r = await spawnCli([...args, '--dir', project], { termAfterMs: 1_500 });
      // Killed by the SIGKILL fallback (the old hang), the code is null.
      expect(r.code, r.stderr).toBe(143);
      expect(r.stderr).toBe('clawcode: Terminated\n');
      expect(r.stdout).toBe('');
      expect(fingerprintTree(project)).toEqual(before);
    },
    20_000,
  );

  it('apply still reads a FIFO that gets a writer (as `apply <(…)` does)', async () => {
    const run = runCli(['apply', 'plan.fifo', '--yes', '--dir', project], { env, cwd: project });
    await new Promise((r) => setTimeout(r, 1_000));
    await writeFile(join(project, 'plan.fifo'), PLAN);
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    expect(await readFile(join(project, 'greet.js'), 'utf8')).toContain('"hello "');
  }, 20_000);
});

describe('inputs that never end or are not text', () => {
  it('apply /dev/zero: refused as a device at once, exit 2 (fails on main)', async () => {
    const before = fingerprintTree(project);
    const r = await runCli(['apply', '/dev/zero', '--yes', '--dir', project], { env, cwd: project, timeoutMs: 15_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`clawcode: Plan file /dev/zero is a device, not a file or a pipe.\n${HINT}`);
    expect(fingerprintTree(project)).toEqual(before);
  });

  it('--task-file /dev/zero: refused as a device at once, exit 2 (fails on main)', async () => {
    const r = await runCli(['--task-file', '/dev/zero', '--dry-run', '--dir', project], { env, cwd: project });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('clawcode: Task file /dev/zero is a device, not a file or a pipe.\n');
  });

  it('apply - with more than 64 MiB on standard input: refused, exit 2 (fails on main)', async () => {
    const big = `${PLAN.slice(0, -1)}, "pad": "${'x'.repeat(65 * 1024 * 1024)}"}`;
    const r = await spawnCli(['apply', '-', '--yes', '--dir', project], { input: big });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`clawcode: The plan on standard input is over 64 MiB, too large for one input.\n${HINT}`);
    expect(await readFile(join(project, 'greet.js'), 'utf8')).toBe(GREET);
  }, 30_000);

  it('a Latin-1 plan is refused, never written as U+FFFD, exit 2 (fails on main)', async () => {
    const latin1 = Buffer.from(PLAN.replace('"\\"hello \\""', '"\\"caf\u00e9 \\""'), 'latin1');
    await writeFile(join(base, 'latin1.json'), latin1);
    const before = fingerprintTree(project);
    const r = await runCli(['apply', join(base, 'latin1.json'), '--yes', '--dir', project], { env, cwd: project });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `clawcode: Plan file ${join(base, 'latin1.json')} is not UTF-8 text (line 1 holds a byte that is not UTF-8).\n${HINT}`,
    );
    expect(fingerprintTree(project)).toEqual(before);
    expect(fingerprintTree(sentinel)).toEqual(new Map([['keep.txt', expect.any(String)]]));
  });

  it('a UTF-8 plan holding U+FFFD itself still applies', async () => {
    await writeFile(join(base, 'fffd.json'), PLAN.replace('"\\"hello \\""', '"\\"h\uFFFDllo \\""'));
    const r = await runCli(['apply', join(base, 'fffd.json'), '--yes', '--dir', project], { env, cwd: project });
    expect(r.code, r.stderr).toBe(0);
    expect(await readFile(join(project, 'greet.js'), 'utf8')).toContain('"h\uFFFDllo "');
  });

  it('a Latin-1 task file is refused, exit 2 (fails on main)', async () => {
    await writeFile(join(base, 'task.txt'), Buffer.from('rename greet to caf\u00e9\n', 'latin1'));
    const r = await runCli(['--task-file', join(base, 'task.txt'), '--dry-run', '--dir', project], {
      env,
      cwd: project,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `clawcode: Task file ${join(base, 'task.txt')} is not UTF-8 text (line 1 holds a byte that is not UTF-8).\n`,
    );
  });
});
