import { realpath, unlink } from 'node:fs/promises';
import { resolve } from 'node:path';
import { writeFileDurable } from './durable-write.js';
import { ClawcodeError, IoError } from './errors.js';
import {
  errorMessage, listRuns, readIfExists, readManifest, removeCreatedDirs, resolveInsideRoot, RunNotFoundError,
  runDirFor, sha256, writeManifest, writePreImage, type RunFileRecord, type RunRecord,
} from './journal-store.js';

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
        code: 'run_not_applied', exitCode: 1,
      });
    }
  } else {
    run = (await listRuns(realRoot, options.homeDir)).find((r) => r.status === 'applied');
    if (run === undefined) throw new RunNotFoundError('Nothing to undo: no applied run in this project', { code: 'nothing_to_undo' });
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
 * @throws UndoConflictError (exit 1) files changed since the run and `force` is not set; nothing changed
 * @throws RunNotFoundError / ClawcodeError as {@link previewUndo}
 * @throws IoError (exit 1) a restore failed (the tree is left as it was before the undo)
 */
export async function undoRun(options: UndoOptions): Promise<UndoResult> {
  const { run, restorable, conflicts } = await previewUndo(options);
  if (conflicts.length > 0 && options.force !== true) throw new UndoConflictError(run.runId, conflicts);
  const realRoot = await realpath(resolve(options.rootDir));
  const result: UndoResult = { runId: run.runId, restored: [], deleted: [], skipped: conflicts.map((c) => c.path) };
  const done: { file: RunFileRecord; abs: string; bytes: Buffer }[] = [];
  try {
    for (const file of [...restorable].reverse()) {
      const { abs } = await resolveInsideRoot(realRoot, file.path);
      const bytes = await readIfExists(abs);
      // Re-check right before touching it: the file may have changed since the preview.
      if (bytes === null || sha256(bytes) !== file.afterHash) throw new UndoConflictError(run.runId, [{ path: file.path, kind: bytes === null ? 'deleted' : 'modified' }]);
      if (file.created) {
        await unlink(abs);
        result.deleted.push(file.path);
      } else {
        await writePreImage(run, file, abs);
        result.restored.push(file.path);
      }
      done.push({ file, abs, bytes });
    }
  } catch (cause) {
    for (const { abs, bytes } of done.reverse()) {
      await writeFileDurable(abs, bytes).catch(() => undefined);
    }
    if (cause instanceof ClawcodeError) throw cause;
    throw new IoError(`Could not undo run ${run.runId}: ${errorMessage(cause)}; nothing was changed`, { code: 'undo_failed', cause });
  }
  await removeCreatedDirs(realRoot, run.createdDirs);
  run.status = 'undone';
  run.undo = { at: new Date().toISOString(), restored: [...result.restored, ...result.deleted], skipped: result.skipped };
  await writeManifest(run);
  return result;
}
