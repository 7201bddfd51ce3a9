import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PatchOp } from '../../../utils/plan.js';
import { resolveInsideRoot } from '../../../utils/journal/store.js';
import { controlReason, isSecretPath, normalizeRelPath, resolveProjectPath } from '../../../utils/policy/paths.js';
import { buildContext } from '../../../agent/context/build.js';
import { resolvePlanPaths } from '../../../utils/policy/plan-check.js';
import { scanProject } from '../../../agent/context/scan.js';
import { isSecretPath as secretsIsSecretPath } from '../../../utils/policy/paths.js';

const op = (file: string): PatchOp => ({ file, operation: 'replace', find: 'a', replace: 'b' });
/** The refusals of a plan's targets (`resolvePlanPaths`), in plan order. */
const issuesOf = async (root: string, ops: PatchOp[]) => (await resolvePlanPaths(root, ops)).issues;

describe('control paths by name', () => {
  it.each([
    '.git/config',
    '.git/hooks/pre-commit',
    'vendor/lib/.git/config',
    'sub/.git',
    '.GIT/config',
    '.Git/HEAD',
    '.git./config',
    '.git /config',
    'git~1/config',
    '.g\u200cit/config',
    '.hg/hgrc',
    '.svn/entries',
    '.bzr/x',
    '.jj/repo/x',
    '.clawcode/settings.json',
    'packages/a/.clawcode/settings.json',
    'node_modules/.bin/tsc',
    'a/node_modules/.bin/x',
    'node_modules/eslint/bin/eslint.js',
    'packages/web/node_modules/x/index.js',
    '.venv/bin/activate',
    'venv/bin/python',
    'py/.venv/lib/python3.11/site-packages/x.pth',
    'env/pyvenv.cfg',
    'HEAD',
    'fixtures/bare/HEAD',
    '.husky/pre-commit',
    'packages/web/.husky/_/husky.sh',
    '.pre-commit-config.yaml',
    '.lintstagedrc',
    '.lintstagedrc.json',
    'lint-staged.config.mjs',
    'lefthook.yml',
    '.lefthook-local.yaml',
  ])('%j is a control path', (p) => expect(controlReason(p)).toBeDefined());

  it.each([
    '.gitignore',
    '.github/workflows/ci.yml',
    'src/git.ts',
    'docs/.gitkeep',
    'node_modules.md',
    'src/node_modules',
    'venv.md',
    'src/venv.ts',
    '.gitmodules',
    'config/database.yml',
    'objects/user.ts',
    'refs/index.md',
    'src/header.ts',
    'docs/husky.md',
  ])('%j is not a control path', (p) => expect(controlReason(p)).toBeUndefined());
});

describe('control paths on disk: git directories under any name and what git configuration names', () => {
  let root: string;
  beforeAll(async () => {
    root = await realpath(await mkdtemp(path.join(tmpdir(), 'clawcode-gitcontrol-')));
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', root, ...args], {
        env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
      });
    git('init', '-q', `--separate-git-dir=${path.join(root, '.repo')}`);
    git('config', 'core.hooksPath', '.githooks');
    git('config', 'include.path', '../shared.gitconfig');
    await mkdir(path.join(root, 'fixtures/bare/objects'), { recursive: true });
    await mkdir(path.join(root, 'fixtures/bare/refs'), { recursive: true });
    await writeFile(path.join(root, 'fixtures/bare/HEAD'), 'ref: refs/heads/main\n');
    await mkdir(path.join(root, 'src'));
    await writeFile(path.join(root, 'src/a.js'), 'a\n');
  });
  afterAll(async () => rm(root, { recursive: true, force: true }));

  it.each([
    ['.repo/config', /shape of a git directory|git directory of the repository/],
    ['fixtures/bare/config', /fixtures\/bare\/, which has the shape of a git directory/],
    ['.githooks/pre-commit', /configuration reads or runs \.githooks/],
    ['shared.gitconfig', /configuration reads or runs shared\.gitconfig/],
  ])('%j is refused for a plan', async (p, why) => {
    const verdict = await resolveProjectPath(root, p);
    expect(verdict).toMatchObject({ ok: false, code: 'path_control' });
    expect(verdict.ok ? '' : verdict.message).toMatch(why);
  });

  it('leaves other files alone and never sends the controlled ones', async () => {
    expect(await resolveProjectPath(root, 'src/a.js')).toMatchObject({ ok: true });
    await writeFile(path.join(root, 'shared.gitconfig'), '[core]\n');
    await writeFile(path.join(root, 'fixtures/bare/config'), '[core]\n');
    const scan = await scanProject(root);
    expect(scan.fileList).toContain('src/a.js');
    expect(scan.fileList.filter((f) => /shared|fixtures|\.repo/.test(f))).toEqual([]);
  });
});

