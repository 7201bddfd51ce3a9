import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keepUnusedReplies, MAX_KEPT_REPLIES } from '../../agent/kept-output.js';

describe('keepUnusedReplies', () => {
  it('keeps the newest replies only: a server answering every task with junk no longer fills the home', async () => {
    const home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
    let last: string[] = [];
    for (let run = 0; run < 15; run++)
      last = await keepUnusedReplies([`first ${run}`, `repair ${run}`], home, new Date(Date.UTC(2026, 0, 1, 0, run)));
    const names = (await readdir(join(home, 'replies'))).sort();
    expect(names).toHaveLength(MAX_KEPT_REPLIES);
    expect(names.at(-1)).toBe('2026-01-01T00-14-00-000Z-2.txt');
    expect(names[0]).toBe('2026-01-01T00-05-00-000Z-1.txt');
    expect(await readFile(last[1]!, 'utf8')).toBe('repair 14');
  });
});
