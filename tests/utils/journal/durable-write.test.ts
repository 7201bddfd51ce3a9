import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DiskWriteError,
  TargetChangedError,
  writeFileDurable,
  type ChunkWriter,
} from '../../../utils/journal/durable-write.js';
import { IoError } from '../../../utils/errors.js';
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

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cc-durable-'));
  cleanup.push(dir);
  return dir;
}

/** A writer that takes at most `max` bytes per call, as a nearly full or slow device does. */
function shortWriter(max: number, calls: number[]): ChunkWriter {
  return async (handle, buffer, offset, length, position) => {
    const take = Math.min(length, max);
    calls.push(take);
    return (await handle.write(buffer, offset, take, position)).bytesWritten;
  };
}

/** A writer that writes `okBytes` in total (short counts included), then fails with `code`. */
function failingWriter(okBytes: number, code: string): ChunkWriter {
  let written = 0;
  return async (handle, buffer, offset, length, position) => {
    if (written >= okBytes) throw Object.assign(new Error(`${code}: no space left on device, write`), { code });
    const take = Math.min(length, okBytes - written);
    written += take;
    return (await handle.write(buffer, offset, take, position)).bytesWritten;
  };
}

describe('writeFileDurable', () => {
  it('writes every byte when the system takes only part of each write', async () => {
    const dir = await tempDir();
    const target = join(dir, 'big.ts');
    await writeFile(target, 'old');
    const data = Buffer.alloc(660_000, 'abcdefghij');
    const calls: number[] = [];
    await writeFileDurable(target, data, { write: shortWriter(4096 * 3 + 17, calls) });
    expect((await readFile(target)).equals(data)).toBe(true);
    expect(calls.length).toBeGreaterThan(50);
    expect(await readdir(dir)).toEqual(['big.ts']);
  });

  it('on ENOSPC midway leaves the original untouched, removes the temp file and throws DiskWriteError', async () => {
    const dir = await tempDir();
    const target = join(dir, 'big.ts');
    const original = Buffer.alloc(660_000, 'original ');
    await writeFile(target, original);
    const error = await writeFileDurable(target, Buffer.alloc(660_001, 'new '), {
      write: failingWriter(385_024, 'ENOSPC'),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiskWriteError);
    expect(error).toBeInstanceOf(IoError);
    expect((error as DiskWriteError).code).toBe('disk_full');
    expect((error as DiskWriteError).errno).toBe('ENOSPC');
    expect((error as DiskWriteError).message).toBe(`Disk full while writing ${target}`);
    expect((await readFile(target)).equals(original)).toBe(true);
    expect(await readdir(dir)).toEqual(['big.ts']);
  });

  it('EIO and EDQUOT are typed too; a brand-new target is not left behind', async () => {
    const dir = await tempDir();
    for (const code of ['EIO', 'EDQUOT']) {
      const error = await writeFileDurable(join(dir, `new-${code}.ts`), 'x'.repeat(10_000), {
        write: failingWriter(100, code),
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DiskWriteError);
      expect((error as DiskWriteError).errno).toBe(code);
    }
    expect(await readdir(dir)).toEqual([]);
  });

  it('a write that reports 0 bytes fails instead of looping forever or renaming a partial file', async () => {
    const dir = await tempDir();
    const target = join(dir, 'a.ts');
    await writeFile(target, 'keep me');
    const zero: ChunkWriter = async () => 0;
    await expect(writeFileDurable(target, 'new text', { write: zero })).rejects.toBeInstanceOf(DiskWriteError);
    expect(await readFile(target, 'utf8')).toBe('keep me');
    expect(await readdir(dir)).toEqual(['a.ts']);
  });

  it("keeps the replaced file's mode, applies an explicit mode exactly (umask aside), and writes empty files", async () => {
    const dir = await tempDir();
    const script = join(dir, 'run.sh');
    await writeFile(script, '#!/bin/sh\n');
    await chmod(script, 0o751);
    await writeFileDurable(script, '#!/bin/sh\necho hi\n');
    expect((await stat(script)).mode & 0o7777).toBe(0o751);
    const secret = join(dir, 'pre-0');
    await writeFileDurable(secret, 'token', { mode: 0o600 });
    expect((await stat(secret)).mode & 0o777).toBe(0o600);
    await writeFileDurable(join(dir, 'empty'), '');
    expect(await readFile(join(dir, 'empty'), 'utf8')).toBe('');
  });

  it('a missing folder is an IoError (not a disk error) and leaves nothing', async () => {
    const dir = await tempDir();
    const error = await writeFileDurable(join(dir, 'nope', 'a.ts'), 'x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IoError);
    expect(error).not.toBeInstanceOf(DiskWriteError);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('writeFileDurable through a symlink', () => {
  it('replaces the file the link points to and keeps the link', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'real.ts'), 'old');
    await symlink('real.ts', join(dir, 'link.ts'));
    await writeFileDurable(join(dir, 'link.ts'), 'new');
    expect((await lstat(join(dir, 'link.ts'))).isSymbolicLink()).toBe(true);
    expect(await readFile(join(dir, 'real.ts'), 'utf8')).toBe('new');
  });
});

describe('writeFileDurable as a compare-and-swap with a folder check', () => {
  it('refuses to replace bytes other than the expected ones, and leaves no temp or lock file', async () => {
    const dir = await tempDir();
    const target = join(dir, 'a.ts');
    await writeFile(target, 'changed by another run');
    const write = writeFileDurable(target, 'ours', { expect: (current) => current?.toString() === 'pre-image' });
    await expect(write).rejects.toBeInstanceOf(TargetChangedError);
    expect(await readFile(target, 'utf8')).toBe('changed by another run');
    expect(await readdir(dir)).toEqual(['a.ts']);
  });

  it('a new file expected absent is not written over one that appeared meanwhile', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'new.ts'), 'theirs');
    await expect(writeFileDurable(join(dir, 'new.ts'), 'ours', { expect: (c) => c === null })).rejects.toBeInstanceOf(
      TargetChangedError,
    );
    expect(await readFile(join(dir, 'new.ts'), 'utf8')).toBe('theirs');
  });

  it('asks the folder check after the temp file exists and right before the rename; a failing one writes nothing', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'a.ts'), 'old');
    let calls = 0;
    const check = async (): Promise<void> => {
      calls += 1;
      if (calls === 2) throw new IoError('moved', { code: 'folder_moved' });
    };
    await expect(writeFileDurable(join(dir, 'a.ts'), 'new', { check })).rejects.toThrow('moved');
    expect(calls).toBe(2);
    expect(await readFile(join(dir, 'a.ts'), 'utf8')).toBe('old');
    expect(await readdir(dir)).toEqual(['a.ts']);
  });
});

