import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, fingerprintTree, GIT_TEST_ENV, gitIn, runCli, writeFiles } from '../support/fixture.js';

// What a tree's git configuration and shape can make clawcode run or write, through the built CLI: a filter
// under the empty name (`[filter ""]`, listed as `filter..clean`) in a downloaded tree's .git/config, the
// files a person's own configuration names through symlinked folders or as an interpreter's argument, folders
// git takes for a git directory by its own rules (a HEAD symlink, a commondir), installed packages, and a FIFO
// where git reads a .gitignore. A sentinel folder outside the root proves nothing ran.

let base: string;
let sentinel: string;
let env: NodeJS.ProcessEnv;
const touch = (tag: string): string => `touch ${join(sentinel, tag)}`;

beforeEach(() => {
  base = mkdtempSync('/var/tmp/clawcode-git-config-');
  sentinel = join(base, 'sentinel');
  mkdirSync(sentinel);
  env = cleanEnv({ CLAWCODE_HOME: join(base, 'home'), ...GIT_TEST_ENV });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** A plan creating or replacing whole files, saved for `clawcode apply`. */
function plan(patches: { file: string; find?: string; replace: string }[]): string {
  const file = join(base, `plan-${readdirSync(base).length}.json`);
  const full = patches.map((p) => ({ find: '', ...p, operation: 'replace', replace_all: null, occurrence: null }));
  writeFileSync(
    file,
    JSON.stringify({
      analysis: 'Edit.',
      files_to_edit: full.map((p) => ({ path: p.file, reason: 'x' })),
      patches: full,
      commands: [],
      agent_notes: [],
    }),
  );
  return file;
}

function repo(name: string, files: Record<string, string>): string {
  const root = join(base, name);
  writeFiles(root, files);
  gitIn(root, 'init', '-q');
  gitIn(root, 'add', '-A');
  gitIn(root, 'commit', '-qm', 'init');
  return root;
}

describe("a tree's git configuration runs nothing through clawcode's git", () => {
  it('a filter under the empty name in a downloaded .git/config: `context` runs none (fails on main)', async () => {
    const root = repo('downloaded', { 'src/a.txt': 'a\n', '.gitattributes': '* filter=\n' });
    execFileSync('sh', ['-c', `printf '[filter ""]\\n\\tclean = ${touch('empty-filter')}\\n' >> .git/config`], {
      cwd: root,
    });
    writeFileSync(join(root, 'src/a.txt'), 'changed\n'); // stat data differs: git cleans it again
    const context = await runCli(['context', 'edit a', '--dir', root], { env });
    expect(context.code, context.stderr).toBe(0);
    expect(readdirSync(sentinel)).toEqual([]);
  });
});

describe('paths a plan never writes', () => {
  it("files the person's configuration names through symlinked folders or as an interpreter's argument (fails on main)", async () => {
    const root = repo('named', {
      'scripts/hooks/pre-commit': '#!/bin/sh\nexit 0\n',
      'conf/team.gitconfig': '[user]\n\tname = team\n',
      'tools/strip.sh': '#!/bin/sh\ncat\n',
      'src/a.txt': 'a\n',
    });
    symlinkSync('scripts/hooks', join(root, '.githooks'));
    symlinkSync('conf', join(root, 'shared'));
    gitIn(root, 'config', 'core.hooksPath', '.githooks');
    gitIn(root, 'config', 'include.path', '../shared/team.gitconfig');
    gitIn(root, 'config', 'filter.strip.clean', 'sh tools/strip.sh');
    const before = fingerprintTree(root);
    for (const [file, find] of [
      ['scripts/hooks/pre-commit', 'exit 0\n'],
      ['scripts/hooks/pre-push', ''],
      ['conf/team.gitconfig', '[user]\n'],
      ['tools/strip.sh', 'cat\n'],
    ] as const) {
      const result = await runCli(
        ['apply', plan([{ file, find, replace: `${touch(file)}\n` }]), '--yes', '--dir', root],
        {
          env,
        },
      );
      expect(result.code, `${file}: ${result.stdout}${result.stderr}`).toBe(3);
      expect(result.stderr).toMatch(/git's configuration reads or runs/);
    }
    expect(fingerprintTree(root)).toEqual(before);
  });

  it('folders git takes for a git directory by its own rules, and installed packages (fails on main)', async () => {
    const root = join(base, 'shapes');
    writeFiles(root, {
      'src/a.js': 'a\n',
      'embed/objects/info/keep': '',
      'embed/refs/heads/keep': '',
      'wt/HEAD': 'ref: refs/heads/main\n',
      'node_modules/eslint/bin/eslint.js': 'console.log("eslint")\n',
    });
    symlinkSync('refs/heads/main', join(root, 'embed/HEAD'));
    chmodSync(join(root, 'node_modules/eslint/bin/eslint.js'), 0o755);
    const before = fingerprintTree(root);
    for (const [file, find] of [
      ['embed/config', ''],
      ['wt/commondir', ''],
      ['node_modules/eslint/bin/eslint.js', 'console.log("eslint")\n'],
    ] as const) {
      const result = await runCli(['apply', plan([{ file, find, replace: 'x\n' }]), '--yes', '--dir', root], { env });
      expect(result.code, `${file}: ${result.stdout}${result.stderr}`).toBe(3);
      expect(result.stderr).toMatch(/is refused/);
    }
    expect(fingerprintTree(root)).toEqual(before);
  });
});

describe("the person's own git configuration", () => {
  it('a file it includes inside the root, under any condition, is never written (fails on main)', async () => {
    const root = join(base, 'workspace');
    writeFiles(root, { 'api/a.js': 'a\n', '.gitconfig-work': '[user]\n\temail = me@work\n' });
    gitIn(join(root, 'api'), 'init', '-q');
    const global = join(base, 'global.gitconfig');
    writeFileSync(global, `[includeIf "gitdir:${root}/"]\n\tpath = ${root}/.gitconfig-work\n`);
    const before = fingerprintTree(root);
    const edit = {
      file: '.gitconfig-work',
      find: '[user]\n',
      replace: `[core]\n\tfsmonitor = ${touch('w')}\n[user]\n`,
    };
    const result = await runCli(['apply', plan([edit]), '--yes', '--dir', root], {
      env: { ...env, GIT_CONFIG_GLOBAL: global },
    });
    expect(result.code, result.stdout + result.stderr).toBe(3);
    expect(result.stderr).toMatch(/your git configuration includes \.gitconfig-work/);
    expect(fingerprintTree(root)).toEqual(before);
  });
});

describe('a FIFO where git reads a .gitignore', () => {
  it('does not hang `context` for good (fails on main)', async () => {
    const root = repo('fifo', { 'src/a.js': 'a\n', 'package.json': '{"name":"p"}\n' });
    mkdirSync(join(root, 'sub'));
    execFileSync('mkfifo', [join(root, 'sub/.gitignore')]);
    const result = await runCli(['context', 'edit a', '--dir', root], { env, timeoutMs: 75_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('src/a.js');
  }, 90_000);
});
