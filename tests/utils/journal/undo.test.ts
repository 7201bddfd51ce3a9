import { renameSync, symlinkSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { applyRun } from '../../../utils/journal/journal.js';
import {
  findInterruptedUndos,
  finishInterruptedUndo,
  previewUndo,
  UndoConflictError,
  undoRun,
} from '../../../utils/journal/undo.js';
import { listRuns } from '../../../utils/journal/store.js';
import { readManifest, writeManifest } from '../../../utils/journal/store.js';
import type { ClawcodeError } from '../../../utils/errors.js';

let root: string;
let home: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'cc-undo-root-'));
  home = await mkdtemp(join(tmpdir(), 'cc-undo-home-'));
  vi.stubEnv('CLAWCODE_HOME', home);
});

afterEach(async () => {
  await Promise.all([root, home].map((d) => rm(d, { recursive: true, force: true })));
});

async function run(task: string, files: Record<string, string>) {
  const changes = [];
  for (const [path, after] of Object.entries(files)) {
    changes.push({ path, before: await readFile(join(root, path)).catch(() => null), after });
  }
  return applyRun({ rootDir: root, changes, meta: { task } });
}

const read = (path: string) => readFile(join(root, path), 'utf8');

describe('undoRun', () => {
  it('restores the previous bytes and mode of the last run and deletes the files it created', async () => {
    await writeFile(join(root, 'a.ts'), 'a0');
    await chmod(join(root, 'a.ts'), 0o640);
    await run('first', { 'a.ts': 'a1' });
    await run('second', { 'a.ts': 'a2', 'lib/new.ts': 'new' });

    const result = await undoRun({ rootDir: root });
    expect(result).toMatchObject({ restored: ['a.ts'], deleted: ['lib/new.ts'], skipped: [] });
    expect(await read('a.ts')).toBe('a1');
    expect((await stat(join(root, 'a.ts'))).mode & 0o777).toBe(0o640);
    expect(await readdir(root)).toEqual(['a.ts']);
    expect((await listRuns(root)).map((r) => [r.task, r.status])).toEqual([
      ['second', 'undone'],
      ['first', 'applied'],
    ]);

    // The next undo takes the next applied run.
    await undoRun({ rootDir: root });
    expect(await read('a.ts')).toBe('a0');
    await expect(undoRun({ rootDir: root })).rejects.toMatchObject({ code: 'nothing_to_undo' });
  });

  it('undoes a named run', async () => {
    await writeFile(join(root, 'a.ts'), 'a0');
    await writeFile(join(root, 'b.ts'), 'b0');
    const first = await run('first', { 'a.ts': 'a1' });
    await run('second', { 'b.ts': 'b1' });
    await undoRun({ rootDir: root, runId: first.runId });
    expect([await read('a.ts'), await read('b.ts')]).toEqual(['a0', 'b1']);
    await expect(undoRun({ rootDir: root, runId: first.runId })).rejects.toMatchObject({ code: 'run_not_applied' });
    await expect(undoRun({ rootDir: root, runId: '20990101T000000000Z-0000abcdef' })).rejects.toMatchObject({
      code: 'run_not_found',
    });
  });

  it('refuses, listing them, when files changed since the run, and changes nothing', async () => {
    await writeFile(join(root, 'a.ts'), 'a0');
    await writeFile(join(root, 'b.ts'), 'b0');
    await run('edit', { 'a.ts': 'a1', 'b.ts': 'b1', 'c.ts': 'c1' });
    await writeFile(join(root, 'b.ts'), 'edited by hand');
    await unlink(join(root, 'c.ts'));

    const error = await undoRun({ rootDir: root }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UndoConflictError);
    expect((error as UndoConflictError).conflicts).toEqual([
      { path: 'b.ts', kind: 'modified' },
      { path: 'c.ts', kind: 'deleted' },
    ]);
    expect((error as UndoConflictError).message).toMatch(/b\.ts \(modified\), c\.ts \(deleted\)/);
    expect([await read('a.ts'), await read('b.ts')]).toEqual(['a1', 'edited by hand']);
    expect((await listRuns(root))[0]?.status).toBe('applied');
  });

  it('with force restores only the untouched files', async () => {
    await writeFile(join(root, 'a.ts'), 'a0');
    await writeFile(join(root, 'b.ts'), 'b0');
    await run('edit', { 'a.ts': 'a1', 'b.ts': 'b1', 'n.ts': 'new' });
    await writeFile(join(root, 'b.ts'), 'edited by hand');

    const preview = await previewUndo({ rootDir: root });
    expect(preview.restorable.map((f) => f.path)).toEqual(['a.ts', 'n.ts']);
    const result = await undoRun({ rootDir: root, force: true });
    expect(result).toMatchObject({ restored: ['a.ts'], deleted: ['n.ts'], skipped: ['b.ts'] });
    expect([await read('a.ts'), await read('b.ts')]).toEqual(['a0', 'edited by hand']);
    const [record] = await listRuns(root);
    expect(record?.status).toBe('undone');
    expect(record?.undo?.skipped).toEqual(['b.ts']);
  });

  it('finds the runs of a project reached through a symlinked alias', async () => {
    const alias = `${root}-alias`;
    await symlink(root, alias);
    try {
      await writeFile(join(root, 'a.ts'), 'a0');
      await applyRun({
        rootDir: alias,
        changes: [{ path: 'a.ts', before: Buffer.from('a0'), after: 'a1' }],
        meta: { task: 'via alias' },
      });
      expect((await listRuns(root)).map((r) => r.task)).toEqual(['via alias']);
      expect((await listRuns(alias)).map((r) => r.task)).toEqual(['via alias']);
      await undoRun({ rootDir: alias });
      expect(await read('a.ts')).toBe('a0');
    } finally {
      await rm(alias, { force: true });
    }
  });

  it('refuses when a later run changed the same file', async () => {
    await writeFile(join(root, 'a.ts'), 'a0');
    const first = await run('first', { 'a.ts': 'a1' });
    await run('second', { 'a.ts': 'a2' });
    await expect(undoRun({ rootDir: root, runId: first.runId })).rejects.toMatchObject({ code: 'undo_conflict' });
    expect(await read('a.ts')).toBe('a2');
  });
});