describe('secret paths: one rule for context and plans', () => {
  it('the scanner and the plan checks use the same rule', () => {
    for (const p of [
      '.aws/config',
      '.docker/config.json',
      '.gnupg/pubring.kbx',
      '.env.example',
      '.envrc',
      'x.tfstate',
      'src/a.ts',
    ]) {
      expect(secretsIsSecretPath(p), p).toBe(isSecretPath(p));
    }
  });

  it.each([
    '.aws/config',
    '.docker/config.json',
    '.gnupg/pubring.kbx',
    '.envrc',
    'infra/prod.tfstate',
    '.kube/config',
    '_netrc',
    'id_rsa_old',
  ])('%j is a secret', (p) => expect(isSecretPath(p)).toBe(true));
  it.each(['.env.example', '.env.sample', '.env.template', 'app/.env.local.example', '.docker/Dockerfile'])(
    '%j is not a secret',
    (p) => expect(isSecretPath(p)).toBe(false),
  );
});

describe('long and odd paths', () => {
  it('refuses a path of 3000 segments with one short line', () => {
    const long = Array.from({ length: 3000 }, () => 'a').join('/') + '/x.ts';
    const r = normalizeRelPath(long);
    expect(r).toMatchObject({ ok: false, code: 'path_too_long' });
    if (!r.ok) expect(r.message.length).toBeLessThan(160);
    if (!r.ok) expect(r.message).not.toContain('\n');
  });

  it('refuses a file name over 255 bytes', () => {
    expect(normalizeRelPath(`src/${'n'.repeat(300)}.ts`)).toMatchObject({ ok: false, code: 'path_too_long' });
  });
});

