import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { undoRun } from '../../../utils/journal/undo.js';
import { findUnfinishedRuns, rollbackRun } from '../../../utils/journal/rollback.js';
import { listRuns } from '../../../utils/journal/store.js';
import { runKillableChild, snapshotTree, writeManyFiles } from '../../support/kill-child.js';

const cleanup: string[] = [];

beforeEach(async () => {
  const home = await mkdtemp(join(tmpdir(), 'cc-kill-env-'));
  cleanup.push(home);
  vi.stubEnv('CLAWCODE_HOME', home);
});

afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

interface Fixture {
  root: string;
  home: string;
  changesPath: string;
  oldFiles: Map<string, Buffer>;
  newFiles: Map<string, string>;
}

/** 40 existing files (one executable, one binary) changed and 20 new files in new folders. */
async function makeFixture(): Promise<Fixture> {
  const root = await mkdtemp(join(tmpdir(), 'cc-kill-root-'));
  const home = await mkdtemp(join(tmpdir(), 'cc-kill-home-'));
  cleanup.push(root, home);
  const { oldFiles, newFiles } = await writeManyFiles(root);
  const changes = [...newFiles].map(([path, after]) => ({
    path,
    before: oldFiles.get(path)?.toString('base64') ?? null,
    after,
  }));
  const changesPath = join(home, 'changes.json');
  await writeFile(changesPath, JSON.stringify(changes));
  return { root, home, changesPath, oldFiles, newFiles };
}

/** Run the apply child on the fixture; kill it as `kill` says, or let it finish. */
const runChild = (fx: Fixture, kill?: { afterWrites: number; delayMs: number }) =>
  runKillableChild(
    'journal-apply-child.ts',
    [fx.root, fx.home, fx.changesPath],
    kill && { marker: 'wrote ', count: kill.afterWrites, delayMs: kill.delayMs },
  );

describe('a many-file run killed with SIGKILL', () => {
  it('leaves each file old or new, and recovery (or undo) restores the old tree exactly', async () => {
    // Calibrate: how long a full apply of this fixture takes here, so kills land inside it.
    const calibration = await makeFixture();
    const before = await snapshotTree(calibration.root);
    const full = await runChild(calibration);
    expect(full.killed).toBe(false);
    for (const [path, text] of calibration.newFiles)
      expect(await readFile(join(calibration.root, path), 'utf8')).toBe(text);
    await undoRun({ rootDir: calibration.root, homeDir: calibration.home });
    expect(await snapshotTree(calibration.root)).toEqual(before);
    const applyMs = Math.max(full.ms ?? 50, 5);

    const outcomes: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const fx = await makeFixture();
      const original = await snapshotTree(fx.root);
      // Odd iterations aim anywhere in the run (a random time after "ready"); even ones aim into the
      // write phase, right after a random file, where the tree is half written. Counting writes
      // instead of ms keeps the aim true however loaded the machine is.
      const kill =
        i % 2 === 0
          ? { afterWrites: 1 + Math.floor(Math.random() * (fx.newFiles.size - 10)), delayMs: 0 }
          : { afterWrites: 0, delayMs: Math.floor(Math.random() * applyMs * 1.2) };
      const where = `kill ${kill.delayMs} ms after write ${kill.afterWrites}`;
      const { killed } = await runChild(fx, kill);

      // Every file holds either its old bytes or its new bytes, never a mix or a truncation.
      for (const [path, after] of fx.newFiles) {
        const now = await readFile(join(fx.root, path)).catch(() => null);
        const old = fx.oldFiles.get(path) ?? null;
        const isOld = now === null ? old === null : old !== null && now.equals(old);
        const isNew = now !== null && now.toString('utf8') === after;
        expect(isOld || isNew, `${path} after ${where}`).toBe(true);
      }

      const unfinished = await findUnfinishedRuns(fx.root, fx.home);
      for (const run of unfinished) await rollbackRun({ rootDir: fx.root, runId: run.runId, homeDir: fx.home });
      const runs = await listRuns(fx.root, fx.home);
      const applied = runs.find((r) => r.status === 'applied');
      if (applied) await undoRun({ rootDir: fx.root, homeDir: fx.home });
      outcomes.push(
        !killed ? 'finished' : unfinished.length > 0 ? 'mid-apply' : applied ? 'after-apply' : 'before-journal',
      );
      expect(await snapshotTree(fx.root), `tree after recovery, ${where}`).toEqual(original);
    }
    // Kills must land mid-apply; a run of only clean finishes would prove little.
    expect(outcomes, outcomes.join(', ')).toContain('mid-apply');
  }, 60_000);
});
