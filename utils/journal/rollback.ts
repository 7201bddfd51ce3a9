import { dirname, join, resolve } from 'node:path';
import { realpath } from 'node:fs/promises';
import { fsyncDirs, TargetChangedError } from './durable-write.js';
import { guardTarget, readGuarded, unlinkGuarded, type GuardedTarget } from './guarded-write.js';
import { IoError, UsageError } from '../errors.js';
import {
  errorMessage,
  listRuns,
  PathEscapeError,
  readManifest,
  removeCreatedDirs,
  removeStrayTempFiles,
  runDirFor,
  sha256,
  writeManifest,
  writePreImage,
  type RunFileRecord,
  type RunRecord,
} from './store.js';

/**
 * Rolling a run back to the bytes it found: in the process that wrote, when a write fails; at the next start,
 * for a run a dead process left `applying`. Only what the run itself wrote is touched.
 */

/**
 * Runs of a project left in status `applying`: a clawcode process died (or could not roll back)
 * mid-apply, so the tree may be half written. Pass each to {@link rollbackRun} in the returned order.
 *
 * @returns newest first (undoing the latest change first keeps overlapping runs consistent)
 */
export async function findUnfinishedRuns(rootDir: string, homeDir?: string): Promise<RunRecord[]> {
  return (await listRuns(rootDir, homeDir)).filter((run) => run.status === 'applying');
}

/** Result of {@link rollbackRun}. Paths are project-relative. */
export interface RollbackResult {
  runId: string;
  /** files given back their pre-image bytes */
  restored: string[];
  /** files the run had created, now removed */
  deleted: string[];
  /** files that hold neither the run's bytes nor their pre-image (written by someone else since): left alone */
  left: string[];
}

/**
 * Roll an unfinished (`applying`) run back to its pre-images exactly: files it created are deleted,
 * other files get their previous bytes and mode back, folders it created are removed when empty,
 * stray temp files of interrupted writes are cleaned up. Then the run is marked `rolled_back`.
 *
 * @throws RunNotFoundError (exit 1) no such run
 * @throws UsageError (exit 2) the run is not `applying` (use undo for applied runs)
 * @throws IoError (exit 1) a file could not be restored; the run stays `applying` so it can be retried
 */
export async function rollbackRun(options: {
  rootDir: string;
  runId: string;
  homeDir?: string;
}): Promise<RollbackResult> {
  const realRoot = await realpath(resolve(options.rootDir));
  const record = await readManifest(runDirFor(realRoot, options.runId, options.homeDir));
  if (record.status !== 'applying') {
    throw new UsageError(`Run ${record.runId} is ${record.status}, not unfinished`, { code: 'run_not_unfinished' });
  }
  let result: RollbackResult;
  try {
    result = await restoreRun(realRoot, record, Date.parse(record.createdAt));
  } catch (cause) {
    throw new IoError(`Could not roll back run ${record.runId}: ${errorMessage(cause)}`, {
      code: 'rollback_failed',
      cause,
    });
  }
  record.status = 'rolled_back';
  record.error ??= 'interrupted while applying';
  await writeManifest(record);
  return result;
}

/**
 * Give every file this run wrote its pre-image back (or delete it when the run created it), latest file first.
 * Only a file that still holds the run's bytes is touched, through the same guarded write (folders checked,
 * bytes compared under the file's lock): a file another process wrote since keeps that process's bytes.
 *
 * @param attempted  in the process that wrote: the files it tried, each with the target it was written through.
 *        Their folders must still be the ones written into: a folder moved or swapped since throws (the run
 *        stays `applying` for the next start) instead of counting the file as changed by someone else. Absent
 *        after a crash: every file of the run is resolved again.
 * @throws FolderMovedError, PathEscapeError, IoError a file could not be read or restored
 */
export async function restoreRun(
  realRoot: string,
  record: RunRecord,
  sinceMs: number,
  attempted?: ReadonlyMap<string, GuardedTarget>,
): Promise<RollbackResult> {
  const result: RollbackResult = { runId: record.runId, restored: [], deleted: [], left: [] };
  // In the process that wrote, only the files it tried are its own; after a crash, any of them may be.
  for (const file of [...record.files].reverse().filter((f) => attempted?.has(f.path) ?? true)) {
    const target = attempted?.get(file.path) ?? (await resolveGuarded(realRoot, file.path));
    const outcome = await restoreFile(record, file, target, sinceMs);
    if (outcome !== 'unchanged')
      (outcome === 'changed' ? result.left : outcome === 'deleted' ? result.deleted : result.restored).push(file.path);
  }
  await fsyncDirs(record.files.map((f) => dirname(join(realRoot, ...f.path.split('/')))));
  await removeCreatedDirs(realRoot, record.createdDirs);
  return result;
}

/**
 * A run's file resolved for a guarded write (utils/journal/guarded-write.ts).
 *
 * @returns the target, or null when something other than a regular file is at its name now (a folder, a FIFO:
 *          another process put it there, so it is left as it is)
 * @throws PathEscapeError the path policy refuses the path (it leads out of the project, or into a control path)
 */
export async function resolveGuarded(realRoot: string, path: string): Promise<GuardedTarget | null> {
  const verdict = await guardTarget(realRoot, path);
  if (!verdict.ok && verdict.code === 'path_not_file') return null;
  if (!verdict.ok) throw new PathEscapeError(path, verdict.message);
  return verdict.target;
}

/**
 * Restore one file of a run that may have been left half done (a rollback, an undo finished at the next start):
 * stray temp files beside it removed, its bytes read through its held folder, then {@link giveBack}.
 *
 * @param target   the file resolved for a guarded write, or null when something other than a regular file is at
 *                 its name (another process put it there)
 * @param sinceMs  stray temp files modified since then (ms since the epoch) are removed
 * @returns `unchanged` when it already holds its bytes from before the run (never written, or restored before),
 *          `changed` when it holds another writer's bytes (or is not a regular file) and was left, else what was done
 * @throws FolderMovedError, IoError as giveBack
 */
export async function restoreFile(
  run: RunRecord,
  file: RunFileRecord,
  target: GuardedTarget | null,
  sinceMs: number,
): Promise<'unchanged' | 'deleted' | 'restored' | 'changed'> {
  if (!target) return 'changed';
  await removeStrayTempFiles(target, sinceMs);
  const current = await readGuarded(target);
  if ((current === null ? null : sha256(current)) === file.beforeHash) return 'unchanged';
  return giveBack(run, file, target, current);
}

/**
 * Give one file of a run its state from before the run: delete it when the run created it, else write its
 * pre-image back; only while it holds the run's bytes, checked again under its lock (a file someone changed
 * since keeps their bytes).
 *
 * @param current  the file's bytes as just read (`null`: absent)
 * @returns what was done, or `changed` when it holds other bytes and was left alone
 */
export async function giveBack(
  run: RunRecord,
  file: RunFileRecord,
  target: GuardedTarget,
  current: Buffer | null,
): Promise<'deleted' | 'restored' | 'changed'> {
  const ours = (bytes: Buffer | null): boolean => bytes !== null && sha256(bytes) === file.afterHash;
  try {
    if (!ours(current)) return 'changed';
    if (file.created) return (await unlinkGuarded(target, ours)) ? 'deleted' : 'changed';
    await writePreImage(run, file, target, ours);
    return 'restored';
  } catch (error) {
    if (error instanceof TargetChangedError) return 'changed';
    throw error;
  }
}
