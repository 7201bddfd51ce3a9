import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  realpath,
  rename,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { applyRun, StaleFileError, type FileChange } from '../../../utils/journal/journal.js';
import { findUnfinishedRuns, rollbackRun } from '../../../utils/journal/rollback.js';
import {
  listRuns,
  PathEscapeError,
  pruneRuns,
  removeCreatedDirs,
  resolveInsideRoot,
} from '../../../utils/journal/store.js';
import { getProjectHash } from '../../../utils/project-hash.js';
import { readManifest, writeManifest } from '../../../utils/journal/store.js';
import type { ChunkWriter } from '../../../utils/journal/durable-write.js';
import { IoError } from '../../../utils/errors.js';

let root: string;
let home: string;
let outside: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'cc-journal-root-'));
  home = await mkdtemp(join(tmpdir(), 'cc-journal-home-'));
  outside = await mkdtemp(join(tmpdir(), 'cc-journal-out-'));
  vi.stubEnv('CLAWCODE_HOME', home);
});

afterEach(async () => {
  await Promise.all([root, home, outside].map((d) => rm(d, { recursive: true, force: true })));
});

async function seed(files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

async function change(path: string, after: string): Promise<FileChange> {
  const before = await readFile(join(root, path)).catch(() => null);
  return { path, before, after };
}

async function treeOf(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.map((e) => join(e.parentPath, e.name).slice(dir.length + 1) + (e.isDirectory() ? '/' : '')).sort();
}

describe('applyRun', () => {
  it('writes every file, creates new files and folders, keeps modes, journals pre-images', async () => {
    await seed({ 'a.ts': 'old a\n', 'bin/run.sh': '#!/bin/sh\necho old\n' });
    await chmod(join(root, 'bin/run.sh'), 0o755);
    const changes = [
      await change('a.ts', 'new a\n'),
      await change('bin/run.sh', '#!/bin/sh\necho new\n'),
      await change('src/deep/new.ts', 'export const x = 1;\n'),
    ];
    const run = await applyRun({
      rootDir: root,
      changes,
      meta: { task: 'edit things', provider: 'openai', model: 'm' },
    });

    expect(run.status).toBe('applied');
    expect(await readFile(join(root, 'a.ts'), 'utf8')).toBe('new a\n');
    expect(await readFile(join(root, 'src/deep/new.ts'), 'utf8')).toBe('export const x = 1;\n');
    expect((await stat(join(root, 'bin/run.sh'))).mode & 0o777).toBe(0o755);
    expect(run.createdDirs).toEqual(['src', 'src/deep']);
    expect(run.files.map((f) => [f.path, f.created])).toEqual([
      ['a.ts', false],
      ['bin/run.sh', false],
      ['src/deep/new.ts', true],
    ]);
    expect(run.files[2]?.beforeHash).toBeNull();
    expect(run.runDir.startsWith(join(home, 'runs'))).toBe(true);
    const stored = await readManifest(run.runDir);
    expect(stored.status).toBe('applied');
    expect(await readFile(join(run.runDir, stored.files[0]?.preImage ?? 'missing'), 'utf8')).toBe('old a\n');
    expect(await treeOf(root)).toEqual(['a.ts', 'bin/', 'bin/run.sh', 'src/', 'src/deep/', 'src/deep/new.ts']);
  });

  it('gives run ids that sort by creation order', async () => {
    await seed({ 'a.ts': '0' });
    const ids: string[] = [];
    for (let i = 1; i <= 3; i += 1) {
      ids.push(
        (await applyRun({ rootDir: root, changes: [await change('a.ts', String(i))], meta: { task: `t${i}` } })).runId,
      );
    }
    expect([...ids].sort()).toEqual(ids);
    expect((await listRuns(root)).map((r) => r.task)).toEqual(['t3', 't2', 't1']);
  });

  it('refuses, writing nothing, when a file changed on disk since the plan', async () => {
    await seed({ 'a.ts': 'old a', 'b.ts': 'old b' });
    const changes = [await change('a.ts', 'new a'), await change('b.ts', 'new b')];
    await writeFile(join(root, 'b.ts'), 'edited meanwhile');
    await expect(applyRun({ rootDir: root, changes, meta: { task: 't' }, homeDir: home })).rejects.toBeInstanceOf(
      StaleFileError,
    );
    expect(await readFile(join(root, 'a.ts'), 'utf8')).toBe('old a');
    expect(await readFile(join(root, 'b.ts'), 'utf8')).toBe('edited meanwhile');
    expect(await listRuns(root, home)).toEqual([]);
  });

  it('refuses a new file that appeared meanwhile', async () => {
    const changes = [await change('n.ts', 'mine')];
    await seed({ 'n.ts': 'someone else' });
    await expect(applyRun({ rootDir: root, changes, meta: { task: 't' } })).rejects.toMatchObject({
      code: 'file_changed_since_plan',
      exitCode: 3,
    });
    expect(await readFile(join(root, 'n.ts'), 'utf8')).toBe('someone else');
  });

  it('rolls back the files already written when a later write fails', async () => {
    // Nothing on disk can tell beforehand: the run itself puts a file where a later change needs a folder.
    await seed({ 'a.ts': 'old a' });
    const changes = [
      await change('a.ts', 'new a'),
      await change('fresh/one.ts', 'one'),
      await change('fresh/one.ts/x.ts', 'x'),
    ];
    const error = await applyRun({ rootDir: root, changes, meta: { task: 't' } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'apply_failed', exitCode: 1 });
    expect(await readFile(join(root, 'a.ts'), 'utf8')).toBe('old a');
    expect(await treeOf(root)).toEqual(['a.ts']);
    const [run] = await listRuns(root);
    expect(run?.status).toBe('rolled_back');
    expect(run?.error).toMatch(/fresh\/one\.ts/);
  });

  it('refuses a path through a file already on disk before writing anything', async () => {
    await seed({ 'a.ts': 'old a', blocker: 'a file, not a folder' });
    const changes = [await change('a.ts', 'new a'), await change('blocker/x.ts', 'x')];
    const error = await applyRun({ rootDir: root, changes, meta: { task: 't' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PathEscapeError);
    expect(String(error)).toMatch(/blocker\/x\.ts runs through a file/);
    expect(await readFile(join(root, 'a.ts'), 'utf8')).toBe('old a');
    expect(await listRuns(root)).toEqual([]);
  });

  describe('path escapes write nothing', () => {
    const cases: [string, string][] = [
      ['a parent reference', '../escape.txt'],
      ['a nested parent reference', 'src/../../escape.txt'],
      ['a backslash parent reference', '..\\escape.txt'],
      ['an absolute path', '/tmp/escape.txt'],
      ['a drive path', 'C:/escape.txt'],
    ];
    for (const [name, path] of cases) {
      it(`refuses ${name}`, async () => {
        await seed({ 'ok.ts': 'old' });
        const changes = [await change('ok.ts', 'new'), { path, before: null, after: 'pwned' }];
        await expect(applyRun({ rootDir: root, changes, meta: { task: 't' } })).rejects.toBeInstanceOf(PathEscapeError);
        expect(await readFile(join(root, 'ok.ts'), 'utf8')).toBe('old');
        expect(await listRuns(root)).toEqual([]);
      });
    }

    it('refuses a write through a symlinked folder that points outside', async () => {
      await seed({ 'ok.ts': 'old' });
      await symlink(outside, join(root, 'linked'));
      const changes = [await change('ok.ts', 'new'), { path: 'linked/evil.ts', before: null, after: 'pwned' }];
      await expect(applyRun({ rootDir: root, changes, meta: { task: 't' } })).rejects.toMatchObject({
        code: 'path_escape',
      });
      expect(await readdir(outside)).toEqual([]);
      expect(await readFile(join(root, 'ok.ts'), 'utf8')).toBe('old');
    });

    it('refuses a symlinked file that points outside', async () => {
      await writeFile(join(outside, 'target.txt'), 'outside');
      await symlink(join(outside, 'target.txt'), join(root, 'link.txt'));
      const changes = [{ path: 'link.txt', before: Buffer.from('outside'), after: 'pwned' }];
      await expect(applyRun({ rootDir: root, changes, meta: { task: 't' } })).rejects.toBeInstanceOf(PathEscapeError);
      expect(await readFile(join(outside, 'target.txt'), 'utf8')).toBe('outside');
    });

    it('allows a symlinked folder inside the root', async () => {
      await seed({ 'real/a.ts': 'old' });
      await symlink(join(root, 'real'), join(root, 'alias'));
      await applyRun({
        rootDir: root,
        changes: [{ path: 'alias/a.ts', before: Buffer.from('old'), after: 'new' }],
        meta: { task: 't' },
      });
      expect(await readFile(join(root, 'real/a.ts'), 'utf8')).toBe('new');
    });
  });

  it('keeps only the newest journals, and clears old folders a dead run left without a manifest', async () => {
    await seed({ 'a.ts': '0' });
    const orphan = join(home, 'runs', getProjectHash(root), '20000101T000000000Z-0000000000');
    await mkdir(orphan, { recursive: true });
    await writeFile(join(orphan, 'pre-0'), 'pre-image of a run that died before its manifest');
    await utimes(orphan, new Date(2000, 0, 1), new Date(2000, 0, 1));
    for (let i = 1; i <= 4; i += 1) {
      await applyRun({
        rootDir: root,
        changes: [await change('a.ts', String(i))],
        meta: { task: `t${i}` },
        keepRuns: 2,
      });
    }
    expect((await listRuns(root)).map((r) => r.task)).toEqual(['t4', 't3']);
    expect(await readdir(join(home, 'runs', getProjectHash(root)))).toHaveLength(2);
    expect(await pruneRuns(root, { keep: 1 })).toHaveLength(1);
  });

  it('never resolves a generated path to a place outside the real root (property)', async () => {
    await seed({ 'src/a.ts': 'x' });
    await symlink(outside, join(root, 'linked'));
    const realRoot = await realpath(root);
    const segment = fc.constantFrom('src', 'a.ts', '..', '.', 'linked', 'new', '', '~', 'C:', '\\..', 'x y');
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 6 }), fc.boolean(), async (parts, leadingSlash) => {
        const path = (leadingSlash ? '/' : '') + parts.join('/');
        let abs: string;
        try {
          ({ abs } = await resolveInsideRoot(root, path));
        } catch (error) {
          expect(error).toBeInstanceOf(PathEscapeError);
          return;
        }
        expect(abs.startsWith(realRoot + sep)).toBe(true);
        // Through the symlink the real location would be outside: such paths must have been refused.
        expect(relative(realRoot, abs).split(sep)[0]).not.toBe('linked');
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a path listed twice', async () => {
    await seed({ 'a.ts': 'x' });
    const changes = [await change('a.ts', 'y'), await change('./a.ts', 'z')];
    await expect(applyRun({ rootDir: root, changes, meta: { task: 't' } })).rejects.toMatchObject({
      code: 'duplicate_path',
      exitCode: 2,
    });
    expect(await readFile(join(root, 'a.ts'), 'utf8')).toBe('x');
  });
});

describe('recovery', () => {
  it('rolls an unfinished run back to its pre-images exactly', async () => {
    await seed({ 'a.ts': 'old a', 'b.ts': 'old b', 'real/c.ts': 'old c' });
    await chmod(join(root, 'b.ts'), 0o600);
    await symlink('real/c.ts', join(root, 'c.ts'));
    const run = await applyRun({
      rootDir: root,
      changes: [
        await change('a.ts', 'new a'),
        await change('b.ts', 'new b'),
        await change('n/new.ts', 'n'),
        await change('c.ts', 'new c'),
      ],
      meta: { task: 'interrupted' },
    });
    // Simulate a process that died mid-apply: manifest still says `applying`, temp files are left
    // (ours, and ours beside a symlinked file's target); `a.ts.2`, written since, is the person's and stays.
    run.status = 'applying';
    await writeManifest(run);
    await writeFile(join(root, 'a.ts.2'), "the person's copy");
    await writeFile(join(root, 'b.ts.4242-0a1b2c3d.cctmp'), 'stray temp');
    await writeFile(join(root, 'real/c.ts.4242-0a1b2c3d.cctmp'), 'stray temp');

    const unfinished = await findUnfinishedRuns(root);
    expect(unfinished.map((r) => r.runId)).toEqual([run.runId]);
    const result = await rollbackRun({ rootDir: root, runId: run.runId });
    expect(result.restored.sort()).toEqual(['a.ts', 'b.ts', 'c.ts']);
    expect(result.deleted).toEqual(['n/new.ts']);
    expect(await treeOf(root)).toEqual(['a.ts', 'a.ts.2', 'b.ts', 'c.ts', 'real/', 'real/c.ts']);
    expect(await readFile(join(root, 'real/c.ts'), 'utf8')).toBe('old c');
    expect(await readFile(join(root, 'b.ts'), 'utf8')).toBe('old b');
    expect((await stat(join(root, 'b.ts'))).mode & 0o777).toBe(0o600);
    expect(await findUnfinishedRuns(root)).toEqual([]);
    expect((await readManifest(run.runDir)).status).toBe('rolled_back');
  });

  /** A writer that, when the `at`-th file starts to be written, runs `move` (another process moving folders). */
  function movesOnFile(at: number, move: () => Promise<void>): ChunkWriter {
    let files = 0;
    let lastHandle: unknown;
    return async (handle, buffer, offset, length, position) => {
      if (handle !== lastHandle) {
        lastHandle = handle;
        files += 1;
        if (files === at) await move();
      }
      return (await handle.write(buffer, offset, length, position)).bytesWritten;
    };
  }

  for (const [name, away] of [
    ['moved away (nothing in its place)', async () => rename(join(root, 'src'), join(root, 'src.aside'))],
    [
      'swapped for a symlink to a folder outside holding the old bytes',
      async () => {
        await rename(join(root, 'src'), join(root, 'src.aside'));
        await symlink(outside, join(root, 'src'));
      },
    ],
  ] as const) {
    it(`src/ ${name} mid-write: the run stays unfinished, nothing outside is touched, the next start restores it`, async () => {
      await seed({ 'src/f0.ts': 'old 0\n', 'src/f1.ts': 'old 1\n', 'src/f2.ts': 'old 2\n' });
      for (let i = 0; i < 3; i++) await writeFile(join(outside, `f${i}.ts`), `old ${i}\n`);
      await writeFile(join(outside, 'f0.ts.4242-0a1b2c3d.cctmp'), 'not ours to remove');
      const changes = await Promise.all([0, 1, 2].map((i) => change(`src/f${i}.ts`, `new ${i}\n`)));
      const error = await applyRun({
        rootDir: root,
        changes,
        meta: { task: 'raced' },
        writeChunk: movesOnFile(3, away),
      })
        .then(() => undefined)
        .catch((e: unknown) => e as IoError);
      expect(error).toBeInstanceOf(IoError);
      expect(error?.code).toBe('rollback_failed');
      // src/f0.ts and src/f1.ts hold the run's bytes in the moved folder: the run must not be marked rolled back.
      const [run] = await listRuns(root);
      expect(run?.status).toBe('applying');
      expect(await treeOf(outside)).toEqual(['f0.ts', 'f0.ts.4242-0a1b2c3d.cctmp', 'f1.ts', 'f2.ts']);
      for (let i = 0; i < 3; i++) expect(await readFile(join(outside, `f${i}.ts`), 'utf8')).toBe(`old ${i}\n`);
      await rm(join(root, 'src'), { force: true });
      await rename(join(root, 'src.aside'), join(root, 'src'));
      await rollbackRun({ rootDir: root, runId: run!.runId });
      for (let i = 0; i < 3; i++) expect(await readFile(join(root, `src/f${i}.ts`), 'utf8')).toBe(`old ${i}\n`);
      expect(await treeOf(root)).toEqual(['src/', 'src/f0.ts', 'src/f1.ts', 'src/f2.ts']);
    });
  }

  it('src/ moved out of the project and a symlink left to it mid-write: stray-temp cleanup removes nothing there', async () => {
    // src/lib/ keeps its inode (moved, not copied), so opening root/src/lib through the new symlink reaches the
    // very folder the run vetted, now outside: only the chain from the root tells it left.
    await seed({ 'src/lib/f0.ts': 'old 0\n', 'src/lib/f1.ts': 'old 1\n' });
    const changes = await Promise.all([0, 1].map((i) => change(`src/lib/f${i}.ts`, `new ${i}\n`)));
    const error = await applyRun({
      rootDir: root,
      changes,
      meta: { task: 'raced' },
      writeChunk: movesOnFile(2, async () => {
        await rename(join(root, 'src'), join(outside, 'src'));
        await symlink(join(outside, 'src'), join(root, 'src'));
        await writeFile(join(outside, 'src/lib/f1.ts.123456'), 'theirs');
        await writeFile(join(outside, 'src/lib/f0.ts.4242-0a1b2c3d.cctmp'), 'theirs');
      }),
    }).catch((e: unknown) => e as IoError);
    expect(error).toBeInstanceOf(IoError);
    expect((error as IoError).code).toBe('rollback_failed');
    expect(await treeOf(join(outside, 'src'))).toEqual([
      'lib/',
      'lib/f0.ts',
      'lib/f0.ts.4242-0a1b2c3d.cctmp',
      'lib/f1.ts',
      'lib/f1.ts.123456',
    ]);
    const [run] = await listRuns(root);
    expect(run?.status).toBe('applying');
  });

  it("a folder put at a file's name mid-write: that file is refused as changed, the files written before are restored", async () => {
    await seed({ 'src/f0.ts': 'old 0\n', 'src/f1.ts': 'old 1\n' });
    const changes = await Promise.all([0, 1].map((i) => change(`src/f${i}.ts`, `new ${i}\n`)));
    const error = await applyRun({
      rootDir: root,
      changes,
      meta: { task: 'raced' },
      writeChunk: movesOnFile(2, async () => {
        await rm(join(root, 'src/f1.ts'));
        await mkdir(join(root, 'src/f1.ts'));
      }),
    }).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(StaleFileError);
    expect(await readFile(join(root, 'src/f0.ts'), 'utf8')).toBe('old 0\n');
    expect(await treeOf(root)).toEqual(['src/', 'src/f0.ts', 'src/f1.ts/']);
    const [run] = await listRuns(root);
    expect(run?.status).toBe('rolled_back');
  });

  it("a written file replaced by a symlink to its moved bytes: the rollback leaves the other process's link", async () => {
    await seed({ 'src/f0.ts': 'old 0\n', 'src/f1.ts': 'old 1\n' });
    const changes = await Promise.all([0, 1].map((i) => change(`src/f${i}.ts`, `new ${i}\n`)));
    let files = 0;
    let last: unknown;
    const error = await applyRun({
      rootDir: root,
      changes,
      meta: { task: 'raced' },
      // src/f0.ts is written; while src/f1.ts is, another process moves f0's bytes to g.ts and links f0 to them,
      // then the device fails.
      writeChunk: async (handle, buffer, offset, length, position) => {
        if (handle !== last) {
          last = handle;
          files += 1;
        }
        if (files < 2) return (await handle.write(buffer, offset, length, position)).bytesWritten;
        await rename(join(root, 'src/f0.ts'), join(root, 'src/g.ts'));
        await symlink('g.ts', join(root, 'src/f0.ts'));
        throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
      },
    }).catch((e: unknown) => e as IoError);
    expect(error).toBeInstanceOf(IoError);
    expect((await lstat(join(root, 'src/f0.ts'))).isSymbolicLink()).toBe(true);
    expect(await readFile(join(root, 'src/g.ts'), 'utf8')).toBe('new 0\n');
    expect(await readFile(join(root, 'src/f1.ts'), 'utf8')).toBe('old 1\n');
    // The device error's one line still names the file left with the other writer's bytes.
    expect((error as IoError).message).toBe(
      "Device error (EIO) while writing src/f1.ts: nothing was changed; src/f0.ts changed meanwhile and keep the other writer's bytes",
    );
  });

  it('removes a folder the run created only through real folders: a parent swapped for a symlink out keeps the outside one', async () => {
    await seed({ 'src/a.ts': 'old a\n' });
    const run = await applyRun({
      rootDir: root,
      changes: [await change('src/a.ts', 'new a\n'), await change('src/made/b.ts', 'b\n')],
      meta: { task: 'creates a folder' },
    });
    expect(run.createdDirs).toEqual(['src/made']);
    run.status = 'applying';
    await writeManifest(run);
    // Another process moves src/ away and leaves a symlink to a folder outside that has an empty `made/`.
    await rename(join(root, 'src'), join(root, 'src.aside'));
    await symlink(outside, join(root, 'src'));
    await mkdir(join(outside, 'made'));
    await mkdir(join(root, '.git', 'refs', 'empty'), { recursive: true });
    await removeCreatedDirs(await realpath(root), ['src/made', '../x', '/tmp', 'src/./made', '.git/refs/empty']);
    expect(await treeOf(join(root, '.git'))).toEqual(['refs/', 'refs/empty/']);
    await rm(join(root, '.git'), { recursive: true });
    expect(await treeOf(outside)).toEqual(['made/']);
    await rm(join(root, 'src'));
    await rename(join(root, 'src.aside'), join(root, 'src'));
    await rollbackRun({ rootDir: root, runId: run.runId });
    expect(await treeOf(root)).toEqual(['src/', 'src/a.ts']);
    expect(await readFile(join(root, 'src/a.ts'), 'utf8')).toBe('old a\n');
  });

  it("after a crash, a folder another process put at a written file's name is left and the rest rolled back", async () => {
    await seed({ 'a.ts': 'old a\n', 'b.ts': 'old b\n' });
    const run = await applyRun({
      rootDir: root,
      changes: [await change('a.ts', 'new a\n'), await change('b.ts', 'new b\n')],
      meta: { task: 'interrupted' },
    });
    run.status = 'applying';
    await writeManifest(run);
    await rm(join(root, 'b.ts'));
    await mkdir(join(root, 'b.ts'));
    await writeFile(join(root, 'b.ts', 'theirs.txt'), 'theirs\n');
    const result = await rollbackRun({ rootDir: root, runId: run.runId });
    expect(result).toMatchObject({ restored: ['a.ts'], deleted: [], left: ['b.ts'] });
    expect(await readFile(join(root, 'a.ts'), 'utf8')).toBe('old a\n');
    expect(await treeOf(root)).toEqual(['a.ts', 'b.ts/', 'b.ts/theirs.txt']);
    expect((await readManifest(run.runDir)).status).toBe('rolled_back');
  });

  it('will not roll back a run that is not unfinished', async () => {
    await seed({ 'a.ts': 'old' });
    const run = await applyRun({ rootDir: root, changes: [await change('a.ts', 'new')], meta: { task: 't' } });
    await expect(rollbackRun({ rootDir: root, runId: run.runId })).rejects.toMatchObject({
      code: 'run_not_unfinished',
    });
    await expect(rollbackRun({ rootDir: root, runId: '../../etc' })).rejects.toMatchObject({ code: 'bad_run_id' });
  });
});

describe('applyRun on a device that fills up', () => {
  /** Writes normally until `failAt` files have been written, then fails every write with ENOSPC after `okBytes`. */
  function fillsUpOnFile(failAt: number, okBytes: number): ChunkWriter {
    let files = 0;
    let lastHandle: unknown;
    let written = 0;
    return async (handle, buffer, offset, length, position) => {
      if (handle !== lastHandle) {
        lastHandle = handle;
        files += 1;
        written = 0;
      }
      if (files < failAt) return (await handle.write(buffer, offset, length, position)).bytesWritten;
      if (written >= okBytes)
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      const take = Math.min(length, okBytes - written, 4096);
      written += take;
      return (await handle.write(buffer, offset, take, position)).bytesWritten;
    };
  }

  it('ENOSPC on the second file: every file keeps its old bytes, no temp file, one-line disk_full error, run rolled back', async () => {
    await seed({ 'a.ts': 'old a\n', 'src/x.ts': 'old x\n'.repeat(1000), 'c.ts': 'old c\n' });
    const before = await treeOf(root);
    const changes = [
      await change('a.ts', 'new a\n'),
      await change('src/x.ts', 'new x\n'.repeat(2000)),
      await change('c.ts', 'new c\n'),
    ];
    const error = await applyRun({
      rootDir: root,
      changes,
      meta: { task: 'fill' },
      writeChunk: fillsUpOnFile(2, 9000),
    }).catch((e: unknown) => e as IoError);
    expect(error).toBeInstanceOf(IoError);
    expect((error as IoError).code).toBe('disk_full');
    expect((error as IoError).message).toBe('Disk full while writing src/x.ts: nothing was changed');
    expect((error as IoError).hint).toBeUndefined();
    expect(await readFile(join(root, 'a.ts'), 'utf8')).toBe('old a\n');
    expect(await readFile(join(root, 'src/x.ts'), 'utf8')).toBe('old x\n'.repeat(1000));
    expect(await readFile(join(root, 'c.ts'), 'utf8')).toBe('old c\n');
    expect(await treeOf(root)).toEqual(before);
    const [run] = await listRuns(root);
    expect(run?.status).toBe('rolled_back');
    expect(await findUnfinishedRuns(root)).toEqual([]);
  });

  it('short writes on every file still write every byte', async () => {
    await seed({ 'a.ts': 'old a\n' });
    const big = 'line of text\n'.repeat(50_000);
    const run = await applyRun({
      rootDir: root,
      changes: [await change('a.ts', big)],
      meta: { task: 't' },
      writeChunk: fillsUpOnFile(1, 1e9),
    });
    expect(run.status).toBe('applied');
    expect(await readFile(join(root, 'a.ts'), 'utf8')).toBe(big);
  });

  it('journal folders are 0700 and pre-images and manifests 0600', async () => {
    await seed({ 'a.ts': 'API_KEY=secret\n' });
    const run = await applyRun({ rootDir: root, changes: [await change('a.ts', 'x\n')], meta: { task: 't' } });
    for (const name of ['pre-0', 'manifest.json'])
      expect((await stat(join(run.runDir, name))).mode & 0o777).toBe(0o600);
    expect((await stat(run.runDir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(run.runDir, '..'))).mode & 0o777).toBe(0o700);
  });
});
