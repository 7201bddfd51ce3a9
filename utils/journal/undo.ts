import { realpath } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { DiskWriteError, fsyncDirs } from './durable-write.js';
import { readGuarded, writeGuarded, type GuardedTarget } from './guarded-write.js';
import { giveBack, resolveGuarded, restoreFile } from './rollback.js';
import { ClawcodeError, IoError, UsageError } from '../errors.js';
import {
  errorMessage,
  listRuns,
  readIfExists,
  readManifest,
  removeCreatedDirs,
  resolveInsideRoot,
  RunNotFoundError,
  runDirFor,
  sha256,
  writeManifest,
  type RunFileRecord,
  type RunRecord,
} from './store.js';

/** How a file of a run differs from what the run wrote. */
export type UndoConflictKind = 'modified' | 'deleted';

/** A file that changed since the run, so undo would destroy someone's later edit. */
export interface UndoConflict {
  path: string;
  kind: UndoConflictKind;
}

/** What undoing a run would do, computed without touching anything. */
export interface UndoPreview {
  run: RunRecord;
  /** files still holding exactly the bytes the run wrote (safe to restore) */
  restorable: RunFileRecord[];
  /** files changed since the run: undo refuses, or with `force` leaves them alone */
  conflicts: UndoConflict[];
}

/** Result of {@link undoRun}. Paths are project-relative. */
export interface UndoResult {
  runId: string;
  /** files given their previous bytes back */
  restored: string[];
  /** files the run had created, now removed */
  deleted: string[];
  /** files left alone because they changed since the run (only with `force`) */
  skipped: string[];
}

/** Undo refused: files changed since the run. `conflicts` lists them. Exit 1. */
export class UndoConflictError extends ClawcodeError {
  readonly conflicts: UndoConflict[];
  constructor(runId: string, conflicts: UndoConflict[]) {
    const list = conflicts.map((c) => `${c.path} (${c.kind})`).join(', ');
    super(`Cannot undo run ${runId}: files changed since it ran: ${list}`, {
      code: 'undo_conflict',
      exitCode: 1,
      hint: 'Use --force to restore only the files that did not change since the run.',
    });
    this.conflicts = conflicts;
  }
}

/** Options of {@link previewUndo} and {@link undoRun}. */
export interface UndoOptions {
  rootDir: string;
  /** the run to undo; default: the newest run whose status is `applied` */
  runId?: string;
  /** restore the untouched files even when others changed since the run */
  force?: boolean;
  homeDir?: string;
  /** called after each file is restored or deleted (project-relative path); tests aim kills with it */
  onRestore?: (path: string) => void;
}

/**
 * Find the run to undo and compare every file with the bytes the run wrote (its `afterHash`).
 *
 * @throws RunNotFoundError (exit 1) no such run, or no applied run to undo (code `nothing_to_undo`)
 * @throws ClawcodeError `run_not_applied` (exit 1) the named run is not `applied`
 */
export async function previewUndo(options: UndoOptions): Promise<UndoPreview> {
  const realRoot = await realpath(resolve(options.rootDir)).catch((cause: unknown) => {
    throw new IoError(`Project folder ${options.rootDir} is not readable`, { cause });
  });
  let run: RunRecord | undefined;
  if (options.runId !== undefined) {
    run = await readManifest(runDirFor(realRoot, options.runId, options.homeDir)).catch((cause: unknown) => {
      throw new RunNotFoundError(`No run ${options.runId} in this project`, { cause, hint: 'See `clawcode history`.' });
    });
    if (run.status !== 'applied') {
      throw new ClawcodeError(`Run ${run.runId} is ${run.status.replace('_', ' ')}; only applied runs can be undone`, {
        code: 'run_not_applied',
        exitCode: 1,
      });
    }
  } else {
    run = (await listRuns(realRoot, options.homeDir)).find((r) => r.status === 'applied');
    if (run === undefined)
      throw new RunNotFoundError('Nothing to undo: no applied run in this project', { code: 'nothing_to_undo' });
  }
  const restorable: RunFileRecord[] = [];
  const conflicts: UndoConflict[] = [];
  for (const file of run.files) {
    const { abs } = await resolveInsideRoot(realRoot, file.path);
    const current = await readIfExists(abs);
    if (current === null) conflicts.push({ path: file.path, kind: 'deleted' });
    else if (sha256(current) !== file.afterHash) conflicts.push({ path: file.path, kind: 'modified' });
    else restorable.push(file);
  }
  return { run, restorable, conflicts };
}

