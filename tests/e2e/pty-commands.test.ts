import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../../utils/shell/sandbox.js';
import { replies } from '../support/provider-server.js';
import { useCliInPty } from '../support/pty.js';

// Plan commands in a terminal: one question for the allow-listed batch, then one per command that needs a
// person's yes (with its reason), and none for the refused; what runs, runs in the sandbox.

const sandbox = await detectSandbox();

const pty = useCliInPty({
  prefix: 'clawcode-pty-commands-',
  files: {
    'package.json': JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'echo tested > tested.txt' } }),
    'scripts/touch.js': "require('fs').writeFileSync('touched.txt', '1');\n",
  },
  rows: 40,
});

describe.skipIf(!sandbox.available)('plan commands in a terminal (built CLI)', () => {
  it(
    'asks once for the batch and once per command that needs a yes; never for a refused one',
    { timeout: 60_000 },
    async () => {
      const sentinel = await mkdtemp('/var/tmp/clawcode-pty-sentinel-');
      await writeFile(join(sentinel, 'keep.txt'), 'keep\n');
      const commands = ['npm test', 'node scripts/touch.js', 'node -e "1"', `rm -rf ${sentinel}`];
      const plan = { analysis: 'run', files_to_edit: [], patches: [], commands, agent_notes: [] };
      pty.server.reply(replies.plan(plan));
      const s = pty.start(['run the checks', '--dir', pty.project, '--yes']);
      await s.waitFor('Run this command (in the sandbox)?');
      s.mark();
      s.write('y\r');
      await s.waitFor(/Needs your yes \(not on the allow-list: node\): node scripts\/touch\.js/);
      s.mark();
      s.write('y\r');
      await s.waitFor(/Needs your yes \(runs inline code \(node -e\)\): node -e "1"/);
      s.mark();
      s.write('n\r');
      expect(await s.exitCode(45_000)).toBe(0);
      const screen = s.output();
      expect(screen).toContain(`refused: rm -rf ${sentinel} (deletes ${sentinel}, outside the project)`);
      expect(screen).not.toMatch(/Needs your yes[^\n]*rm -rf/);
      expect(await readFile(join(pty.project, 'tested.txt'), 'utf8')).toBe('tested\n');
      expect(existsSync(join(pty.project, 'touched.txt'))).toBe(true);
      expect(await readFile(join(sentinel, 'keep.txt'), 'utf8')).toBe('keep\n');
      await rm(sentinel, { recursive: true });
    },
  );
});
