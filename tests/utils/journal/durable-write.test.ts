import { chmod, lstat, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DiskWriteError, writeFileDurable, type ChunkWriter } from '../../../utils/journal/durable-write.js';
import { IoError } from '../../../utils/errors.js';

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
