import { chmod, mkdir, mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { appendHistory, historyPath, loadHistory, MAX_HISTORY_ENTRIES } from '../../../cli/interactive/history-file.js';
import { getProjectHash } from '../../../utils/project-hash.js';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
  vi.stubEnv('CLAWCODE_HOME', home);
});

describe('history file', () => {
  it('stores entries per project under history/<projectHash>, oldest first, without repeats', async () => {
    const env = { CLAWCODE_HOME: home };
    await appendHistory('/p/one', 'add logging', env);
    await appendHistory('/p/one', 'add logging', env);
    await appendHistory('/p/one', ' fix\nthe bug ', env);
    await appendHistory('/p/two', 'other project', env);
    expect(historyPath('/p/one', env)).toBe(join(home, 'history', getProjectHash('/p/one')));
    expect(await loadHistory('/p/one', env)).toEqual(['add logging', 'fix the bug']);
    expect(await loadHistory('/p/two', env)).toEqual(['other project']);
    expect(await readFile(historyPath('/p/one', env), 'utf8')).toBe('add logging\nfix the bug\n');
  });

  it('is written 0600 in a home others can read: what a person typed may hold a secret', async () => {
    const env = { CLAWCODE_HOME: home };
    await chmod(home, 0o755);
    await mkdir(join(home, 'history'), { mode: 0o755 });
    await appendHistory('/p/one', 'set the token to ghp_0123456789abcdef', env);
    expect((await stat(historyPath('/p/one', env))).mode & 0o777).toBe(0o600);
  });

  it('keeps only the last entries', async () => {
    const env = { CLAWCODE_HOME: home };
    let h: string[] = [];
    for (let i = 0; i < MAX_HISTORY_ENTRIES + 3; i++) h = await appendHistory('/p', `task ${i}`, env);
    expect(h).toHaveLength(MAX_HISTORY_ENTRIES);
    expect(h[0]).toBe('task 3');
  });
});
