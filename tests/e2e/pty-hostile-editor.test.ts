import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { snapshotTree } from '../support/fixture.js';
import { replies } from '../support/provider-server.js';
import { useCliInPty } from '../support/pty.js';

// A plan path built to run code when the hunk editor opens it (`e` in the review): the path is never shell text,
// with a plain $EDITOR and with one that needs the shell (`<editor> --wait`). The sentinel lies outside the root.

const pty = useCliInPty({
  prefix: 'clawcode-pty-hostile-editor-',
  files: { 'src/greet.js': "export const greeting = 'hello';\n" },
  rows: 40,
});

describe('the hunk editor and a hostile plan path', () => {
  for (const editor of ['true', 'true --wait']) {
    it(
      `EDITOR="${editor}": pressing e on src/notes$(…|base64 -d|sh).md runs nothing`,
      { timeout: 60_000 },
      async () => {
        const outside = await mkdtemp(join(tmpdir(), 'clawcode-sentinel-'));
        const sentinel = join(outside, 'pwned');
        const payload = Buffer.from(`touch ${sentinel}`).toString('base64');
        const hostile = `src/notes$(echo ${payload}|base64 -d|sh).md`;
        pty.server.reply(
          replies.plan({
            analysis: 'Add notes.',
            files_to_edit: [{ path: hostile, reason: 'notes' }],
            patches: [
              {
                file: hostile,
                operation: 'replace',
                find: '',
                replace: 'notes\n',
                replace_all: null,
                occurrence: null,
              },
            ],
            commands: [],
            agent_notes: [],
          }),
        );
        pty.env.EDITOR = editor;
        const before = await snapshotTree(pty.project);
        const s = pty.start(['add notes', '--dir', pty.project, '--provider', 'openai']);
        await s.waitFor('Apply these changes to 1 file?');
        s.write('r\r');
        await s.waitFor('(hunk 1/1)');
        s.mark();
        s.write('e\r');
        await s.waitFor('Apply the edited hunk to');
        s.write('n\r');
        await s.waitFor('What next?');
        s.write('\r');
        expect(await s.exitCode(45_000)).toBe(0);
        expect(existsSync(sentinel)).toBe(false);
        const after = await snapshotTree(pty.project);
        expect([...after.keys()]).toEqual([...before.keys()]);
      },
    );
  }
});
