import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDirs, makeDirsSync } from '../../utils/make-dirs.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clawcode-make-dirs-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('makeDirs', () => {
  it('makes every missing level with the mode, and is a no-op when the folder exists', async () => {
    const deep = join(dir, 'a', 'b', 'c');
    await makeDirs(deep, 0o700);
    expect((await stat(deep)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'a'))).mode & 0o777).toBe(0o700);
    await makeDirs(deep, 0o700);
    makeDirsSync(deep, 0o700);
  });

  it('lets ten concurrent calls make the same folders', async () => {
    await Promise.all(Array.from({ length: 10 }, () => makeDirs(join(dir, 'race', 'x', 'y'), 0o700)));
    expect((await stat(join(dir, 'race', 'x', 'y'))).isDirectory()).toBe(true);
  });

  it('throws ENOTDIR when a part of the path is a file', async () => {
    await writeFile(join(dir, 'file'), 'x');
    await expect(makeDirs(join(dir, 'file', 'sub'), 0o700)).rejects.toMatchObject({ code: 'ENOTDIR' });
    expect(() => makeDirsSync(join(dir, 'file', 'sub'), 0o700)).toThrow(/ENOTDIR/);
  });

  it('throws at once under /proc, where mkdir answers ENOENT below a folder that exists', async () => {
    await expect(makeDirs('/proc/self/clawcode-test/x', 0o700)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(() => makeDirsSync('/proc/self/clawcode-test/x', 0o700)).toThrow(/ENOENT/);
  });
});
