import { mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { commitFiles, dirtyFiles, getGitInfo, isGitRepo } from '../../../utils/git/ops.js';
import { GIT_TEST_ENV, gitIn } from '../../support/fixture.js';

let repo: string;
let plain: string;
const gitEnv = { ...process.env, ...GIT_TEST_ENV };
const git = (...args: string[]): string => gitIn(repo, ...args);

beforeEach(async () => {
  repo = await mkdtemp(join(tmpdir(), 'cc-git-'));
  plain = await mkdtemp(join(tmpdir(), 'cc-nogit-'));
  vi.stubEnv('CLAWCODE_HOME', plain);
  git('init', '-q', '-b', 'main');
  await mkdir(join(repo, 'app/src'), { recursive: true });
  await writeFile(join(repo, 'app/src/a.ts'), 'a0');
  await writeFile(join(repo, 'app/src/b.ts'), 'b0');
  await writeFile(join(repo, 'README.md'), 'readme');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
});

afterEach(async () => {
  await Promise.all([repo, plain].map((d) => rm(d, { recursive: true, force: true })));
});

describe('git helpers', () => {
  it('report the branch, the top folder, and a detached HEAD', async () => {
    expect(await getGitInfo(join(repo, 'app'), { env: gitEnv })).toMatchObject({ isRepo: true, branch: 'main' });
    git('checkout', '-q', '--detach');
    expect((await getGitInfo(repo, { env: gitEnv })).branch).toMatch(/^\(detached [0-9a-f]{7,}\)$/);
  });

  it('say "not a repo" for a plain folder and when git is not installed', async () => {
    expect(await getGitInfo(plain)).toEqual({ isRepo: false, branch: null, topLevel: null });
    expect(await isGitRepo(repo, { gitPath: join(plain, 'no-such-git') })).toBe(false);
    expect(await dirtyFiles(repo, ['app/src/a.ts'], { gitPath: join(plain, 'no-such-git') })).toEqual([]);
    await expect(commitFiles(repo, ['README.md'], 'x', { gitPath: join(plain, 'no-such-git') })).rejects.toMatchObject({
      code: 'git_missing',
    });
    await expect(commitFiles(plain, ['x'], 'x')).rejects.toMatchObject({ code: 'git_not_a_repo' });
  });

  it('list only the given files that have uncommitted changes, relative to a project in a subfolder', async () => {
    const project = join(repo, 'app');
    await writeFile(join(project, 'src/a.ts'), 'a-edited');
    await writeFile(join(project, 'src/new.ts'), 'untracked');
    await writeFile(join(repo, 'README.md'), 'dirty but not asked about');
    await writeFile(join(project, 'src/b.ts'), 'b-staged');
    git('add', 'app/src/b.ts');
    const dirty = await dirtyFiles(project, ['src/a.ts', 'src/b.ts', 'src/new.ts', 'src/clean.ts'], { env: gitEnv });
    expect(dirty.sort((x, y) => x.path.localeCompare(y.path))).toEqual([
      { path: 'src/a.ts', status: ' M' },
      { path: 'src/b.ts', status: 'M ' },
      { path: 'src/new.ts', status: '??' },
    ]);
    expect(await dirtyFiles(project, [], { env: gitEnv })).toEqual([]);
  });

  it('commit exactly the given files and leave other staged changes staged', async () => {
    await writeFile(join(repo, 'app/src/a.ts'), 'a1');
    await writeFile(join(repo, 'app/src/created.ts'), 'new file');
    await unlink(join(repo, 'app/src/b.ts'));
    await writeFile(join(repo, 'README.md'), 'staged by the person');
    git('add', 'README.md');

    const { commit } = await commitFiles(join(repo, 'app'), ['src/a.ts', 'src/created.ts', 'src/b.ts'], 'add logging', {
      env: gitEnv,
    });
    expect(commit).toMatch(/^[0-9a-f]{40}$/);
    expect(git('log', '-1', '--format=%s').trim()).toBe('add logging');
    expect(git('show', '--name-status', '--format=', 'HEAD').trim().split('\n').sort()).toEqual([
      'A\tapp/src/created.ts',
      'D\tapp/src/b.ts',
      'M\tapp/src/a.ts',
    ]);
    expect(git('diff', '--cached', '--name-only').trim()).toBe('README.md');
    expect(git('show', 'HEAD:app/src/a.ts')).toBe('a1');
  });

  it('treat file names with glob characters literally', async () => {
    await writeFile(join(repo, 'app/src/[x].ts'), 'weird');
    await writeFile(join(repo, 'app/src/a.ts'), 'a1');
    await commitFiles(join(repo, 'app'), ['src/[x].ts'], 'literal', { env: gitEnv });
    expect(git('show', '--name-only', '--format=', 'HEAD').trim()).toBe('app/src/[x].ts');
  });
});

describe('dirtyFiles with thousands of paths', () => {
  it('passes git a bounded number of pathspecs (git matches each entry against each one) and finds the same files', async () => {
    const paths = Array.from({ length: 3000 }, (_, i) => `app/gen/f${i}.ts`);
    await mkdir(join(repo, 'app/gen'), { recursive: true });
    for (const p of paths.slice(0, 20)) await writeFile(join(repo, p), 'new');
    await writeFile(join(repo, 'app/src/a.ts'), 'a1');
    // A git that records how many arguments each call gets, then runs the real one.
    const log = join(plain, 'argc.log');
    const fake = join(plain, 'git');
    await writeFile(fake, `#!/bin/sh\necho $# >> ${log}\nexec git "$@"\n`, { mode: 0o755 });
    const dirty = await dirtyFiles(join(repo, 'app'), ['src/a.ts', 'src/b.ts', ...paths.map((p) => p.slice(4))], {
      gitPath: fake,
      env: gitEnv,
    });
    expect(dirty.map((d) => d.path).sort()).toEqual(['src/a.ts', ...paths.slice(0, 20).map((p) => p.slice(4))].sort());
    const argc = (await readFile(log, 'utf8')).trim().split('\n').map(Number);
    expect(Math.max(...argc)).toBeLessThan(100);
  });
});
