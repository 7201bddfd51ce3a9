import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git, removeTempDirs, tempDir } from '../support/git.js';
import { materialise, type BenchTask } from '../../bench/context-data.js';

afterEach(removeTempDirs);

// `git archive` writes whole 10,240-byte tar records. Its stream holds a 1,024-byte global header,
// then a.txt (a 512-byte header and its data in 512-byte blocks), then the 512-byte header of folder
// `b/`: with a.txt at 49,152 bytes that is exactly five records, so when the archive dies at
// b/data.bin the stream ends between two entries and tar, piped, extracts it and exits 0.
const FIRST = `first\n${'x'.repeat(49_152 - 7)}\n`;

/** A repository with three files, committed; returns its folder and the commit. */
function repoWithThreeFiles(): { dir: string; sha: string } {
  const dir = tempDir('clawcode-bench-');
  git(dir, 'init', '-q');
  writeFileSync(join(dir, 'a.txt'), FIRST);
  mkdirSync(join(dir, 'b'));
  writeFileSync(join(dir, 'b', 'data.bin'), 'a large data file\n');
  writeFileSync(join(dir, 'z.txt'), 'last\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'three files');
  return { dir, sha: git(dir, 'rev-parse', 'HEAD') };
}

function taskAt(sha: string): BenchTask {
  return { repo: 'owner+name', sha, parent: sha, task: 't', subject: 't', gold: [], set: 'commits' };
}

describe('materialise', () => {
  it('writes the whole tree at the parent, byte for byte', () => {
    const { dir, sha } = repoWithThreeFiles();
    const cache = tempDir('clawcode-bench-cache-');
    const out = materialise(cache, join(dir, '.git'), taskAt(sha));
    expect(readFileSync(join(out, 'a.txt'), 'utf8')).toBe(FIRST);
    expect(readFileSync(join(out, 'b', 'data.bin'), 'utf8')).toBe('a large data file\n');
    expect(readFileSync(join(out, 'z.txt'), 'utf8')).toBe('last\n');
  });

  it('still writes the files after a blob the clone lacks (a snapshot mirror without its largest blobs)', () => {
    const { dir, sha } = repoWithThreeFiles();
    // Remove the middle file's blob: `git archive` stops there, after writing `a.txt` to its output.
    const oid = git(dir, 'rev-parse', `${sha}:b/data.bin`);
    rmSync(join(dir, '.git', 'objects', oid.slice(0, 2), oid.slice(2)));
    const cache = tempDir('clawcode-bench-cache-');
    const out = materialise(cache, join(dir, '.git'), taskAt(sha));
    expect(readFileSync(join(out, 'a.txt'), 'utf8')).toBe(FIRST);
    expect(readFileSync(join(out, 'z.txt'), 'utf8')).toBe('last\n');
    expect(existsSync(join(out, 'b', 'data.bin'))).toBe(false);
  });
});
