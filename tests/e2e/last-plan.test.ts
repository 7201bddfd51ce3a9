import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replacePlan, runCli } from '../support/fixture.js';
import { replies } from '../support/provider-server.js';
import { useCliInPty } from '../support/pty.js';

// The last plan of each project is kept, so a plan declined in a terminal (or seen in a dry run) can be applied
// later with `clawcode apply --last`, with no model call.

const GREET = 'export const greet = (name) => "hi " + name;\n';
const PLAN = replacePlan('greet.js', [{ find: '"hi "', replace: '"hello "' }], 'Say hello.');

const pty = useCliInPty({ prefix: 'clawcode-last-plan-', files: { 'greet.js': GREET }, rows: 40 });

describe('clawcode apply --last', () => {
  it('brings back a plan declined in a terminal, and applies it with no model call', { timeout: 60_000 }, async () => {
    pty.server.reply(replies.plan(PLAN));
    const s = pty.start(['say hello']);
    await s.waitFor('Apply these changes to 1 file?');
    s.mark();
    s.write('n\r');
    await s.waitFor('Nothing written.');
    await s.waitFor('What next?');
    s.write('\r');
    expect(await s.exitCode()).toBe(0);
    expect(await readFile(join(pty.project, 'greet.js'), 'utf8')).toBe(GREET);
    expect(pty.server.completions()).toHaveLength(1);

    const r = await runCli(['apply', '--last', '--yes'], { env: pty.env, cwd: pty.project });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Task: say hello');
    expect(await readFile(join(pty.project, 'greet.js'), 'utf8')).toBe(
      'export const greet = (name) => "hello " + name;\n',
    );
    expect(pty.server.completions()).toHaveLength(1);
  });

  it('after a dry run, check --last says it applies; with no plan kept, one line and exit 2', async () => {
    const none = await runCli(['apply', '--last', '--yes'], { env: pty.env, cwd: pty.project });
    expect(none.code).toBe(2);
    expect(none.stderr.split('\n')[0]).toBe('clawcode: No plan was kept for this project yet.');

    pty.server.reply(replies.plan(PLAN));
    const dry = await runCli(['say hello', '--dry-run'], { env: pty.env, cwd: pty.project });
    expect(dry.code).toBe(0);
    const check = await runCli(['check', '--last'], { env: pty.env, cwd: pty.project });
    expect(check.code).toBe(0);
    expect(check.stdout).toContain('#1 greet.js: applies');
  });
});
