import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useDriverInPty } from '../support/pty.js';

const pty = useDriverInPty({ driver: 'tui-driver.ts', prefix: 'clawcode-pty-tui-' });

describe('the Ink TUI in a 60-column terminal', () => {
  it(
    'runs a task from the input, shows the feed and diff, cancels with Esc, recalls history, quits on Ctrl-C',
    { timeout: 90_000 },
    async () => {
      // CI=true as in a CI runner or a dev container: the TUI must still draw live (ui/load-ui.ts).
      const s = pty.start({ cols: 60, rows: 24, env: { CI: 'true' } });
      await s.waitFor('describe a task');
      expect(s.output()).toContain('loopback · test-model');
      expect(s.output()).toContain('⎇ main');

      s.mark();
      s.write('write notes.txt hello tui');
      await s.waitFor('write notes.txt hello tui');
      s.write('\r');
      await s.waitFor('Applied 1 file');
      await s.waitFor('+hello tui');
      await s.waitFor('tokens 321↑ 12↓');
      expect(await readFile(join(pty.project, 'notes.txt'), 'utf8')).toBe('hello tui\n');

      s.mark();
      s.write('wait');
      await s.waitFor('wait');
      s.write('\r');
      await s.waitFor('running…');
      s.mark();
      s.write('\u001b');
      await s.waitFor('Task cancelled.');
      await s.waitFor('describe a task');

      s.mark();
      s.write('\u001b[A');
      await s.waitFor('❯ wait');
      s.write('\u001b[A');
      await s.waitFor('write notes.txt hello tui');

      s.mark();
      s.write('\u0003');
      await s.waitFor('TUI closed');
      expect(await s.exitCode()).toBe(0);
      // NO_COLOR: no SGR colour sequences anywhere in what was drawn.
      expect(s.raw()).not.toMatch(/\u001b\[(3|4|9)[0-9](;[0-9]+)*m/);
    },
  );
});
