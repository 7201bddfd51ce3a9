import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitFiles, configuredEditor, dirtyFiles } from '../../../utils/git/ops.js';
import { driverGuard, findRepository, runInRepo } from '../../../utils/git/repo.js';
import { gitExecutable, gitEnv } from '../../../utils/git/run.js';
import { GIT_TEST_ENV, gitIn } from '../../support/fixture.js';

// clawcode's own git never runs a program the tree can influence: every test plants one that would touch a
// sentinel file outside the project, and checks the sentinel folder stays empty.

let base: string;
let sentinel: string;
const env = { ...process.env, ...GIT_TEST_ENV };

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'clawcode-gitrepo-')));
  sentinel = join(base, 'sentinel');
  mkdirSync(sentinel);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const ran = (): string[] => readdirSync(sentinel);
const touch = (name: string): string => `touch ${join(sentinel, name)}`;

function files(dir: string, map: Record<string, string>): void {
  for (const [rel, text] of Object.entries(map)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
}

/** HEAD, objects/, refs/ and a config whose fsmonitor touches the sentinel: a folder git takes for a repository. */
function plantGitDir(dir: string, tag: string): void {
  files(dir, {
    HEAD: 'ref: refs/heads/main\n',
    config: `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = ${touch(tag)}\n`,
    'objects/info/keep': '',
    'refs/heads/keep': '',
  });
}

function initRepo(dir: string): void {
  mkdirSync(dir, { recursive: true });
  gitIn(dir, 'init', '-q', '-b', 'main');
  files(dir, { 'src/a.js': 'a\n' });
  gitIn(dir, 'add', '.');
  gitIn(dir, 'commit', '-qm', 'init');
}

describe('finding the repository', () => {
  it('never takes a folder with HEAD, objects/ and refs/ for one: not at a root without .git, not in a monorepo folder', async () => {
    const loose = join(base, 'loose');
    files(loose, { 'src/a.js': 'a\n' });
    plantGitDir(loose, 'loose');
    expect(await findRepository(loose, { env })).toBeNull();
    expect(await dirtyFiles(loose, ['src/a.js'], { env })).toEqual([]);

    const mono = join(base, 'mono');
    initRepo(mono);
    plantGitDir(join(mono, 'pkg'), 'pkg');
    expect(await findRepository(join(mono, 'pkg'), { env })).toBeNull();
    expect(ran()).toEqual([]);
    // The person's own git obeys the same folder: that is what the path policy and the sandbox keep out.
    gitIn(join(mono, 'pkg'), 'ls-files');
    expect(ran()).toEqual(['pkg']);
  });

  it('names the repository found first in every later call, so a git directory planted afterwards is never obeyed', async () => {
    const mono = join(base, 'mono');
    initRepo(mono);
    const pkg = join(mono, 'pkg');
    files(pkg, { 'a.js': 'a\n' });
    const repo = await findRepository(pkg, { env });
    expect(repo).toMatchObject({ workTree: mono, gitDir: join(mono, '.git'), prefix: 'pkg/' });
    plantGitDir(pkg, 'late');
    const listing = await runInRepo(repo!, ['ls-files', '-z', '-m', '-o', '--exclude-standard'], { env });
    expect(listing.ok).toBe(true);
    expect(await dirtyFiles(pkg, ['a.js'], { env })).toEqual([{ path: 'a.js', status: '??' }]);
    expect(await findRepository(pkg, { env })).toBe(repo);
    expect(ran()).toEqual([]);
  });

  it('ignores GIT_DIR and friends from the environment', async () => {
    const project = join(base, 'project');
    initRepo(project);
    const elsewhere = join(base, 'elsewhere');
    plantGitDir(elsewhere, 'env');
    const repo = await findRepository(project, { env: { ...env, GIT_DIR: elsewhere, GIT_WORK_TREE: elsewhere } });
    expect(repo?.gitDir).toBe(join(project, '.git'));
    expect(gitEnv({ GIT_DIR: '/x', GIT_EXTERNAL_DIFF: 'x', GIT_AUTHOR_NAME: 'a', OPENAI_API_KEY: 'k' })).toMatchObject({
      GIT_AUTHOR_NAME: 'a',
    });
    expect(gitEnv({ GIT_DIR: '/x', GIT_EXTERNAL_DIFF: 'x', OPENAI_API_KEY: 'k' })).not.toHaveProperty('GIT_DIR');
    expect(ran()).toEqual([]);
  });
});

describe("the programs a repository's configuration names", () => {
  it('are off for every call: fsmonitor, filters from an include in the tree, hooks; a required filter fails the commit', async () => {
    const project = join(base, 'project');
    initRepo(project);
    gitIn(project, 'config', 'core.fsmonitor', touch('fsmonitor'));
    gitIn(project, 'config', 'include.path', '../tools/git.inc');
    files(project, {
      'tools/git.inc': `[filter "x"]\n\tclean = "sh -c '${touch('filter')} && cat'"\n\tsmudge = cat\n[diff "x"]\n\ttextconv = ${touch('textconv')}\n`,
      '.gitattributes': '*.js filter=x diff=x\n',
      '.git/hooks/pre-commit': `#!/bin/sh\n${touch('hook')}\n`,
      'src/a.js': 'changed\n',
    });
    chmodSync(join(project, '.git/hooks/pre-commit'), 0o755);
    const repo = await findRepository(project, { env });
    expect(repo?.controlPaths).toContain(join(project, 'tools/git.inc'));
    expect(await dirtyFiles(project, ['src/a.js'], { env })).toEqual([{ path: 'src/a.js', status: ' M' }]);
    await commitFiles(project, ['src/a.js', '.gitattributes'], 'edit', { env });
    expect(gitIn(project, 'show', 'HEAD:src/a.js')).toBe('changed\n');
    expect(ran()).toEqual([]);

    gitIn(project, 'config', 'filter.x.required', 'true');
    writeFileSync(join(project, 'src/a.js'), 'again\n');
    await expect(commitFiles(project, ['src/a.js'], 'edit', { env })).rejects.toThrow(/clean filter 'x' failed/);
    expect(ran()).toEqual([]);
  });

  it('runs the hooks only when the person asks for them', async () => {
    const project = join(base, 'project');
    initRepo(project);
    files(project, { '.git/hooks/pre-commit': `#!/bin/sh\n${touch('hook')}\n`, 'src/a.js': 'b\n' });
    chmodSync(join(project, '.git/hooks/pre-commit'), 0o755);
    await commitFiles(project, ['src/a.js'], 'no hooks', { env });
    expect(ran()).toEqual([]);
    writeFileSync(join(project, 'src/a.js'), 'c\n');
    await commitFiles(project, ['src/a.js'], 'hooks', { env, hooks: true });
    expect(ran()).toEqual(['hook']);
  });

  it('makes the hooks folder and include targets inside the tree control paths, also an include not written yet', async () => {
    const project = join(base, 'project');
    initRepo(project);
    gitIn(project, 'config', 'core.hooksPath', '.githooks');
    gitIn(project, 'config', 'include.path', '../.gitconfig');
    gitIn(project, 'config', 'filter.y.clean', './tools/clean.sh');
    const repo = await findRepository(project, { env });
    expect(repo?.controlPaths.sort()).toEqual(
      [join(project, '.githooks'), join(project, '.gitconfig'), join(project, 'tools/clean.sh')].sort(),
    );
  });

  it("reads core.editor from the person's global configuration only, never the project's (fails on main)", async () => {
    const project = join(base, 'project');
    initRepo(project);
    // A downloaded tree's own .git/config names an editor: never the editor of the review's `e` key.
    gitIn(project, 'config', 'core.editor', touch('editor'));
    expect(await configuredEditor({ env })).toBeUndefined();
    const global = join(base, 'global.gitconfig');
    writeFileSync(global, '[core]\n\teditor = my-editor --wait\n');
    expect(await configuredEditor({ env: { ...env, GIT_CONFIG_GLOBAL: global } })).toBe('my-editor --wait');
  });
});

describe('driverGuard', () => {
  it('switches off every driver by name, keeps hooks apart, and gives up on a name -c cannot carry', () => {
    expect(driverGuard(['filter.lfs.clean', 'filter.lfs.required', 'diff.pdf.textconv', 'hook.lint.command'])).toEqual({
      always: [
        '-c',
        'filter.lfs.clean=',
        '-c',
        'filter.lfs.smudge=',
        '-c',
        'filter.lfs.process=',
        '-c',
        'diff.pdf.textconv=',
        '-c',
        'diff.pdf.command=',
      ],
      commit: ['-c', 'hook.lint.enabled=false'],
    });
    expect(driverGuard(['filter.a=b.clean'])).toBeNull();
  });

  it('forbids every protocol the configuration allows by name (protocol.<name>.allow wins over protocol.allow)', () => {
    expect(driverGuard(['protocol.ext.allow', 'protocol.allow', 'remote.origin.url'])).toEqual({
      always: ['-c', 'protocol.ext.allow=never'],
      commit: [],
    });
  });

  it('switches off a program-naming key under any subsection, the empty one of [filter ""] too (fails on main)', () => {
    const guard = driverGuard([
      'filter..clean',
      'diff..textconv',
      'credential.https://a.example.helper',
      'trailer.sign.command',
      'gpg.ssh.program',
      'uploadpack.packobjectshook',
      'core.fsmonitor',
      'user.name',
    ]);
    expect(guard?.always).toEqual(
      [
        'filter..clean=',
        'filter..smudge=',
        'filter..process=',
        'diff..textconv=',
        'diff..command=',
        'credential.https://a.example.helper=',
        'trailer.sign.command=',
        'uploadpack.packobjectshook=',
      ].flatMap((kv) => ['-c', kv]),
    );
    expect(guard?.commit).toEqual(['-c', 'gpg.ssh.program=']);
  });
});

describe('gitExecutable', () => {
  it('skips relative PATH folders and folders inside the project', () => {
    const project = join(base, 'project');
    files(project, { 'bin/git': '#!/bin/sh\n' });
    chmodSync(join(project, 'bin/git'), 0o755);
    const real = gitExecutable(null, { env });
    const found = gitExecutable(project, { env: { PATH: `bin:${join(project, 'bin')}:${process.env.PATH}` } });
    expect(found).not.toBeNull();
    expect(found).not.toContain(project);
    expect(existsSync(real!)).toBe(true);
  });
});