/**
 * Undo an applied run: files it modified get their journaled previous bytes (and mode) back, files it
 * created are deleted, folders it created are removed when empty; the run is marked `undone`.
 * Every file must still hold exactly the bytes the run wrote; otherwise the undo is refused, or with
 * `force` only the untouched files are restored. If a restore fails midway, the files already
 * restored get the run's bytes back, so undo is all or nothing too.
 *
 * Crash safety: before touching a file, the manifest is durably marked `undoing` with the list of
 * files to restore. A process killed halfway leaves each file whole (old or new bytes, see
 * utils/journal/durable-write.ts), and {@link finishInterruptedUndo} completes the undo at the next start:
 * the pre-images are in the journal, while the run's bytes are not, so finishing is the way back to
 * one consistent state (the one the person asked for).
 *
 * @throws UndoConflictError (exit 1) files changed since the run and `force` is not set; nothing changed
 * @throws RunNotFoundError / ClawcodeError as {@link previewUndo}
 * @throws IoError (exit 1) a restore failed (the tree is left as it was before the undo); a full disk gives
 *         code `disk_full` and "Disk full while undoing <path>: nothing was changed"
 * @throws IoError `undo_interrupted` (exit 1) a restore failed and so did putting the run's bytes back;
 *         the run stays `undoing` and the next start finishes it
 */
export async function undoRun(options: UndoOptions): Promise<UndoResult> {
  const { run, restorable, conflicts } = await previewUndo(options);
  if (conflicts.length > 0 && options.force !== true) throw new UndoConflictError(run.runId, conflicts);
  const realRoot = await realpath(resolve(options.rootDir));
  const result: UndoResult = { runId: run.runId, restored: [], deleted: [], skipped: conflicts.map((c) => c.path) };
  run.status = 'undoing';
  run.undoPlan = { at: new Date().toISOString(), files: restorable.map((f) => f.path), skipped: result.skipped };
  await writeManifest(run);
  const done: { file: RunFileRecord; bytes: Buffer; target: GuardedTarget }[] = [];
  let step = '';
  try {
    for (const file of [...restorable].reverse()) {
      step = file.path;
      const target = await resolveGuarded(realRoot, file.path);
      if (!target) throw new UndoConflictError(run.runId, [{ path: file.path, kind: 'modified' }]);
      // The file must still hold the run's bytes, checked right before it is touched, under its lock.
      const bytes = await readGuarded(target);
      const outcome = await giveBack(run, file, target, bytes);
      if (outcome === 'changed' || bytes === null)
        throw new UndoConflictError(run.runId, [{ path: file.path, kind: bytes === null ? 'deleted' : 'modified' }]);
      (outcome === 'deleted' ? result.deleted : result.restored).push(file.path);
      done.push({ file, bytes, target });
      options.onRestore?.(file.path);
    }
  } catch (cause) {
    // Put the run's bytes back (they are in memory) through the target each was taken from (a folder moved or
    // swapped since fails, and the run stays `undoing`); only when that worked is the run `applied` again.
    let reverted = true;
    for (const { bytes, file, target } of done.reverse()) {
      const back = (current: Buffer | null): boolean =>
        file.created ? current === null : current !== null && sha256(current) === file.beforeHash;
      await writeGuarded(target, bytes, { expect: back, mode: file.mode ?? undefined }).catch(() => {
        reverted = false;
      });
    }
    if (reverted) {
      run.status = 'applied';
      delete run.undoPlan;
      reverted = await writeManifest(run).then(
        () => true,
        () => false,
      );
    }
    if (!reverted) {
      // The manifest still says `undoing` (or could not say otherwise): recovery will finish the undo.
      throw new IoError(
        `Could not undo run ${run.runId} (${errorMessage(cause)}) nor put it back as it was; ` +
          'the next clawcode start in this project finishes the undo',
        { code: 'undo_interrupted', cause },
      );
    }
    if (cause instanceof DiskWriteError) {
      throw new IoError(`${cause.problem} while undoing ${step}: nothing was changed`, { code: cause.code, cause });
    }
    if (cause instanceof ClawcodeError) throw cause;
    throw new IoError(`Could not undo run ${run.runId}: ${errorMessage(cause)}; nothing was changed`, {
      code: 'undo_failed',
      cause,
    });
  }
  await markUndone(realRoot, run, result);
  return result;
}

