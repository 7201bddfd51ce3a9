import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GIT_TEST_ENV } from '../support/fixture.js';
import { replies } from '../support/provider-server.js';
import { useCliInPty } from '../support/pty.js';

// Names that come with a tree and are drawn on every screen: the git branch in the TUI's header (git allows
// bidi and C1 controls in a ref name, and a downloaded .git/HEAD names any), and the project folder's name in
// the shell's prompt and banner. They are shown escaped like every other untrusted text.

const RLO = '\u202e';
const CSI = '\u009b';
const TITLE = '\u001b]0;pwned\u0007';

const pty = useCliInPty({
  prefix: 'clawcode-pty-header-',
  files: { 'src/greet.js': "export const greeting = 'hello';\n" },
  env: { CI: 'true' },
  rows: 30,
});

describe('names from the tree in the interactive surfaces', () => {
  it(
    'the TUI header shows a branch holding bidi and C1 controls escaped (fails on main)',
    { timeout: 60_000 },
    async () => {
      execFileSync('git', ['init', '-q', pty.project], { env: { ...process.env, ...GIT_TEST_ENV } });
      execFileSync('git', ['-C', pty.project, 'symbolic-ref', 'HEAD', `refs/heads/main${RLO}niam${CSI}8m`], {
        env: { ...process.env, ...GIT_TEST_ENV },
      });
      const s = pty.start(['--ui', '--dir', pty.project, '--provider', 'openai'], 100);
      await s.waitFor('\\u202e');
      expect(s.output()).toContain('main\\u202eniam\\x9b8m');
      expect(s.raw()).not.toContain(RLO);
      expect(s.raw()).not.toContain(CSI);
      s.write('\u0003');
      expect(await s.exitCode()).toBe(0);
    },
  );

  it(
    'the shell shows a project folder named with an OSC sequence escaped (fails on main)',
    { timeout: 60_000 },
    async () => {
      const folder = join(pty.project, `app${TITLE}`);
      mkdirSync(folder);
      writeFileSync(join(folder, 'package.json'), '{"name":"app"}\n');
      const s = pty.start(['--shell', '--dir', folder, '--provider', 'openai']);
      await s.waitFor('clawcode:app');
      expect(s.output()).toContain('clawcode:app\\x1b]0;pwned\\x07');
      expect(s.raw()).not.toContain(TITLE);
      s.write(':exit\r');
      expect(await s.exitCode()).toBe(0);
    },
  );

  it(
    'the shell lists a file a plan named with an OSC sequence escaped in :files (fails on main)',
    { timeout: 60_000 },
    async () => {
      const file = `src/new${TITLE}.js`;
      pty.server.reply(
        replies.plan({
          analysis: 'Add a file.',
          files_to_edit: [{ path: file, reason: 'new' }],
          patches: [
            { file, operation: 'replace', find: '', replace: 'export {};\n', replace_all: null, occurrence: null },
          ],
          commands: [],
          agent_notes: [],
        }),
      );
      const s = pty.start(['--shell', '--dir', pty.project, '--provider', 'openai']);
      await s.waitFor('clawcode:');
      s.write('add a new module\r');
      await s.waitFor('Apply these changes to 1 file?');
      s.write('y\r');
      await s.waitFor('Wrote');
      s.mark();
      s.write(':files\r');
      await s.waitFor('kept');
      expect(s.sinceMark()).toContain('src/new\\x1b]0;pwned\\x07.js');
      expect(s.raw()).not.toContain(TITLE);
      s.write(':exit\r');
      expect(await s.exitCode()).toBe(0);
    },
  );
});
