import { realpath, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { DiskWriteError, fsyncDirs, TargetChangedError, writeFileDurable, type ChunkWriter } from './durable-write.js';
import { guardTarget, writeGuarded, type GuardedTarget } from './guarded-write.js';
import { restoreRun } from './rollback.js';
import { refuseUnwritable } from './writable.js';
import { IoError, PatchApplyError, UsageError } from '../errors.js';
import {
  ensureDir,
  errorMessage,
  JOURNAL_FILE_MODE,
  newRunId,
  PathEscapeError,
  readIfExists,
  pruneRuns,
  runDirFor,
  sha256,
  writeManifest,
  type RunRecord,
} from './store.js';

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
  /** the real location and the folders that lead to it (utils/journal/guarded-write.ts) */
  guard: GuardedTarget;
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
  await refuseUnwritable(
    realRoot,
    targets.map((t) => ({ abs: t.guard.abs, mode: t.mode })),
  );

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
    createdDirs: [
      ...new Set(targets.flatMap((t) => t.guard.missing.map((d) => relative(realRoot, d).split(sep).join('/')))),
    ],
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
    const guarded = await guardTarget(realRoot, change.path);
    if (!guarded.ok) throw new PathEscapeError(change.path, guarded.message);
    const { rel, abs } = guarded.target;
    if (seen.has(rel)) throw new UsageError(`The run lists ${rel} twice`, { code: 'duplicate_path' });
    seen.add(rel);
    const current = await readIfExists(abs);
    const mode = current === null ? null : (await stat(abs)).mode & 0o7777;
    targets.push({ change, guard: guarded.target, rel, current, mode });
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
 * Write every target durably, fsync the folders, and mark the run `applied`. Each write checks that the
 * target's folders are still the vetted ones and, under the target's lock right before the rename, that it
 * still holds the plan's pre-image (another process, even a clawcode with another home, may have written it).
 * When anything fails, restore the files this run wrote and mark the run `rolled_back`.
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
  // The files this run may have written: each one written, and the one in flight unless its compare refused it.
  const written = new Map<string, GuardedTarget>();
  let inFlight: Target | undefined;
  try {
    for (const [index, t] of targets.entries()) {
      step = `writing ${t.rel}`;
      inFlight = t;
      await writeGuarded(t.guard, Buffer.from(t.change.after, 'utf8'), {
        expect: (current) => sameBytes(current, t.change.before),
        mode: t.mode ?? undefined,
        write: options.writeChunk,
        syncFolder: false,
      }).catch((error: unknown) => {
        throw error instanceof TargetChangedError ? new StaleFileError([t.rel]) : error;
      });
      written.set(t.rel, t.guard);
      options.onWrite?.(record.files[index]?.path ?? t.rel);
    }
    inFlight = undefined;
    // One fsync per folder makes every rename durable (and new folders' entries in their parents)
    // before the run is marked applied; until then a crash leaves it `applying` for recovery.
    await fsyncDirs([
      ...targets.map((t) => dirname(t.guard.abs)),
      ...record.createdDirs.map((dir) => dirname(join(realRoot, ...dir.split('/')))),
    ]);
    step = 'marking the run applied';
    record.status = 'applied';
    await writeManifest(record);
  } catch (cause) {
    let left = '';
    try {
      if (inFlight && !(cause instanceof StaleFileError)) written.set(inFlight.rel, inFlight.guard);
      const rolled = await restoreRun(realRoot, record, startedMs, written);
      if (rolled.left.length > 0)
        left = `; ${rolled.left.join(', ')} changed meanwhile and keep the other writer's bytes`;
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
    if (cause instanceof StaleFileError && left === '') throw cause;
    if (cause instanceof DiskWriteError) {
      const rel = targets.find((t) => t.guard.abs === cause.path)?.rel ?? cause.path;
      throw new IoError(`${cause.problem} while writing ${rel}: nothing was changed${left}`, {
        code: cause.code,
        cause,
      });
    }
    throw new IoError(`Failed while ${step}: ${errorMessage(cause)}; every file this run wrote was restored${left}`, {
      code: 'apply_failed',
      cause,
    });
  }
}

function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  if (a === null || b === null) return a === b;
  return a.equals(b);
}
