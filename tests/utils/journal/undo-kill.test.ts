import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { recoverUnfinishedRuns } from '../../../cli/recover.js';
import { applyRun, type FileChange } from '../../../utils/journal/journal.js';
import { undoRun } from '../../../utils/journal/undo.js';
import { listRuns } from '../../../utils/journal/store.js';
import { runKillableChild, snapshotTree, writeManyFiles } from '../../support/kill-child.js';

// `clawcode undo` killed with SIGKILL at random points: after the next start's recovery every tree is
// either fully undone or exactly as before the undo, and a following undo works.

const cleanup: string[] = [];

beforeEach(async () => {
  const home = await mkdtemp(join(tmpdir(), 'cc-undo-kill-env-'));
  cleanup.push(home);
  vi.stubEnv('CLAWCODE_HOME', home);
});

afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

interface Fixture {
  root: string;
  home: string;
  /** the tree before any run, after the small first run, and after the big second run */
  original: Map<string, string>;
  afterFirst: Map<string, string>;
  afterSecond: Map<string, string>;
  oldFiles: Map<string, Buffer>;
  newFiles: Map<string, string>;
}

/** A first run changing base.ts, then a second run changing 40 files and creating 20 in new folders. */
async function makeFixture(): Promise<Fixture> {
  const root = await mkdtemp(join(tmpdir(), 'cc-undo-kill-root-'));
  const home = await mkdtemp(join(tmpdir(), 'cc-undo-kill-home-'));
  cleanup.push(root, home);
  await writeFile(join(root, 'base.ts'), 'export const base = 0;\n');
  const { oldFiles, newFiles } = await writeManyFiles(root);
  const original = await snapshotTree(root);
  await applyRun({
    rootDir: root,
    homeDir: home,
    meta: { task: 'first' },
    changes: [{ path: 'base.ts', before: Buffer.from('export const base = 0;\n'), after: 'export const base = 1;\n' }],
  });
  const afterFirst = await snapshotTree(root);
  const changes: FileChange[] = [...newFiles].map(([path, after]) => ({
    path,
    before: oldFiles.get(path) ?? null,
    after,
  }));
  await applyRun({ rootDir: root, homeDir: home, changes, meta: { task: 'second' } });
  const afterSecond = await snapshotTree(root);
  return { root, home, original, afterFirst, afterSecond, oldFiles, newFiles };
}

/** Run the undo child on the fixture; kill it as `kill` says, or let it finish. */
const runUndoChild = (fx: Fixture, kill?: { afterRestores: number; delayMs: number }) =>
  runKillableChild(
    'journal-undo-child.ts',
    [fx.root, fx.home],
    kill && { marker: 'restored ', count: kill.afterRestores, delayMs: kill.delayMs },
  );

describe('an undo killed with SIGKILL', () => {
  it('leaves each file whole; the next start finishes it, so the tree is fully undone or untouched, and undo works after', async () => {
    const calibration = await makeFixture();
    const full = await runUndoChild(calibration);
    expect(full.killed).toBe(false);
    expect(await snapshotTree(calibration.root)).toEqual(calibration.afterFirst);
    const undoMs = Math.max(full.ms ?? 50, 5);

    const outcomes: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const fx = await makeFixture();
      const kill =
        i % 2 === 0
          ? { afterRestores: 1 + Math.floor(Math.random() * (fx.newFiles.size - 10)), delayMs: 0 }
          : { afterRestores: 0, delayMs: Math.floor(Math.random() * undoMs * 1.2) };
      const where = `kill ${kill.delayMs} ms after restore ${kill.afterRestores}`;
      const { killed } = await runUndoChild(fx, kill);

      for (const [path, after] of fx.newFiles) {
        const now = await readFile(join(fx.root, path)).catch(() => null);
        const old = fx.oldFiles.get(path) ?? null;
        const isOld = now === null ? old === null : old !== null && now.equals(old);
        const isNew = now !== null && now.toString('utf8') === after;
        expect(isOld || isNew, `${path} after ${where}`).toBe(true);
      }

      const interrupted = (await listRuns(fx.root, fx.home)).some((r) => r.status === 'undoing');
      const recovered = await recoverUnfinishedRuns({ rootDir: fx.root, homeDir: fx.home });
      expect(recovered.finishedUndos.length, where).toBe(interrupted ? 1 : 0);
      const tree = await snapshotTree(fx.root);
      const fullyUndone = JSON.stringify([...tree]) === JSON.stringify([...fx.afterFirst]);
      const untouched = JSON.stringify([...tree]) === JSON.stringify([...fx.afterSecond]);
      expect(fullyUndone || untouched, `tree after recovery, ${where}`).toBe(true);
      expect((await listRuns(fx.root, fx.home)).map((r) => r.status)).toEqual([
        fullyUndone ? 'undone' : 'applied',
        'applied',
      ]);
      outcomes.push(!killed ? 'finished' : interrupted ? 'mid-undo' : fullyUndone ? 'after-undo' : 'before-journal');

      // A following undo works: it takes the next applied run.
      await undoRun({ rootDir: fx.root, homeDir: fx.home });
      expect(await snapshotTree(fx.root), where).toEqual(fullyUndone ? fx.original : fx.afterFirst);
    }
    expect(outcomes, outcomes.join(', ')).toContain('mid-undo');
  }, 90_000);
});
