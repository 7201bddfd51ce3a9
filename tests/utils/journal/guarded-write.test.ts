import { mkdir, mkdtemp, readdir, readFile, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TargetChangedError } from '../../../utils/journal/durable-write.js';
import { FILE_LOCK_SUFFIX, holdFileLock } from '../../../utils/journal/file-lock.js';
import {
  FolderMovedError,
  guardTarget,
  unlinkGuarded,
  writeGuarded,
  type GuardedTarget,
} from '../../../utils/journal/guarded-write.js';

const cleanup: string[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  cleanup.push(dir);
  return dir;
}

async function guard(root: string, path: string): Promise<GuardedTarget> {
  const verdict = await guardTarget(root, path);
  if (!verdict.ok) throw new Error(verdict.message);
  return verdict.target;
}

const any = (): boolean => true;

describe('guarded writes', () => {
  it('a folder swapped for a symlink out of the root after the check fails the write; nothing lands outside', async () => {
    const root = await tempDir('cc-guard-root-');
    const outside = await tempDir('cc-guard-outside-');
    await mkdir(join(root, 'src'));
    await writeFile(join(root, 'src', 'a.txt'), 'old');
    const target = await guard(root, 'src/a.txt');
    await rename(join(root, 'src'), join(root, 'src.moved'));
    await symlink(outside, join(root, 'src'));
    await expect(writeGuarded(target, Buffer.from('new'), { expect: any })).rejects.toBeInstanceOf(FolderMovedError);
    expect(await readdir(outside)).toEqual([]);
    expect(await readFile(join(root, 'src.moved', 'a.txt'), 'utf8')).toBe('old');
  });

  it('a folder replaced by another real folder is caught too (same path, other inode)', async () => {
    const root = await tempDir('cc-guard-root-');
    await mkdir(join(root, 'src'));
    const target = await guard(root, 'src/a.txt');
    await rename(join(root, 'src'), join(root, 'src.moved'));
    await mkdir(join(root, 'src'));
    await expect(writeGuarded(target, Buffer.from('new'), { expect: any })).rejects.toBeInstanceOf(FolderMovedError);
    expect(await readdir(join(root, 'src'))).toEqual([]);
  });

  it('creates missing folders one at a time inside the root and writes the file', async () => {
    const root = await tempDir('cc-guard-root-');
    const target = await guard(root, 'new/deep/a.txt');
    expect(target.missing).toHaveLength(2);
    await writeGuarded(target, Buffer.from('made'), { expect: (current) => current === null });
    expect(await readFile(join(root, 'new', 'deep', 'a.txt'), 'utf8')).toBe('made');
  });

  it('a path the policy refuses (out of the root) is never resolved for writing', async () => {
    const root = await tempDir('cc-guard-root-');
    expect((await guardTarget(root, '../escape.txt')).ok).toBe(false);
  });

  it('deletes only a file that still holds the expected bytes', async () => {
    const root = await tempDir('cc-guard-root-');
    await writeFile(join(root, 'a.txt'), 'someone else');
    const target = await guard(root, 'a.txt');
    await expect(unlinkGuarded(target, (c) => c?.toString() === 'ours')).rejects.toBeInstanceOf(TargetChangedError);
    expect(await readFile(join(root, 'a.txt'), 'utf8')).toBe('someone else');
    expect(await unlinkGuarded(target, (c) => c?.toString() === 'someone else')).toBe(true);
    expect(await readdir(root)).toEqual([]);
  });
});

describe('the lock file beside a target', () => {
  it('takes over a lock naming a live process that is not its writer (pid 1 without its start time)', async () => {
    const root = await tempDir('cc-guard-lock-');
    const file = join(root, 'a.txt');
    await writeFile(`${file}${FILE_LOCK_SUFFIX}`, '1 - 0123456789ab');
    const started = Date.now();
    expect(await holdFileLock(file, async () => 'held')).toBe('held');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await readdir(root)).toEqual([]);
  });

  it('lets a second writer in only after the first released it', async () => {
    const root = await tempDir('cc-guard-lock-');
    const file = join(root, 'a.txt');
    const order: string[] = [];
    let release!: () => void;
    const first = holdFileLock(file, async () => {
      order.push('first in');
      await new Promise<void>((resolve) => (release = resolve));
      order.push('first out');
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = holdFileLock(file, async () => void order.push('second in'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first in', 'first out', 'second in']);
  });
});