// One table of paths, run through every stage that decides about paths: the scanner and context selection
// (what may be sent), the plan checks (what a plan may patch) and the journal's root resolver (what is written and
// undone). Each path must get the same answer from all three.
describe('one answer per path across scanner, plan checks and journal', () => {
  type Expect = 'ok' | 'secret' | 'control' | 'outside' | 'binary' | 'not_file';
  const table: [string, Expect][] = [
    ['src/a.ts', 'ok'],
    ['.env.example', 'ok'],
    ['.env.sample', 'ok'],
    ['.env.template', 'ok'],
    ['.gitignore', 'ok'],
    ['.env', 'secret'],
    ['config/.env.local', 'secret'],
    ['.envrc', 'secret'],
    ['infra/prod.tfstate', 'secret'],
    ['.aws/config', 'secret'],
    ['.docker/config.json', 'secret'],
    ['.gnupg/pubring.kbx', 'secret'],
    ['.ssh/config', 'secret'],
    ['.npmrc', 'secret'],
    ['notes.txt', 'secret'], // symlink to .env
    ['docs/runbook.md', 'secret'], // symlink to ../.env
    ['.git/config', 'control'],
    ['.GIT/config', 'control'],
    ['vendor/sub/.git/config', 'control'],
    ['vendor/other/.git', 'control'],
    ['.hg/hgrc', 'control'],
    ['.clawcode/settings.json', 'control'],
    ['node_modules/.bin/x', 'control'],
    ['.venv/bin/activate', 'control'],
    ['myenv/bin/activate', 'control'], // a folder holding pyvenv.cfg
    ['hooks/pre-commit', 'control'], // hooks -> .git/hooks
    ['linked.txt', 'outside'], // symlink to a file outside the root
    ['assets/logo.png', 'binary'],
    ['pipe', 'not_file'], // a FIFO
  ];
  let base: string;
  let root: string;
  let scanned: { listed: Set<string>; skipped: Map<string, string>; sent: Set<string> };

  beforeAll(async () => {
    base = await mkdtemp(path.join(tmpdir(), 'clawcode-policy-'));
    vi.stubEnv('CLAWCODE_HOME', path.join(base, 'home'));
    root = path.join(base, 'project');
    await mkdir(path.join(base, 'outside'), { recursive: true });
    await writeFile(path.join(base, 'outside', 'secret.txt'), 'outside\n');
    const symlinks: Record<string, string> = {
      'notes.txt': '.env',
      'docs/runbook.md': '../.env',
      hooks: '.git/hooks',
      'linked.txt': path.join(base, 'outside', 'secret.txt'),
    };
    for (const [rel] of table) {
      const abs = path.join(root, rel);
      if (rel === 'hooks/pre-commit') continue;
      await mkdir(path.dirname(abs), { recursive: true });
      if (rel in symlinks || rel === 'pipe') continue;
      await writeFile(abs, 'text\n');
    }
    await mkdir(path.join(root, '.git/hooks'), { recursive: true });
    await writeFile(path.join(root, '.git/hooks/pre-commit'), '#!/bin/sh\n');
    await writeFile(path.join(root, 'myenv/pyvenv.cfg'), 'home = /usr/bin\n');
    for (const [rel, target] of Object.entries(symlinks)) await symlink(target, path.join(root, rel));
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    const scan = await scanProject(root, { readContent: true });
    const context = await buildContext({
      rootDir: root,
      task: 'text',
      budgetChars: 200_000,
      homeDir: path.join(base, 'home'),
    });
    scanned = {
      listed: new Set(scan.fileList),
      skipped: new Map(scan.skipped.map((s) => [s.path, s.reason])),
      sent: new Set(context.files.map((f) => f.path)),
    };
  });
  afterAll(async () => rm(base, { recursive: true, force: true }));

  it.each(table)('%j: %s in every stage', async (rel, expected) => {
    const realRoot = await realpath(root);
    const planIssues = await issuesOf(root, [op(rel)]);
    const journal = await resolveInsideRoot(root, rel).then(
      () => 'ok',
      (error: Error) => error.message,
    );
    const policy = await resolveProjectPath(realRoot, rel);
    if (expected === 'ok') {
      expect(scanned.listed.has(rel), 'scanner lists it').toBe(true);
      expect(scanned.sent.has(rel), 'context sends it').toBe(true);
      expect(planIssues, 'plan check accepts it').toEqual([]);
      expect(journal, 'journal resolves it').toBe('ok');
      expect(policy.ok).toBe(true);
      return;
    }
    expect(scanned.listed.has(rel), 'scanner withholds it').toBe(false);
    expect(scanned.sent.has(rel), 'context never sends it').toBe(false);
    const code = {
      secret: 'path_secret',
      control: 'path_control',
      outside: 'path_symlink_escape',
      binary: 'path_binary',
      not_file: 'path_not_file',
    }[expected];
    expect(
      planIssues.map((i) => i.code),
      'plan check refuses it',
    ).toEqual([code]);
    expect(journal, 'journal refuses it').toMatch(/^Refusing to write/);
    expect(policy).toMatchObject({ ok: false, code });
    // Where the scanner saw the file at all, it says why it held it back (folders like .git are never walked).
    const reason = scanned.skipped.get(rel);
    if (reason !== undefined && expected !== 'outside' && expected !== 'not_file') expect(reason).toBe(expected);
  });
});
