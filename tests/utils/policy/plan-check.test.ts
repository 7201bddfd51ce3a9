import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PatchOp } from '../../../utils/plan.js';
import { normalizePlanPath, resolvePlanPaths, withCanonicalPaths } from '../../../utils/policy/plan-check.js';
import { isSecretPath } from '../../../utils/policy/paths.js';

const op = (file: string): PatchOp => ({ file, operation: 'replace', find: 'a', replace: 'b' });
/** The refusals of a plan's targets (`resolvePlanPaths`), in plan order. */
const issuesOf = async (root: string, ops: PatchOp[]) => (await resolvePlanPaths(root, ops)).issues;

describe('normalizePlanPath', () => {
  it.each([
    ['src/a.ts', 'src/a.ts'],
    ['./src/a.ts', 'src/a.ts'],
    ['src//a.ts', 'src/a.ts'],
    ['src\\lib\\a.ts', 'src/lib/a.ts'],
    ['src/../lib/a.ts', 'lib/a.ts'],
    ['src/./a.ts', 'src/a.ts'],
  ])('turns %j into %j', (input, expected) => {
    expect(normalizePlanPath(input)).toEqual({ ok: true, path: expected });
  });

  it.each([
    ['/etc/passwd', 'path_absolute'],
    ['C:\\Windows\\win.ini', 'path_absolute'],
    ['c:/x.ts', 'path_absolute'],
    ['\\\\server\\share\\x', 'path_absolute'],
    ['~/.bashrc', 'path_absolute'],
    ['../outside.ts', 'path_escape'],
    ['src/../../outside.ts', 'path_escape'],
    ['', 'path_invalid'],
    ['   ', 'path_invalid'],
    ['src/', 'path_invalid'],
    ['.', 'path_invalid'],
    ['a\0b', 'path_invalid'],
  ])('refuses %j as %s', (input, code) => {
    const result = normalizePlanPath(input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.code).toBe(code);
  });
});

describe('isSecretPath', () => {
  it.each([
    '.env',
    '.env.local',
    'config/.env.production',
    'certs/server.pem',
    'tls.key',
    'id_rsa',
    'id_rsa.pub',
    'id_ed25519',
    '.aws/credentials',
    'home/.ssh/config',
    '.npmrc',
    '.netrc',
  ])('treats %s as secret', (p) => expect(isSecretPath(p)).toBe(true));
  it.each(['src/env.ts', 'environment.md', 'keyboard.ts', 'src/keys.ts', 'docs/credentials-guide.md', 'monkey.js'])(
    'does not treat %s as secret',
    (p) => expect(isSecretPath(p)).toBe(false),
  );
});