describe('an interrupted undo', () => {
  it('is journaled before any file is touched, and finishInterruptedUndo completes it; edited files are left alone', async () => {
    await writeFile(join(root, 'a.ts'), 'a0');
    await writeFile(join(root, 'b.ts'), 'b0');
    await writeFile(join(root, 'c.ts'), 'c0');
    const applied = await run('three', { 'a.ts': 'a1', 'b.ts': 'b1', 'c.ts': 'c1', 'gen/new.ts': 'new' });
    // What an undo killed after its first restore leaves: the plan is durable, c.ts is back, the rest not.
    const manifest = await readManifest(applied.runDir);
    manifest.status = 'undoing';
    manifest.undoPlan = { at: new Date().toISOString(), files: ['a.ts', 'b.ts', 'c.ts', 'gen/new.ts'], skipped: [] };
    await writeManifest(manifest);
    await writeFile(join(root, 'c.ts'), 'c0');
    await writeFile(join(root, 'b.ts'), 'edited after the crash');

    expect((await findInterruptedUndos(root)).map((r) => r.runId)).toEqual([applied.runId]);
    await expect(undoRun({ rootDir: root })).rejects.toMatchObject({ code: 'nothing_to_undo' });
    const result = await finishInterruptedUndo({ rootDir: root, runId: applied.runId });
    expect(result).toMatchObject({ restored: ['a.ts'], deleted: ['gen/new.ts'], skipped: ['b.ts'] });
    expect([await read('a.ts'), await read('b.ts'), await read('c.ts')]).toEqual([
      'a0',
      'edited after the crash',
      'c0',
    ]);
    expect((await readdir(root)).sort()).toEqual(['a.ts', 'b.ts', 'c.ts']);
    const [after] = await listRuns(root);
    expect(after).toMatchObject({ status: 'undone', undo: { skipped: ['b.ts'] } });
    expect(after?.undoPlan).toBeUndefined();
    await expect(finishInterruptedUndo({ rootDir: root, runId: applied.runId })).rejects.toMatchObject({
      code: 'run_not_undoing',
    });
  });

  it("a restore that fails midway puts the run's bytes back and leaves the run applied, not undoing", async () => {
    await writeFile(join(root, 'a.ts'), 'a0');
    await writeFile(join(root, 'b.ts'), 'b0');
    const applied = await run('two', { 'a.ts': 'a1', 'b.ts': 'b1' });
    // Corrupt a.ts's pre-image: b.ts (restored first, newest first) is done, then a.ts fails.
    await writeFile(join(applied.runDir, 'pre-0'), 'tampered');
    await expect(undoRun({ rootDir: root })).rejects.toMatchObject({ code: 'journal_corrupt' });
    expect([await read('a.ts'), await read('b.ts')]).toEqual(['a1', 'b1']);
    const [after] = await listRuns(root);
    expect(after?.status).toBe('applied');
    expect(after?.undoPlan).toBeUndefined();
  });

  it("src/ swapped for a symlink to another folder mid-undo: the run's bytes are put back only where undo took them", async () => {
    await mkdir(join(root, 'src'));
    await mkdir(join(root, 'docs'));
    await writeFile(join(root, 'src/a.ts'), 'a0');
    await writeFile(join(root, 'docs/readme.md'), 'docs');
    await run('two', { 'src/a.ts': 'a1', 'src/new.ts': 'new' });
    // src/new.ts is deleted first (newest first); then another process moves src/ aside and links docs/ in its place.
    const error = await undoRun({
      rootDir: root,
      onRestore: (path) => {
        if (path !== 'src/new.ts') return;
        renameSync(join(root, 'src'), join(root, 'src.aside'));
        symlinkSync('docs', join(root, 'src'));
      },
    }).catch((e: unknown) => e as ClawcodeError);
    expect(error).toMatchObject({ code: 'undo_interrupted' });
    expect((await readdir(join(root, 'docs'))).sort()).toEqual(['readme.md']);
    expect((await readdir(join(root, 'src.aside'))).sort()).toEqual(['a.ts']);
    const [after] = await listRuns(root);
    expect(after?.status).toBe('undoing');
  });
});
