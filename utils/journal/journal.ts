import { mkdir, realpath, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { DiskWriteError, fsyncDirs, writeFileDurable, type ChunkWriter } from './durable-write.js';
import { refuseUnwritable } from './writable.js';
import { IoError, PatchApplyError, UsageError } from '../errors.js';
import {
  ensureDir,
  errorMessage,
  isErrno,
  JOURNAL_FILE_MODE,
  listRuns,
  newRunId,
  readIfExists,
  readManifest,
  pruneRuns,
  removeCreatedDirs,
  removeStrayTempFiles,
  resolveInsideRoot,
  runDirFor,
  sha256,
  writeManifest,
  writePreImage,
  type RunRecord,
} from './store.js';

export {
  canonicalRoot,
  listRuns,
  PathEscapeError,
  pruneRuns,
  RunNotFoundError,
  newRunId,
  projectRunsDir,
  resolveInsideRoot,
  type RunFileRecord,
  type RunRecord,
  type RunStatus,
  type RunUndoInfo,
  type RunUndoPlan,
} from './store.js';
export {
  findInterruptedUndos,
  finishInterruptedUndo,
  previewUndo,
  undoRun,
  UndoConflictError,
  type UndoConflict,
  type UndoConflictKind,
  type UndoOptions,
  type UndoPreview,
  type UndoResult,
} from './undo.js';

/** One file a run writes. */
export interface FileChange {
  /** project-relative path with `/` separators */
  path: string;
  /** the bytes the plan was computed from; `null` = the file did not exist (the run creates it) */
  before: Buffer | null;
  /** the new content, written as UTF-8 */
  after: string;
}

/** What a run was for; stored in the manifest and shown by `clawcode history`. */
export interface RunMeta {
  task: string;
  provider?: string;
  model?: string;
  /** a caller-chosen id (must be unique); default: a new time-sortable id */
  runId?: string;
}

/** Options of {@link applyRun}. */
export interface ApplyRunOptions {
  rootDir: string;
  changes: readonly FileChange[];
  meta: RunMeta;
  /** clawcode home (default: `clawcodeHome()`, i.e. `$CLAWCODE_HOME` or `~/.clawcode`) */
  homeDir?: string;
  /** called after each file is durably written (for `write_file` events) */
  onWrite?: (path: string) => void;
  /** journals of this project to keep after a successful run (older ones are pruned); default 100 */
  keepRuns?: number;
  /** the write call used for the project's files (tests inject short writes or ENOSPC); default `handle.write` */
  writeChunk?: ChunkWriter;
}

/** A file changed on disk between planning and writing (its bytes differ from `before`). Exit 3. */
export class StaleFileError extends PatchApplyError {
  readonly paths: string[];
  constructor(paths: string[]) {
    super(`File changed on disk since the plan was made: ${paths.join(', ')}; nothing was written`, {
      code: 'file_changed_since_plan',
      hint: 'Run the task again so the plan is computed from the current files.',
    });
    this.paths = paths;
  }
}

interface Target {
  change: FileChange;
  abs: string;
  rel: string;
  current: Buffer | null;
  mode: number | null;
}

/**
 * Write one run's files all or nothing, journaled first so it can be rolled back or undone.
 *
 * Order (each step durable before the next): resolve every path inside the root; check each file's
 * current bytes equal `before`; save pre-images and the manifest (status `applying`, fsynced) under
 * `<home>/runs/<projectHash>/<runId>/` (owner-only modes); write each file durably (utils/journal/durable-write.ts:
 * temp file, every byte, fsync, size check, rename, folder fsync; the previous mode and group are kept; new files and
 * folders are created), re-checking its bytes just
 * before; then mark the run `applied` and prune journals beyond `keepRuns`. A process killed at any
 * point leaves each file with its old or its new bytes, and the `applying` manifest lets
 * {@link rollbackRun} restore the old state. Does not take the project lock: hold it around the task.
 *
 * @returns the run record (status `applied`), including `runDir`
 * @throws PathEscapeError (exit 3) a path leaves the root; nothing written, nothing journaled
 * @throws StaleFileError (exit 3) a file's bytes are not `before`; nothing written
 * @throws PermissionDeniedError (exit 1) a file is read-only or not writable by this user, or the folder a file
 *         goes in is not writable (utils/journal/writable.ts); nothing written, nothing journaled
 * @throws UsageError (exit 2) no changes, or a path listed twice
 * @throws IoError (exit 1) a write failed; the files already written were restored (status `rolled_back`);
 *         a full disk gives code `disk_full` and the one line "Disk full while writing <path>: nothing was changed"
 * @throws IoError `rollback_failed` (exit 1) a write failed and so did the restore; the run stays `applying`
 */
export async function applyRun(options: ApplyRunOptions): Promise<RunRecord> {
  const { changes, meta } = options;
  if (changes.length === 0)
    throw new UsageError('Nothing to apply: the run has no file changes', { code: 'nothing_to_apply' });
  const realRoot = await realpath(resolve(options.rootDir)).catch((cause: unknown) => {
    throw new IoError(`Project folder ${options.rootDir} is not readable`, { cause });
  });
  const targets = await resolveTargets(realRoot, changes);
  await refuseUnwritable(realRoot, targets);

  const runId = meta.runId ?? newRunId();
  const runDir = runDirFor(realRoot, runId, options.homeDir);
  const now = new Date().toISOString();
  const record: RunRecord = {
    version: 1,
    runId,
    rootDir: realRoot,
    task: meta.task,
    provider: meta.provider,
    model: meta.model,
    createdAt: now,
    updatedAt: now,
    status: 'applying',
    files: [],
    createdDirs: await missingDirs(realRoot, targets),
    runDir,
  };
  await writeJournal(record, targets);
  await writeTargetsOrRestore(realRoot, record, targets, options);
  // Best effort: a failed prune only leaves old journals behind.
  await pruneRuns(realRoot, { keep: options.keepRuns ?? 100, homeDir: options.homeDir }).catch(() => undefined);
  return record;
}

/**
 * Resolve every change inside the root and read what each file holds now (bytes and mode).
 *
 * @throws PathEscapeError a path leaves the root
 * @throws UsageError `duplicate_path` a path is listed twice
 * @throws StaleFileError some files' bytes are not their `before`
 */
async function resolveTargets(realRoot: string, changes: readonly FileChange[]): Promise<Target[]> {
  const targets: Target[] = [];
  const seen = new Set<string>();
  for (const change of changes) {
    const { abs, rel } = await resolveInsideRoot(realRoot, change.path);
    if (seen.has(rel)) throw new UsageError(`The run lists ${rel} twice`, { code: 'duplicate_path' });
    seen.add(rel);
    const current = await readIfExists(abs);
    const mode = current === null ? null : (await stat(abs)).mode & 0o7777;
    targets.push({ change, abs, rel, current, mode });
  }
  const stale = targets.filter((t) => !sameBytes(t.current, t.change.before)).map((t) => t.rel);
  if (stale.length > 0) throw new StaleFileError(stale);
  return targets;
}

/**
 * Save the pre-images of the existing files and the manifest (status `applying`) in `record.runDir`,
 * filling `record.files`. On failure the partial journal is removed.
 *
 * @throws IoError the journal could not be written (code `disk_full` and the like for a full disk); the
 *         project was not touched
 */
async function writeJournal(record: RunRecord, targets: readonly Target[]): Promise<void> {
  const { runDir } = record;
  try {
    await ensureDir(runDir);
    for (const [index, t] of targets.entries()) {
      const preImage = t.current === null ? null : `pre-${index}`;
      if (preImage !== null && t.current !== null) {
        // The manifest's write fsyncs the run folder once for every pre-image.
        await writeFileDurable(join(runDir, preImage), t.current, { mode: JOURNAL_FILE_MODE, syncFolder: false });
      }
      record.files.push({
        path: t.rel,
        beforeHash: t.current === null ? null : sha256(t.current),
        afterHash: sha256(t.change.after),
        created: t.current === null,
        mode: t.mode,
        preImage,
      });
    }
    await writeManifest(record);
  } catch (cause) {
    // No manifest means the tree was never touched: drop the partial journal (it may fill the disk).
    await rm(runDir, { recursive: true, force: true }).catch(() => undefined);
    if (cause instanceof DiskWriteError) {
      throw new IoError(`${cause.problem} while writing the run journal in ${runDir}: nothing was changed`, {
        code: cause.code,
        cause,
      });
    }
    throw new IoError(`Could not write the run journal in ${runDir}: ${errorMessage(cause)}; nothing was written`, {
      cause,
    });
  }
}

/**
 * Write every target durably (re-checking its bytes just before), fsync the folders, and mark the run
 * `applied`. When anything fails, restore the files already written and mark the run `rolled_back`.
 *
 * @throws StaleFileError a file changed since it was read; every file was restored
 * @throws IoError the write failed (code `disk_full` and the like, else `apply_failed`) and every file
 *         was restored, or `rollback_failed` when the restore failed too (the run stays `applying`)
 */
async function writeTargetsOrRestore(
  realRoot: string,
  record: RunRecord,
  targets: readonly Target[],
  options: ApplyRunOptions,
): Promise<void> {
  const startedMs = Date.now();
  let step = 'starting';
  try {
    for (const [index, t] of targets.entries()) {
      step = `writing ${t.rel}`;
      const now = await readIfExists(t.abs);
      if (!sameBytes(now, t.change.before)) throw new StaleFileError([t.rel]);
      await mkdir(dirname(t.abs), { recursive: true });
      await writeFileDurable(t.abs, Buffer.from(t.change.after, 'utf8'), {
        mode: t.mode ?? undefined,
        write: options.writeChunk,
        syncFolder: false,
      });
      options.onWrite?.(record.files[index]?.path ?? t.rel);
    }
    // One fsync per folder makes every rename durable (and new folders' entries in their parents)
    // before the run is marked applied; until then a crash leaves it `applying` for recovery.
    await fsyncDirs([
      ...targets.map((t) => dirname(t.abs)),
      ...record.createdDirs.map((dir) => dirname(join(realRoot, ...dir.split('/')))),
    ]);
    step = 'marking the run applied';
    record.status = 'applied';
    await writeManifest(record);
  } catch (cause) {
    try {
      await restoreRun(realRoot, record, startedMs);
    } catch (rollbackError) {
      throw new IoError(`Failed while ${step} and could not roll back: ${errorMessage(rollbackError)}`, {
        code: 'rollback_failed',
        cause,
        hint: `The journal is kept in ${record.runDir}; the next clawcode start in this project offers to roll it back.`,
      });
    }
    record.status = 'rolled_back';
    record.error = errorMessage(cause);
    // The tree is restored; a manifest that cannot be marked (the home on the same full disk) stays
    // `applying`, and the next start's recovery finds every file already back: a no-op.
    await writeManifest(record).catch(() => undefined);
    if (cause instanceof StaleFileError) throw cause;
    if (cause instanceof DiskWriteError) {
      const rel = targets.find((t) => t.abs === cause.path)?.rel ?? cause.path;
      throw new IoError(`${cause.problem} while writing ${rel}: nothing was changed`, { code: cause.code, cause });
    }
    throw new IoError(`Failed while ${step}: ${errorMessage(cause)}; every file was restored`, {
      code: 'apply_failed',
      cause,
    });
  }
}

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

/** Give every file of a run its pre-image back (or delete it when created), latest file first. */
async function restoreRun(realRoot: string, record: RunRecord, sinceMs: number): Promise<RollbackResult> {
  const result: RollbackResult = { runId: record.runId, restored: [], deleted: [] };
  for (const file of [...record.files].reverse()) {
    const { abs } = await resolveInsideRoot(realRoot, file.path);
    await removeStrayTempFiles(abs, sinceMs);
    if (file.created) {
      try {
        await unlink(abs);
        result.deleted.push(file.path);
      } catch (error) {
        if (!isErrno(error, 'ENOENT') && !isErrno(error, 'ENOTDIR')) throw error;
      }
      continue;
    }
    const current = await readIfExists(abs);
    if (current !== null && sha256(current) === file.beforeHash) continue;
    await writePreImage(record, file, abs, { syncFolder: false });
    result.restored.push(file.path);
  }
  await fsyncDirs(record.files.map((f) => dirname(join(realRoot, ...f.path.split('/')))));
  await removeCreatedDirs(realRoot, record.createdDirs);
  return result;
}

function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  if (a === null || b === null) return a === b;
  return a.equals(b);
}

/** Folders (project-relative) that must be created for the new files, shallowest first. */
async function missingDirs(realRoot: string, targets: readonly Target[]): Promise<string[]> {
  const missing = new Set<string>();
  for (const t of targets) {
    let dir = dirname(t.abs);
    while (dir !== realRoot && dir.startsWith(realRoot + sep)) {
      const exists = await stat(dir).then(
        () => true,
        (error: unknown) => {
          if (isErrno(error, 'ENOENT')) return false;
          return true; // ENOTDIR and friends: the write will fail and roll back; nothing to remove
        },
      );
      if (exists) break;
      missing.add(relative(realRoot, dir).split(sep).join('/'));
      dir = dirname(dir);
    }
  }
  return [...missing].sort((a, b) => a.split('/').length - b.split('/').length);
}
