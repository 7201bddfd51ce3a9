import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git, removeTempDirs, tempDir } from '../support/git.js';
import { mineCommits } from '../../bench/mine-commits.js';

afterEach(removeTempDirs);

/** Commit `files` (path → text) with `message`; returns the commit id. */
function commit(dir: string, files: Record<string, string>, message: string): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', message);
  return git(dir, 'rev-parse', 'HEAD');
}

function repo(): string {
  const dir = tempDir('clawcode-mine-');
  git(dir, 'init', '-q');
  commit(
    dir,
    { 'src/app.py': 'a = 1\n', 'src/util.py': 'u = 1\n', 'tests/test_app.py': 't = 1\n' },
    'initial layout of the project',
  );
  return dir;
}

describe('mineCommits', () => {
  it('keeps a commit that modifies source files, with its subject as the task and its files as gold', () => {
    const dir = repo();
    const parent = git(dir, 'rev-parse', 'HEAD');
    const sha = commit(
      dir,
      { 'src/app.py': 'a = 2\n', 'tests/test_app.py': 't = 2\n' },
      'Raise the default value of a (#123)\n\nBody line.\n\nCo-authored-by: x <x@x>',
    );
    const [task, ...rest] = mineCommits(join(dir, '.git'), 'o+n', 40);
    expect(rest).toEqual([]);
    expect(task).toEqual({
      repo: 'o+n',
      sha,
      parent,
      task: 'Raise the default value of a\n\nBody line.',
      subject: 'Raise the default value of a',
      gold: ['src/app.py'],
      allChanged: ['src/app.py', 'tests/test_app.py'],
      set: 'commits',
    });
  });

  it('leaves out tests-only, added-file, chore, short-subject and skipped commits', () => {
    const dir = repo();
    commit(dir, { 'tests/test_app.py': 't = 3\n' }, 'Only the tests change in this commit');
    commit(dir, { 'src/new.py': 'n = 1\n' }, 'Add a new module for the new feature');
    commit(dir, { 'src/app.py': 'a = 4\n' }, 'chore: tidy up the application module');
    commit(dir, { 'src/app.py': 'a = 5\n' }, 'short');
    const skipped = commit(dir, { 'src/util.py': 'u = 2\n' }, 'Change the utility value to two');
    const kept = commit(dir, { 'src/util.py': 'u = 3\n' }, 'Change the utility value to three');
    expect(mineCommits(join(dir, '.git'), 'o+n', 40, new Set([skipped])).map((t) => t.sha)).toEqual([kept]);
  });

  it('spreads the kept commits evenly over the history, newest first', () => {
    const dir = repo();
    const shas = Array.from({ length: 6 }, (_, i) =>
      commit(dir, { 'src/app.py': `a = ${i + 10}\n` }, `Set the application value to ${i + 10}`),
    );
    expect(mineCommits(join(dir, '.git'), 'o+n', 3).map((t) => t.sha)).toEqual([shas[4], shas[2], shas[0]]);
  });
});
