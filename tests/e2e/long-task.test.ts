import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { copyPackageFixture, replacePlan, runCli } from '../support/fixture.js';
import { replies } from '../support/provider-server.js';
import { useCliProvider } from '../support/loopback-project.js';

// A long task: counted in the budget (refused past half of it), shown by its first lines only, kept short in
// memory, and given from a file or standard input.

const FIND = 'exports.CommanderError = CommanderError;';
const PLAN = replacePlan('lib/error.js', [{ find: FIND, replace: `${FIND}\nexports.FLAG = true;` }], 'Export a flag.');

/** A task of `lines` lines about the error classes, ~75 characters each. */
function longTask(lines: number): string {
  return Array.from(
    { length: lines },
    (_, i) => `step ${i}: the CommanderError class in lib/error.js needs a flag`,
  ).join('\n');
}

const cli = useCliProvider();
let project: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  cli.server.reset();
  project = await copyPackageFixture('commander');
  env = await cli.freshEnv();
});

const userPrompt = (i: number): string => cli.server.completions()[i]!.body.messages[1].content as string;

describe('a long task', () => {
  it('past half the budget is refused in one line, exit 2, with no request', async () => {
    const task = longTask(1350);
    // A set budget: gpt-4o-mini's default (240,000 from its 128k-token window) would need a task past
    // the 128 KiB a single command-line argument may hold.
    const r = await runCli([task, '--dir', project, '--dry-run', '--budget', '60000'], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `clawcode: The task is ${task.length.toLocaleString('en-US')} characters; a task may take at most half of the 60,000-character budget (30,000).\n` +
        'Shorten it to what must change, or raise --budget.\n',
    );
    expect(cli.server.requests).toEqual([]);
  });

  it('is counted in the budget: task and context together stay under it', async () => {
    const task = longTask(80);
    cli.server.reply(replies.plan(PLAN));
    const r = await runCli([task, '--dir', project, '--dry-run', '--json', '--budget', '20000'], { env });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.context.totalChars).toBeGreaterThan(5000);
    expect(report.context.totalChars + task.length).toBeLessThanOrEqual(20000);
  });

  it('from --task-file: the summary shows its first lines only; memory keeps its first line', async () => {
    const task = longTask(250);
    await writeFile(join(project, 'task.txt'), `${task}\n`);
    cli.server.reply(replies.plan(PLAN), replies.plan({ ...PLAN, patches: [] }));
    const r = await runCli(['--task-file', 'task.txt', '--dir', project, '--yes'], { env, cwd: project });
    expect(r.code).toBe(0);
    expect(userPrompt(0)).toContain(task);
    expect(r.stdout).toContain('│ … (247 more lines)');
    expect(r.stdout).not.toContain('step 3:');
    expect(r.stdout.split('\n').length).toBeLessThan(40);
    expect(await readFile(join(project, 'lib/error.js'), 'utf8')).toContain('exports.FLAG = true;');

    // The next task's prompt quotes the last one by its first line, not its 250.
    await runCli(['add another flag', '--dir', project, '--dry-run'], { env });
    expect(userPrompt(1)).toContain('step 0: the CommanderError class in lib/error.js needs a flag');
    expect(userPrompt(1)).not.toContain('step 1:');
  });

  it('from standard input with -', async () => {
    cli.server.reply(replies.plan(PLAN));
    const r = await runCli(['-', '--dir', project, '--dry-run'], { env, input: 'export a flag from\nlib/error.js\n' });
    expect(r.code).toBe(0);
    expect(userPrompt(0)).toContain('export a flag from\nlib/error.js');
  });

  it('a missing task file is one line, exit 2', async () => {
    const r = await runCli(['--task-file', 'nope.txt', '--dir', project, '--dry-run'], { env, cwd: project });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('clawcode: Task file nope.txt not found.\n');
  });
});