/** A real temp folder (the guarded writes compare real paths). */
async function realTempDir(): Promise<string> {
  return realpath(await tempDir());
}

async function guard(root: string, path: string): Promise<GuardedTarget> {
  const verdict = await guardTarget(root, path);
  if (!verdict.ok) throw new Error(verdict.message);
  return verdict.target;
}

const any = (): boolean => true;

describe('guarded writes', () => {
  it('a folder swapped for a symlink out of the root after the check fails the write; nothing lands outside', async () => {
    const root = await realTempDir();
    const outside = await realTempDir();
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
    const root = await realTempDir();
    await mkdir(join(root, 'src'));
    const target = await guard(root, 'src/a.txt');
    await rename(join(root, 'src'), join(root, 'src.moved'));
    await mkdir(join(root, 'src'));
    await expect(writeGuarded(target, Buffer.from('new'), { expect: any })).rejects.toBeInstanceOf(FolderMovedError);
    expect(await readdir(join(root, 'src'))).toEqual([]);
  });

  it('creates missing folders one at a time inside the root and writes the file', async () => {
    const root = await realTempDir();
    const target = await guard(root, 'new/deep/a.txt');
    expect(target.missing).toHaveLength(2);
    await writeGuarded(target, Buffer.from('made'), { expect: (current) => current === null });
    expect(await readFile(join(root, 'new', 'deep', 'a.txt'), 'utf8')).toBe('made');
  });

  it('a path the policy refuses (out of the root) is never resolved for writing', async () => {
    const root = await realTempDir();
    expect((await guardTarget(root, '../escape.txt')).ok).toBe(false);
  });

  it('deletes only a file that still holds the expected bytes', async () => {
    const root = await realTempDir();
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
    const root = await realTempDir();
    const file = join(root, 'a.txt');
    await writeFile(`${file}${FILE_LOCK_SUFFIX}`, '1 - 0123456789ab');
    const started = Date.now();
    expect(await holdFileLock(file, async () => 'held')).toBe('held');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await readdir(root)).toEqual([]);
  });

  it('lets a second writer in only after the first released it', async () => {
    const root = await realTempDir();
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
