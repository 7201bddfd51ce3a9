import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replies } from '../support/provider-server.js';
import { useCliInPty } from '../support/pty.js';

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
    patches: patches.map((p) => ({
      file: 'src/greet.js',
      operation: 'replace',
      ...p,
      replace_all: null,
      occurrence: null,
    })),
    commands: [],
    agent_notes: [],
  };
}

const pty = useCliInPty({
  prefix: 'clawcode-pty-cli-',
  files: { 'src/greet.js': ORIGINAL, 'package.json': '{ "name": "greet", "version": "1.0.0" }\n' },
  rows: 40,
});

describe('clawcode in a terminal (built CLI)', () => {
  it(
    '"What next?" loop: applies the first plan, takes one hunk of the second (edited in $EDITOR) through the review, leaves on an empty answer',
    { timeout: 90_000 },
    async () => {
      pty.server.reply(
        replies.plan(plan([{ find: "'hello'", replace: "'hello there'" }])),
        replies.plan(
          plan([
            { find: "'hello there'", replace: "'HELLO'" },
            { find: "'bye'", replace: "'BYE'" },
          ]),
        ),
      );
      // No $VISUAL or $EDITOR: the `e` key still works, with the editor git would use (GIT_EDITOR here).
      delete pty.env.VISUAL;
      delete pty.env.EDITOR;
      pty.env.GIT_EDITOR = 'sed -i s/HELLO/Hola/';
      const s = pty.start(['make the greeting friendlier', '--dir', pty.project, '--provider', 'openai']);
      await s.answer('Apply these changes to 1 file?', 'y');
      s.write('\r');
      await s.waitFor('What next?');
      const afterFirst = ORIGINAL.replace("'hello'", "'hello there'");
      expect(await readFile(join(pty.project, 'src/greet.js'), 'utf8')).toBe(afterFirst);

      s.mark();
      s.write('shout both strings\r');
      await s.answer('Apply these changes to 1 file?', 'r');
      s.write('\r');
      // e: the editor (here a sed that rewrites the hunk's new text) edits the first hunk, which is shown
      // again as edited and taken with y.
      await s.answer('(hunk 1/2)', 'e');
      s.write('\r');
      await s.waitFor('Apply the edited hunk to src/greet.js?');
      expect(s.sinceMark()).toContain("+export const greeting = 'Hola';");
      s.mark();
      s.write('y\r');
      await s.answer('(hunk 2/2)', 'n');
      s.write('\r');
      await s.waitFor('What next?');
      expect(await readFile(join(pty.project, 'src/greet.js'), 'utf8')).toBe(
        afterFirst.replace("'hello there'", "'Hola'"),
      );

      s.write('\r');
      expect(await s.exitCode()).toBe(0);
      expect(pty.server.completions()).toHaveLength(2);
    },
  );
});
