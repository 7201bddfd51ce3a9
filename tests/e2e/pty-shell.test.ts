import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replies } from '../support/provider-server.js';
import { useCliInPty } from '../support/pty.js';

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

// CI=true as in a CI runner or a dev container: the --ui test must still see Ink draw live.
const pty = useCliInPty({
  prefix: 'clawcode-pty-shell-',
  files: { 'src/greet.js': ORIGINAL },
  env: { CI: 'true' },
  rows: 30,
});

const greet = () => readFile(join(pty.project, 'src/greet.js'), 'utf8');

describe('interactive surfaces of the built CLI', () => {
  it(
    '--shell: runs a line as a task, Ctrl-C cancels a hanging model request, :undo restores, :exit leaves',
    { timeout: 90_000 },
    async () => {
      pty.server.reply(replies.plan(plan("'bye'", "'goodbye'")), replies.hang());
      const s = pty.start(['--shell', '--dir', pty.project, '--provider', 'openai']);
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
      for (let i = 0; i < 400 && pty.server.completions().length < 2; i++) await new Promise((r) => setTimeout(r, 25));
      expect(pty.server.completions()).toHaveLength(2);
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
    },
  );

  it(
    '--ui at 60 columns: a task from the input shows its diff, y in the TUI writes it, Ctrl-C leaves',
    { timeout: 90_000 },
    async () => {
      pty.server.reply(replies.plan(plan("'hello'", "'hi'"), { usage: { input: 900, output: 60 } }));
      const s = pty.start(['--ui', '--dir', pty.project, '--provider', 'openai'], 60);
      await s.waitFor('describe a task');
      s.mark();
      s.write('shorter greeting');
      await s.waitFor('shorter greeting');
      s.write('\r');
      await s.waitFor('Apply these changes to 1 file? (y/n/r)');
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
    },
  );
});
