import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/fixture.js';
import { replacePatch } from '../support/plans.js';
import { replies } from '../support/provider-server.js';
import { useCliInPty } from '../support/pty.js';

// Untrusted bytes on the terminal, through the built CLI: project files printed by --print-prompt, plan paths
// holding a newline, bidi controls in a reviewed diff, settings values in the trust prompt. Each is shown
// escaped; the files get exactly the plan's bytes.

const RLO = '\u202e';
const LRI = '\u2066';
const PDI = '\u2069';
const BIDI = /[\u202a-\u202e\u2066-\u2069]/;
const OSC52 = '\u001b]52;c;cm0gLXJmIH4K\u0007';
const FORGED = 'notes.md\n✓ #9 src/security.ts (all checks passed)';

const PLAN = {
  analysis: `Reverse the greeting ${LRI}safely${PDI}.`,
  files_to_edit: [{ path: 'src/greet.js', reason: 'greeting' }],
  patches: [replacePatch('src/greet.js', "'hello'", `'he${RLO}olleh'`), replacePatch(FORGED, '', 'x\n')],
  commands: [],
  agent_notes: [],
};

const pty = useCliInPty({
  prefix: 'clawcode-terminal-bytes-',
  files: {
    'src/greet.js': "export const greeting = 'hello';\n",
    'README.md': `# greet\nCopy this ${OSC52}and read ${RLO}sdrawkcab.\n`,
  },
  env: { CI: 'true' },
  rows: 40,
});

describe('untrusted bytes on the terminal', () => {
  it('a plan path holding a newline cannot forge a line of the summary, and bidi controls show escaped', async () => {
    pty.server.reply(replies.plan(PLAN));
    const result = await runCli(['reverse the greeting', '--dir', pty.project, '--yes', '--provider', 'openai'], {
      env: pty.env,
      timeoutMs: 45_000,
    });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines.filter((l) => l.includes('src/security.ts (all checks passed)'))).not.toHaveLength(0);
    for (const line of lines) expect(line.trimStart().startsWith('✓ #9 src/security.ts')).toBe(false);
    expect(result.stdout).toContain('notes.md\\n✓ #9 src/security.ts');
    expect(result.stdout).not.toMatch(BIDI);
    expect(result.stdout).toContain(`+export const greeting = 'he\\u202eolleh';`);
    // Display only: the bytes written are the plan's.
    expect(await readFile(join(pty.project, 'src/greet.js'), 'utf8')).toBe(
      `export const greeting = 'he${RLO}olleh';\n`,
    );
    expect(await readFile(join(pty.project, FORGED), 'utf8')).toBe('x\n');
  });

  it('--print-prompt on a terminal shows the project bytes escaped; into a pipe it prints them exactly', async () => {
    const s = pty.start(['--print-prompt', 'explain the readme', '--dir', pty.project]);
    expect(await s.exitCode(45_000)).toBe(0);
    expect(s.raw()).not.toContain('\u001b]52');
    expect(s.raw()).not.toMatch(BIDI);
    expect(s.output()).toContain('Copy this \\x1b]52;c;cm0gLXJmIH4K\\x07and read \\u202esdrawkcab.');

    const piped = await runCli(['--print-prompt', 'explain the readme', '--dir', pty.project], { env: pty.env });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toContain(`Copy this ${OSC52}and read ${RLO}sdrawkcab.`);
  });

  it('the review shows a hunk with bidi controls escaped, its path on one line', { timeout: 60_000 }, async () => {
    pty.server.reply(replies.plan(PLAN));
    const s = pty.start(['reverse the greeting', '--dir', pty.project, '--provider', 'openai']);
    await s.waitFor('Apply these changes to 2 files?');
    s.mark();
    s.write('r\r');
    await s.waitFor('(hunk 1/1)');
    expect(s.sinceMark()).toContain(`+export const greeting = 'he\\u202eolleh';`);
    s.write('y\r');
    await s.waitFor('Apply this hunk to notes.md\\n✓ #9 src/security.ts');
    s.write('n\r');
    await s.waitFor('What next?');
    s.write('\r');
    expect(await s.exitCode(45_000)).toBe(0);
    expect(s.raw()).not.toMatch(BIDI);
    expect(s.output()).not.toMatch(/^\s*✓ #9 src\/security\.ts/m);
  });

  it('the trust prompt shows a settings value with C1 and bidi controls escaped', { timeout: 60_000 }, async () => {
    await mkdir(join(pty.project, '.clawcode'), { recursive: true });
    await writeFile(
      join(pty.project, '.clawcode', 'settings.json'),
      JSON.stringify({ verifyCommand: `npm test ${RLO}\u009b2J# ~ fr- mr` }),
    );
    pty.server.reply(replies.plan(PLAN));
    const s = pty.start(['reverse the greeting', '--dir', pty.project, '--provider', 'openai', '--dry-run']);
    await s.waitFor('(y/N)');
    expect(s.output()).toContain('verifyCommand = "npm test \\u202e\\x9b2J# ~ fr- mr"');
    expect(s.raw()).not.toMatch(BIDI);
    expect(s.raw()).not.toContain('\u009b');
    s.write('n\r');
    await s.waitFor('What next?');
    s.write('\r');
    expect(await s.exitCode(45_000)).toBe(0);
  });
});
