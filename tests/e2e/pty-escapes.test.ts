import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replies } from '../support/provider-server.js';
import { useCliInPty } from '../support/pty.js';

// Terminal control sequences planted in a plan (a replacement that erases lines, an analysis that sets
// the window title) reach the terminal escaped, in the console flow and in the TUI.

const ORIGINAL = "export const greeting = 'hello';\n";
const ERASE = '\u001b[2K\u001b[1A';
const TITLE = '\u001b]0;pwned\u0007';
const PLAN = {
  analysis: `Change the greeting.${TITLE}`,
  files_to_edit: [{ path: 'src/greet.js', reason: 'greeting' }],
  patches: [
    {
      file: 'src/greet.js',
      operation: 'replace',
      find: "'hello'",
      replace: `'hi${ERASE}'`,
      replace_all: null,
      occurrence: null,
    },
  ],
  commands: [],
  agent_notes: [],
};

const pty = useCliInPty({
  prefix: 'clawcode-pty-escapes-',
  files: { 'src/greet.js': ORIGINAL },
  env: { CI: 'true' },
  rows: 30,
});

describe('model text on the terminal', () => {
  it(
    'the console flow shows ESC[2K ESC[1A and an OSC title escaped, and writes the bytes unchanged',
    { timeout: 60_000 },
    async () => {
      pty.server.reply(replies.plan(PLAN));
      const s = pty.start(['shorter greeting', '--dir', pty.project, '--provider', 'openai']);
      await s.waitFor('Apply these changes to 1 file?');
      expect(s.output()).toContain('Plan: Change the greeting.\\x1b]0;pwned\\x07');
      expect(s.output()).toContain("+export const greeting = 'hi\\x1b[2K\\x1b[1A';");
      expect(s.raw()).not.toContain(TITLE);
      // (Ink and the prompts use ESC[2K themselves to redraw, so the check is on the planted bytes in place.)
      expect(s.raw()).not.toContain(`hi${ERASE}`);
      s.mark();
      s.write('y\r');
      await s.waitFor('What next?');
      s.write('\r');
      expect(await s.exitCode()).toBe(0);
      // Escaping is for display only: the file gets exactly what the plan said.
      expect(await readFile(join(pty.project, 'src/greet.js'), 'utf8')).toBe(`export const greeting = 'hi${ERASE}';\n`);
    },
  );

  it('the TUI diff pane shows them escaped too', { timeout: 60_000 }, async () => {
    pty.server.reply(replies.plan(PLAN));
    const s = pty.start(['--ui', '--dir', pty.project, '--provider', 'openai'], 100);
    await s.waitFor('describe a task');
    s.mark();
    s.write('shorter greeting');
    await s.waitFor('shorter greeting');
    s.write('\r');
    await s.waitFor('Apply these changes to 1 file?');
    expect(s.sinceMark()).toContain("+export const greeting = 'hi\\x1b[2K\\x1b[1A';");
    expect(s.raw()).not.toContain(`hi${ERASE}`);
    s.mark();
    s.write('n');
    await s.waitFor('ready │');
    s.write('\u0003');
    expect(await s.exitCode()).toBe(0);
  });
});
