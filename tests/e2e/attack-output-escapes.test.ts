import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../../utils/shell/sandbox.js';
import { runCli } from '../support/fixture.js';
import { planOf, replacePatch } from '../support/plans.js';
import { replies } from '../support/provider-server.js';
import { useCliInPty } from '../support/pty.js';

// Colour sequences (SGR) are the one kind of escape the console keeps, for clawcode's own colours. Untrusted text
// must not bring its own: `ESC[8m` (conceal) or black-on-black left open by a command's output, or by a task read
// from a file, hides every line printed after it (the summary, the next command's question). Each of these is
// shown escaped: a plan command's output, a failing verify's output, the task in `history` and in `undo`.

const sandbox = await detectSandbox();
const skipReason = sandbox.available ? '' : ` (skipped: ${sandbox.reason})`;
const CONCEAL = '\u001b[8m';
const HIDE = '\u001b[30;40m';
const LOUD = `printf 'ok\\033[8m\\033[30;40m\\n'`;

const pty = useCliInPty({
  prefix: 'clawcode-attack-output-',
  files: {
    'src/a.js': 'export const a = 1;\n',
    'package.json': JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: LOUD, fail: `${LOUD}; exit 3` } }),
  },
  env: { CI: 'true' },
  rows: 30,
});

const PLAN = planOf([replacePatch('src/a.js', '1', '2')]);
const cli = (args: string[]) => runCli(args, { env: pty.env, cwd: pty.project, timeoutMs: 45_000 });

describe(`colour sequences from untrusted text${skipReason}`, () => {
  it.skipIf(!sandbox.available)("a plan command's output and a failing verify's output show them escaped", async () => {
    pty.server.reply(replies.plan({ ...PLAN, commands: ['npm test'] }));
    const run = await cli(['bump a', '--dir', pty.project, '--yes', '--run-commands', '--provider', 'openai']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain(CONCEAL);
    expect(run.stdout).not.toContain(HIDE);
    expect(run.stdout).toContain('ok\\x1b[8m\\x1b[30;40m');
    expect(run.stdout).toMatch(/Task: bump a/);

    pty.server.reply(replies.plan(planOf([replacePatch('src/a.js', '2', '3')])));
    const verify = await cli(['bump a', '--dir', pty.project, '--yes', '--verify-cmd', 'npm run fail']);
    expect(verify.code).toBe(4);
    expect(verify.stdout + verify.stderr).not.toContain(CONCEAL);
    expect(verify.stdout).toContain('ok\\x1b[8m\\x1b[30;40m');
  });

  it('a task read from a file shows them escaped in history and undo', async () => {
    await writeFile(join(pty.project, 'TASK.md'), `bump a${CONCEAL}${HIDE} quietly\n`);
    pty.server.reply(replies.plan(PLAN));
    const run = await cli(['--task-file', 'TASK.md', '--dir', pty.project, '--yes', '--provider', 'openai']);
    expect(run.code, run.stderr).toBe(0);
    for (const args of [['history'], ['undo']]) {
      const shown = await cli([...args, '--dir', pty.project]);
      expect(shown.stdout, args[0]).not.toContain(CONCEAL);
      expect(shown.stdout, args[0]).not.toContain(HIDE);
      expect(shown.stdout, args[0]).toContain('bump a\\x1b[8m\\x1b[30;40m quietly');
    }
  });

  it('--json, --events and history --json write C1 and bidi controls as \\u escapes that parse back exactly', async () => {
    const analysis = 'Bump a\u009b8m \u202eevil\u2028.';
    const task = 'bump a \u009b2J\u2066';
    const plan = { ...PLAN, analysis, agent_notes: ['uses \u202ejs'] };
    const RAW = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
    pty.server.reply(replies.plan(plan));
    const json = await cli([task, '--dir', pty.project, '--json', '--yes', '--provider', 'openai']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).not.toMatch(RAW);
    const report = JSON.parse(json.stdout) as { task: string; plan: { analysis: string; agent_notes: string[] } };
    expect(report.plan.analysis).toBe(analysis);
    expect(report.plan.agent_notes).toEqual(['uses \u202ejs']);
    expect(report.task).toBe(task);

    pty.server.reply(replies.plan(planOf([replacePatch('src/a.js', '2', '3')], { analysis })));
    const events = await cli([task, '--dir', pty.project, '--events', '--dry-run', '--provider', 'openai']);
    expect(events.code, events.stderr).toBe(0);
    expect(events.stdout).not.toMatch(RAW);
    const lines = events.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; report?: { plan: { analysis: string } } });
    expect(lines.at(-1)?.report?.plan.analysis).toBe(analysis);

    const history = await cli(['history', '--dir', pty.project, '--json']);
    expect(history.stdout).not.toMatch(RAW);
    expect((JSON.parse(history.stdout) as { task: string }[])[0]?.task).toBe(task);
  });
});