/** fsync the folders of the restored files once each, remove empty created folders, durably mark the run `undone`. */
async function markUndone(realRoot: string, run: RunRecord, result: UndoResult): Promise<void> {
  await fsyncDirs(run.files.map((f) => dirname(join(realRoot, ...f.path.split('/')))));
  await removeCreatedDirs(realRoot, run.createdDirs);
  run.status = 'undone';
  run.undo = {
    at: new Date().toISOString(),
    restored: [...result.restored, ...result.deleted],
    skipped: result.skipped,
  };
  delete run.undoPlan;
  await writeManifest(run);
}

/**
 * Runs of a project whose `clawcode undo` was stopped halfway (status `undoing`), newest first.
 * Pass each to {@link finishInterruptedUndo}.
 */
export async function findInterruptedUndos(rootDir: string, homeDir?: string): Promise<RunRecord[]> {
  return (await listRuns(rootDir, homeDir)).filter((run) => run.status === 'undoing');
}

/**
 * Finish an undo that was stopped halfway: every file of its undo plan that still holds the run's
 * bytes gets its pre-image back (or is deleted when the run created it); files already restored are
 * left as they are; a file holding anything else (edited since) is left alone and listed in
 * `skipped`; temp files the stopped process left beside them are removed. Then the run is marked
 * `undone`. Safe to repeat: a second call finds nothing to do.
 *
 * @returns what was restored now (`restored`, `deleted`) and what was left alone (`skipped`)
 * @throws RunNotFoundError (exit 1) no such run
 * @throws UsageError (exit 2) the run is not `undoing`
 * @throws IoError (exit 1) a file could not be restored; the run stays `undoing` so it can be retried
 */
export async function finishInterruptedUndo(options: {
  rootDir: string;
  runId: string;
  homeDir?: string;
}): Promise<UndoResult> {
  const realRoot = await realpath(resolve(options.rootDir));
  const run = await readManifest(runDirFor(realRoot, options.runId, options.homeDir));
  if (run.status !== 'undoing' || run.undoPlan === undefined) {
    throw new UsageError(`Run ${run.runId} is ${run.status}, not an interrupted undo`, { code: 'run_not_undoing' });
  }
  const planned = new Set(run.undoPlan.files);
  const result: UndoResult = { runId: run.runId, restored: [], deleted: [], skipped: [...run.undoPlan.skipped] };
  try {
    for (const file of [...run.files].reverse()) {
      if (!planned.has(file.path)) continue;
      const target = await resolveGuarded(realRoot, file.path);
      // `unchanged`: restored before the stop (a created file already deleted).
      const outcome = await restoreFile(run, file, target, Date.parse(run.undoPlan.at));
      if (outcome !== 'unchanged')
        (outcome === 'changed' ? result.skipped : outcome === 'deleted' ? result.deleted : result.restored).push(
          file.path,
        );
    }
  } catch (cause) {
    throw new IoError(`Could not finish undoing run ${run.runId}: ${errorMessage(cause)}`, {
      code: 'undo_failed',
      cause,
    });
  }
  await markUndone(realRoot, run, result);
  return result;
}
