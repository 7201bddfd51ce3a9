import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { spawnPty, type PtySession } from '../support/pty.js';

const repoRoot = resolve(import.meta.dirname, '../..');
const driver = join(repoRoot, 'tests/support/tui-driver.ts');

let home: string;
let project: string;
const sessions: PtySession[] = [];

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
  vi.stubEnv('CLAWCODE_HOME', home);
  project = await mkdtemp(join(tmpdir(), 'clawcode-pty-tui-'));
});
afterEach(() => sessions.splice(0).forEach((s) => s.kill()));

describe('the Ink TUI in a 60-column terminal', () => {
  it(
    'runs a task from the input, shows the feed and diff, cancels with Esc, recalls history, quits on Ctrl-C',
    { timeout: 90_000 },
    async () => {
      const s = spawnPty(process.execPath, ['--import', 'tsx', driver, project], {
        cwd: repoRoot,
        cols: 60,
        rows: 24,
        // CI=true as in a CI runner or a dev container: the TUI must still draw live (ui/load-ui.ts).
        env: { ...process.env, CLAWCODE_HOME: home, NO_COLOR: '1', CI: 'true' },
      });
      sessions.push(s);
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
      expect(await readFile(join(project, 'notes.txt'), 'utf8')).toBe('hello tui\n');

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
