import { spawnSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_PATH } from '../support/fixture.js';
import { spawnPty, useCliInPty } from '../support/pty.js';

// The project picker of the built CLI, started outside any project as a person does (`clawcode` in a folder
// that is not a repository) with a recent project elsewhere: the current folder comes first, dates are relative,
// and without a terminal the run fails in one line instead of writing the list into a pipe.

const pty = useCliInPty({
  prefix: 'clawcode-pty-picker-',
  files: { 'package.json': '{ "name": "elsewhere" }\n' },
  rows: 24,
});

/** A folder that is not a project, and a recent-projects list naming the test's project, opened 3 hours ago. */
async function outsideWithRecent(): Promise<string> {
  const outside = await mkdtemp(join(tmpdir(), 'clawcode-demo-'));
  await writeFile(join(outside, 'notes.txt'), 'not a project\n');
  const lastUsed = new Date(Date.now() - 3 * 3_600_000).toISOString();
  await writeFile(
    join(pty.env.CLAWCODE_HOME!, 'recent-projects.json'),
    JSON.stringify({ recent: [{ path: pty.project, lastUsed }] }),
  );
  return outside;
}

describe('the project picker of the built CLI', () => {
  it('offers the current folder first, so Enter opens it; recent projects say when they were opened', async () => {
    const outside = await outsideWithRecent();
    const s = spawnPty(process.execPath, [CLI_PATH, '--provider', 'openai'], {
      cwd: outside,
      env: pty.env,
      cols: 80,
      rows: 24,
    });
    try {
      await s.waitFor('Which project?');
      await s.waitFor('opened 3 hours ago');
      const screen = (await s.screen()).join('\n');
      expect(screen).toContain('❯ . (current folder)');
      expect(screen).toContain(`${pty.project} (opened 3 hours ago)`);
      expect(screen).not.toMatch(/\d{4}-\d\d-\d\dT/);
      s.write('\r');
      await s.waitFor('describe a task');
      expect((await s.screen()).join('\n')).toContain(`│ ${basename(outside)}`);
    } finally {
      s.kill();
    }
  });

  it('without a terminal, --ui fails with one line and exit 2, writing no list', async () => {
    const outside = await outsideWithRecent();
    const run = spawnSync(process.execPath, [CLI_PATH, '--ui', '--provider', 'openai'], {
      cwd: outside,
      env: pty.env,
      input: '',
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'clawcode: The interactive UI needs a terminal; pass a task instead: clawcode "describe the change"\n',
    );
  });
});
