import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { GUARD_MAX_BYTES, guardTree, isFreeToChange, type TreeGuard } from '../../../utils/shell/tree-guard.js';
import { fingerprintTree, gitIn, writeFiles } from '../../support/fixture.js';

// The tree guard keeps a project's files across a command that runs unasked and puts back what it changed.
// These run the guard on real folders (no sandbox): the command's writes are made by the test itself.

let base = '';
let root = '';

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'clawcode-tree-guard-'));
  root = join(base, 'p');
  writeFiles(root, { 'src/a.js': 'a\n', 'src/b.js': 'b\n', 'README.md': 'r\n', 'dist/x.js': 'x\n' });
  writeFiles(base, { 'outside/keep.txt': 'outside\n' });
});

async function guard(free: string[] = []): Promise<TreeGuard> {
  const taken = await guardTree(root, new Set(free));
  if (typeof taken === 'string') throw new Error(taken);
  return taken;
}

describe('guardTree', () => {
  it('puts back an overwritten file with its bytes and mode, and says so', async () => {
    chmodSync(join(root, 'src/a.js'), 0o755);
    const g = await guard();
    writeFileSync(join(root, 'src/a.js'), 'overwritten\n');
    chmodSync(join(root, 'src/a.js'), 0o644);
    expect(await g.check()).toEqual({ changed: ['src/a.js'], removed: [], failed: [] });
    expect(readFileSync(join(root, 'src/a.js'), 'utf8')).toBe('a\n');
    expect(statSync(join(root, 'src/a.js')).mode & 0o777).toBe(0o755);
  });

  it('sees a same-size rewrite whose modification time was set back', async () => {
    const before = statSync(join(root, 'src/a.js'));
    const g = await guard();
    writeFileSync(join(root, 'src/a.js'), 'z\n');
    utimesSync(join(root, 'src/a.js'), before.atime, before.mtime);
    expect((await g.check()).changed).toEqual(['src/a.js']);
    expect(readFileSync(join(root, 'src/a.js'), 'utf8')).toBe('a\n');
  });

  it('writes nothing through a folder the command swapped for a symlink out of the project', async () => {
    const g = await guard();
    renameSync(join(root, 'src'), join(base, 'moved'));
    symlinkSync(join(base, 'outside'), join(root, 'src'));
    const outside = fingerprintTree(join(base, 'outside'));
    expect((await g.check()).changed).toEqual(['src/a.js', 'src/b.js']);
    expect(fingerprintTree(join(base, 'outside'))).toEqual(outside);
    expect(lstatSync(join(root, 'src')).isDirectory()).toBe(true);
    expect(readFileSync(join(root, 'src/b.js'), 'utf8')).toBe('b\n');
  });

  it('puts back a file the command replaced with a folder, and removes what it added then', async () => {
    const before = fingerprintTree(root);
    const g = await guard();
    rmSync(join(root, 'README.md'));
    writeFiles(root, { 'README.md/inner.txt': 'i\n', 'src/new/deep/added.js': 'n\n' });
    mkdirSync(join(root, 'src/empty/inner'), { recursive: true });
    const outcome = await g.check();
    expect(outcome.changed).toEqual(['README.md']);
    expect(outcome.removed).toEqual(['src/new/deep/added.js']);
    expect(fingerprintTree(root)).toEqual(before);
  });

  it('lets the command change the plan’s files and generated ones, and add files, when it broke no rule', async () => {
    const g = await guard(['src/a.js']);
    writeFileSync(join(root, 'src/a.js'), 'formatted\n');
    writeFileSync(join(root, 'dist/x.js'), 'rebuilt\n');
    writeFiles(root, { '.eslintcache': '{}', 'gen/out.txt': 'o\n', 'node_modules/.cache/c': 'c' });
    expect(await g.check()).toEqual({ changed: [], removed: [], failed: [] });
    expect(existsSync(join(root, 'gen/out.txt'))).toBe(true);
    expect(readFileSync(join(root, 'src/a.js'), 'utf8')).toBe('formatted\n');
  });

  it('puts back a plan file the command made a symlink out of the project (undo would not write through it)', async () => {
    const g = await guard(['src/a.js']);
    rmSync(join(root, 'src/a.js'));
    symlinkSync(join(base, 'outside/keep.txt'), join(root, 'src/a.js'));
    expect((await g.check()).changed).toEqual(['src/a.js']);
    expect(lstatSync(join(root, 'src/a.js')).isFile()).toBe(true);
    expect(readFileSync(join(root, 'src/a.js'), 'utf8')).toBe('a\n');
  });

  it('keeps a file git ignores one by one (.env), and not a generated folder git ignores', async () => {
    writeFiles(root, { '.gitignore': '.env\nlogs/\ndist/\n', '.env': 'K=1\n', 'logs/today.log': 'l\n' });
    gitIn(root, 'init', '-q');
    const g = await guard();
    writeFileSync(join(root, '.env'), 'K=2\n');
    writeFileSync(join(root, 'logs/today.log'), 'gone\n');
    writeFileSync(join(root, 'dist/x.js'), 'rebuilt\n');
    expect((await g.check()).changed).toEqual(['.env', 'logs/today.log']);
    expect(readFileSync(join(root, 'dist/x.js'), 'utf8')).toBe('rebuilt\n');
  });

  it('keeps the files of a nested repository, which git lists as a folder', async () => {
    gitIn(root, 'init', '-q');
    writeFiles(root, { 'vendor/lib/x.c': 'int x;\n' });
    gitIn(join(root, 'vendor/lib'), 'init', '-q');
    const g = await guard();
    rmSync(join(root, 'vendor/lib/x.c'));
    expect((await g.check()).changed).toEqual(['vendor/lib/x.c']);
    expect(readFileSync(join(root, 'vendor/lib/x.c'), 'utf8')).toBe('int x;\n');
  });

  it('refuses, in one line, a project with more bytes than it keeps', async () => {
    truncateSync(join(root, 'src/a.js'), GUARD_MAX_BYTES + 1);
    expect(await guardTree(root, new Set())).toMatch(/^the project holds more than 256 MiB of files to keep safe$/);
  });

  it('calls build outputs, caches and control paths free to change, and sources not', () => {
    const free = ['dist/a.js', 'pkg/node_modules/x/y.js', 'a/.pytest_cache/v', 'tsconfig.tsbuildinfo', '.git/HEAD'];
    expect(free.filter((p) => !isFreeToChange(p))).toEqual([]);
    expect(['src/a.js', 'dist', 'Makefile', 'distant/a.js', '.env'].filter(isFreeToChange)).toEqual([]);
  });
});