describe('resolvePlanPaths: refusals', () => {
  let base: string;
  let root: string;
  let outside: string;

  beforeEach(async () => {
    base = await mkdtemp(path.join(tmpdir(), 'clawcode-plancheck-'));
    vi.stubEnv('CLAWCODE_HOME', path.join(base, 'home'));
    root = path.join(base, 'project');
    outside = path.join(base, 'outside');
    await mkdir(path.join(root, 'src'), { recursive: true });
    await mkdir(outside, { recursive: true });
    await writeFile(path.join(root, 'src', 'a.ts'), 'export const a = 1;\n');
    await writeFile(path.join(outside, 'victim.ts'), 'secret\n');
  });

  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('accepts existing and new files inside the root', async () => {
    expect(await issuesOf(root, [op('src/a.ts'), op('src/new/b.ts'), op('README.md')])).toEqual([]);
  });

  it('reports absolute and escaping paths with the patch index', async () => {
    const issues = await issuesOf(root, [op('src/a.ts'), op('/etc/passwd'), op('../outside/victim.ts')]);
    expect(issues.map((i) => [i.index, i.code])).toEqual([
      [1, 'path_absolute'],
      [2, 'path_escape'],
    ]);
    expect(issues[1]!.file).toBe('../outside/victim.ts');
    expect(issues[1]!.message).toContain('../outside/victim.ts');
  });

  it('refuses a folder symlink that leads outside the root', async () => {
    await symlink(outside, path.join(root, 'linked'));
    const issues = await issuesOf(root, [op('linked/victim.ts'), op('linked/new.ts')]);
    expect(issues.map((i) => i.code)).toEqual(['path_symlink_escape', 'path_symlink_escape']);
    expect(issues[0]!.message).toContain('linked');
  });

  it('refuses a file symlink that leads outside the root', async () => {
    await symlink(path.join(outside, 'victim.ts'), path.join(root, 'src', 'victim.ts'));
    const issues = await issuesOf(root, [op('src/victim.ts')]);
    expect(issues.map((i) => i.code)).toEqual(['path_symlink_escape']);
  });

  it('refuses a dangling symlink that points outside the root', async () => {
    await symlink(path.join(outside, 'missing.ts'), path.join(root, 'src', 'dangling.ts'));
    const issues = await issuesOf(root, [op('src/dangling.ts')]);
    expect(issues.map((i) => i.code)).toEqual(['path_symlink_escape']);
  });

  it('refuses a symlink deeper in the path (a parent of a parent)', async () => {
    await symlink(outside, path.join(root, 'src', 'vendor'));
    const issues = await issuesOf(root, [op('src/vendor/deep/x.ts')]);
    expect(issues.map((i) => i.code)).toEqual(['path_symlink_escape']);
  });

  it('accepts symlinks that stay inside the root', async () => {
    await symlink(path.join(root, 'src'), path.join(root, 'alias'));
    await symlink(path.join(root, 'src', 'a.ts'), path.join(root, 'a-link.ts'));
    expect(await issuesOf(root, [op('alias/a.ts'), op('a-link.ts')])).toEqual([]);
  });

  it('works when the root itself is reached through a symlink', async () => {
    const viaLink = path.join(base, 'project-link');
    await symlink(root, viaLink);
    expect(await issuesOf(viaLink, [op('src/a.ts')])).toEqual([]);
    expect((await issuesOf(viaLink, [op('../outside/victim.ts')])).map((i) => i.code)).toEqual(['path_escape']);
  });

  it('refuses binary files by content and by extension', async () => {
    await writeFile(path.join(root, 'src', 'data.txt'), Buffer.from([0x41, 0x00, 0x42]));
    const issues = await issuesOf(root, [op('src/data.txt'), op('assets/logo.png'), op('src/a.ts')]);
    expect(issues.map((i) => [i.index, i.code])).toEqual([
      [0, 'path_binary'],
      [1, 'path_binary'],
    ]);
  });

  it('refuses secret files even when they do not exist yet', async () => {
    await writeFile(path.join(root, '.env'), 'TOKEN=x\n');
    const issues = await issuesOf(root, [
      op('.env'),
      op('config/.env.local'),
      op('keys/server.pem'),
      op('deploy/id_rsa'),
    ]);
    expect(issues.map((i) => i.code)).toEqual(['path_secret', 'path_secret', 'path_secret', 'path_secret']);
  });

  it('refuses a folder as a target', async () => {
    const issues = await issuesOf(root, [op('src')]);
    expect(issues.map((i) => i.code)).toEqual(['path_not_file']);
  });

  it('names every spelling of one file, symlinks inside the root resolved, by its one canonical path', async () => {
    await symlink('src', path.join(root, 'alias'));
    await symlink('src/a.ts', path.join(root, 'a-link.ts'));
    const patches = [op('src/a.ts'), op('./src//a.ts'), op('alias/a.ts'), op('a-link.ts'), op('alias/new.ts')];
    const verdict = await resolvePlanPaths(root, patches);
    expect(verdict.issues).toEqual([]);
    expect([...verdict.canonical.values()]).toEqual(['src/a.ts', 'src/a.ts', 'src/a.ts', 'src/a.ts', 'src/new.ts']);
    const plan = withCanonicalPaths({ patches }, verdict.canonical);
    expect(plan.patches.map((p) => p.file)).toEqual(['src/a.ts', 'src/a.ts', 'src/a.ts', 'src/a.ts', 'src/new.ts']);
    expect(patches[1]!.file).toBe('./src//a.ts');
  });

  it('skips pathspec patches, and refuses a target another target of the plan needs as a folder', async () => {
    const verdict = await resolvePlanPaths(
      root,
      [op('gen'), op('gen/x.ts'), op('new.ts'), op('new.ts/y.ts')],
      new Set([0]),
    );
    expect(verdict.canonical.has(0)).toBe(false);
    expect(verdict.issues.map((i) => [i.index, i.code])).toEqual([[3, 'path_not_file']]);
  });

  it('refuses a path that runs through an existing file', async () => {
    const issues = await issuesOf(root, [op('src/a.ts/b.ts')]);
    expect(issues.map((i) => [i.code, i.message])).toEqual([
      ['path_not_file', 'src/a.ts/b.ts runs through a file, not a folder'],
    ]);
  });
});
