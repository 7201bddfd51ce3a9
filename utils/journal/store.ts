import { createHash, randomBytes } from 'node:crypto';
import { lstat, readdir, readFile, realpath, rm, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { clawcodeHome } from '../home.js';
import { getProjectHash } from '../project-hash.js';
import { TEMP_FILE_PATTERN, writeFileDurable } from './durable-write.js';
import { inTargetFolder, removeFolderInside, writeGuarded, type GuardedTarget } from './guarded-write.js';
import { isProcessAlive } from './process-identity.js';
import { FILE_LOCK_SUFFIX, isStaleLock } from './file-lock.js';
import { ClawcodeError, IoError, PatchApplyError } from '../errors.js';
import { isControlPath, resolveProjectPath } from '../policy/paths.js';
import { readRegularFile } from '../regular-file.js';
import { makeDirs } from '../make-dirs.js';

/**
 * Life of a run: `applying` (manifest and pre-images are durable, the tree may be half written),
 * `applied` (every file has its new bytes), `rolled_back` (a failed or interrupted apply was
 * restored), `undoing` (`clawcode undo` journaled the files it is restoring in `undoPlan` and may have
 * been stopped halfway), `undone` (`clawcode undo` restored the previous bytes).
 */
export type RunStatus = 'applying' | 'applied' | 'rolled_back' | 'undoing' | 'undone';

/** One file of a run as journaled. Hashes are lowercase hex SHA-256 of the raw bytes. */
export interface RunFileRecord {
  /** project-relative path with `/` separators */
  path: string;
  /** hash of the bytes before the run, `null` when the run created the file */
  beforeHash: string | null;
  /** hash of the bytes the run wrote (UTF-8 of `FileChange.after`) */
  afterHash: string;
  /** true when the file did not exist before the run */
  created: boolean;
  /** permission bits of the previous file (`stat.mode & 0o7777`), `null` for created files */
  mode: number | null;
  /** name of the pre-image file inside the run folder, `null` for created files */
  preImage: string | null;
}

/** What `clawcode undo` did to a run (kept in the manifest for history). */
export interface RunUndoInfo {
  at: string;
  restored: string[];
  skipped: string[];
}

/**
 * What an undo in progress is about to do, made durable (status `undoing`) before it touches a file,
 * so an undo stopped halfway can be finished at the next start. Paths are project-relative.
 */
export interface RunUndoPlan {
  /** ISO-8601 time the undo started */
  at: string;
  /** files to give their pre-run bytes back (or delete, when the run created them) */
  files: string[];
  /** files left alone because they changed since the run (`--force`) */
  skipped: string[];
}

/** The manifest of one run, as stored in `<runDir>/manifest.json` (plus `runDir`, computed on read). */
export interface RunRecord {
  version: 1;
  /** sortable id: UTC time to the millisecond, then a process counter and random hex */
  runId: string;
  /** absolute project root the paths are relative to */
  rootDir: string;
  task: string;
  provider?: string;
  model?: string;
  /** ISO-8601 times */
  createdAt: string;
  updatedAt: string;
  status: RunStatus;
  files: RunFileRecord[];
  /** folders the run created (project-relative), so a rollback leaves no empty folders behind */
  createdDirs: string[];
  /** last error message when the run was rolled back */
  error?: string;
  undo?: RunUndoInfo;
  /** present while status is `undoing` */
  undoPlan?: RunUndoPlan;
  /** absolute path of the run folder (not stored; filled in on read) */
  runDir: string;
}

/** A path that would land outside the project root (`..`, absolute, or through a symlink). Exit 3. */
export class PathEscapeError extends PatchApplyError {
  readonly path: string;
  constructor(path: string, why: string) {
    super(`Refusing to write ${JSON.stringify(path)}: ${why}; nothing was written`, {
      code: 'path_escape',
      hint: 'Plans may only touch files inside the project folder.',
    });
    this.path = path;
  }
}

/** The journal folder of a run is missing or its manifest is unreadable. Exit 1. */
export class RunNotFoundError extends ClawcodeError {
  constructor(message: string, options: { code?: string; hint?: string; cause?: unknown } = {}) {
    super(message, { code: options.code ?? 'run_not_found', exitCode: 1, hint: options.hint, cause: options.cause });
  }
}

const runFileSchema = z.object({
  path: z.string(),
  beforeHash: z.string().nullable(),
  afterHash: z.string(),
  created: z.boolean(),
  mode: z.number().int().nullable(),
  // A file name inside the run folder (`pre-0`): a manifest naming a path elsewhere is corrupt, never followed.
  preImage: z
    .string()
    .regex(/^[^/\\\0]+$/)
    .refine((name) => name !== '.' && name !== '..')
    .nullable(),
});

const manifestSchema = z.object({
  version: z.literal(1),
  runId: z.string(),
  rootDir: z.string(),
  task: z.string(),
  provider: z.string().optional(),
  model: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  status: z.enum(['applying', 'applied', 'rolled_back', 'undoing', 'undone']),
  files: z.array(runFileSchema),
  createdDirs: z.array(z.string()),
  error: z.string().optional(),
  undo: z.object({ at: z.string(), restored: z.array(z.string()), skipped: z.array(z.string()) }).optional(),
  undoPlan: z.object({ at: z.string(), files: z.array(z.string()), skipped: z.array(z.string()) }).optional(),
});

/** Lowercase hex SHA-256 of some bytes (strings are hashed as UTF-8). */
export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

let runCounter = 0;

/**
 * A new run id that sorts by creation time: `20261122T023512345Z-0001a1b2c3` (UTC to the ms,
 * a per-process counter so ids made in the same millisecond keep their order, 3 random bytes).
 */
export function newRunId(nowMs: number = Date.now()): string {
  const stamp = new Date(nowMs).toISOString().replace(/[-:]/g, '').replace('.', '');
  runCounter = (runCounter + 1) % 0x10000;
  return `${stamp}-${runCounter.toString(16).padStart(4, '0')}${randomBytes(3).toString('hex')}`;
}

/**
 * The project root as used for hashing: its real path (symlinks resolved) when it exists, else the
 * resolved path. Two spellings of one folder (a symlinked alias, macOS `/tmp`) share runs and lock.
 */
export async function canonicalRoot(rootDir: string): Promise<string> {
  return realpath(resolve(rootDir)).catch(() => resolve(rootDir));
}

/** `<home>/runs/<projectHash>`: where the runs of one project live; `rootDir` as {@link canonicalRoot} gives it. */
function projectRunsDir(rootDir: string, homeDir?: string): string {
  return join(homeDir ?? clawcodeHome(), 'runs', getProjectHash(rootDir));
}

/** `<home>/runs/<projectHash>/<runId>`. */
export function runDirFor(rootDir: string, runId: string, homeDir?: string): string {
  if (!/^[0-9A-Za-z._-]+$/.test(runId) || runId.startsWith('.')) {
    throw new RunNotFoundError(`Not a run id: ${JSON.stringify(runId)}`, { code: 'bad_run_id' });
  }
  return join(projectRunsDir(rootDir, homeDir), runId);
}

/**
 * Write the manifest atomically and durably (utils/journal/durable-write.ts: every byte written, fsync, rename,
 * folder fsync), readable by the owner only (0600).
 * @throws DiskWriteError / IoError (exit 1) as writeFileDurable
 */
export async function writeManifest(record: RunRecord): Promise<void> {
  const { runDir, ...stored } = record;
  stored.updatedAt = new Date().toISOString();
  record.updatedAt = stored.updatedAt;
  const text = `${JSON.stringify(stored, null, 2)}\n`;
  await writeFileDurable(join(runDir, 'manifest.json'), text, { mode: JOURNAL_FILE_MODE });
}

/** Most bytes of a manifest: a record per file of the run, a few hundred bytes each. */
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

/** Permission bits of journal files (manifests and pre-images can hold secrets): owner only. */
export const JOURNAL_FILE_MODE = 0o600;
/** Permission bits of folders clawcode creates under its home: owner only. */
const PRIVATE_DIR_MODE = 0o700;

/**
 * Read and validate one run manifest.
 * @throws RunNotFoundError when the folder has no readable, valid manifest
 */
export async function readManifest(runDir: string): Promise<RunRecord> {
  // As every journal file: a regular file only, never through a symlink, never blocking on a FIFO.
  const read = await readRegularFile(join(runDir, 'manifest.json'), MAX_MANIFEST_BYTES);
  if (!read) throw new RunNotFoundError(`No run journal at ${runDir}`);
  if (read.truncated) throw new RunNotFoundError(`Corrupt run manifest at ${runDir}`, { code: 'run_manifest_corrupt' });
  const raw = read.bytes.toString('utf8');
  let parsed;
  try {
    parsed = manifestSchema.parse(JSON.parse(raw));
  } catch (cause) {
    throw new RunNotFoundError(`Corrupt run manifest at ${runDir}`, { code: 'run_manifest_corrupt', cause });
  }
  return { ...parsed, runDir };
}

/**
 * Every readable run of a project, newest first. Folders without a valid manifest (a run that died
 * while saving pre-images, before it touched the tree) are skipped.
 */
export async function listRuns(rootDir: string, homeDir?: string): Promise<RunRecord[]> {
  const dir = projectRunsDir(await canonicalRoot(rootDir), homeDir);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const runs: RunRecord[] = [];
  for (const name of names.sort().reverse()) {
    try {
      runs.push(await readManifest(join(dir, name)));
    } catch {
      // skipped on purpose: see docstring
    }
  }
  return runs;
}

/**
 * Delete old journals of a project so `~/.clawcode/runs` does not grow without end: keeps the
 * `keep` newest runs (any status) and every `applying` or `undoing` run (recovery needs it), and removes folders
 * without a manifest (a run that died before touching the tree) once older than `orphanAgeMs`.
 *
 * @param keep  runs to keep, >= 1; `undo` can only reach runs that are kept
 * @returns the removed folder names
 */
export async function pruneRuns(
  rootDir: string,
  options: { keep: number; homeDir?: string; orphanAgeMs?: number },
): Promise<string[]> {
  const dir = projectRunsDir(await canonicalRoot(rootDir), options.homeDir);
  const names = (await readdir(dir).catch(() => [] as string[])).sort().reverse();
  const removed: string[] = [];
  let kept = 0;
  for (const name of names) {
    const runDir = join(dir, name);
    const run = await readManifest(runDir).catch(() => null);
    let remove: boolean;
    if (run === null) {
      const info = await stat(runDir).catch(() => null);
      remove = info !== null && info.isDirectory() && Date.now() - info.mtimeMs > (options.orphanAgeMs ?? 10 * 60_000);
    } else {
      kept += 1;
      remove = run.status !== 'applying' && run.status !== 'undoing' && kept > Math.max(1, options.keep);
    }
    if (remove) {
      await rm(runDir, { recursive: true, force: true });
      removed.push(name);
    }
  }
  return removed;
}

/** Current bytes of a file, or `null` when it does not exist. */
export async function readIfExists(abs: string): Promise<Buffer | null> {
  try {
    return await readFile(abs);
  } catch (error) {
    // ENOTDIR: a parent is a file, so this file cannot exist (writing it will fail and roll back).
    if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) return null;
    throw new IoError(`Could not read ${abs}: ${errorMessage(error)}`, { cause: error });
  }
}

/** True when `error` is a Node system error with this `code`. */
function isErrno(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

/** The message of anything thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Resolve a project-relative path to the absolute path to write with the path policy
 * (utils/policy/paths.ts): every way out of the root (absolute, `~`, drive paths, `..`, symlinks whose
 * real location is outside), control, secret and binary paths, folders and FIFOs are refused.
 * This is defence in depth; utils/policy/plan-check.ts vets plans with the same policy before review.
 *
 * @returns `{ abs, rel }`: absolute path under the real root and the normalized `/` path
 * @throws PathEscapeError (exit 3)
 */
export async function resolveInsideRoot(rootDir: string, path: string): Promise<{ abs: string; rel: string }> {
  let realRoot: string;
  try {
    realRoot = await realpath(resolve(rootDir));
  } catch (cause) {
    throw new IoError(`Project folder ${rootDir} is not readable`, { cause });
  }
  // The one path policy decides (outside, control, secret, binary, not a regular file), as for plan checks.
  const verdict = await resolveProjectPath(realRoot, path);
  if (!verdict.ok) throw new PathEscapeError(path, verdict.message);
  return { abs: verdict.abs, rel: verdict.rel };
}

/**
 * Remove the temp files a durable write leaves beside a target when a process is killed between
 * creating and renaming them (`<name>.<pid>-<hex>.cctmp`); only ones modified since `sinceMs`, and only this
 * process's or a dead one's: the temp file of
 * another live writer (a second clawcode on the same project) is its own. A lock file left by a dead writer
 * (utils/journal/file-lock.ts) goes too.
 */
export async function removeStrayTempFiles(target: GuardedTarget, sinceMs: number): Promise<void> {
  // The target is the file's real location (a symlinked file was followed when it was resolved), so its
  // temp files sit beside it; they are listed and removed through its folder held open, never through a path a
  // folder swapped for a symlink could lead out of the project.
  if (target.missing.length > 0) return;
  await inTargetFolder(target, (file) => removeTempFilesBeside(file, sinceMs));
}

async function removeTempFilesBeside(abs: string, sinceMs: number): Promise<void> {
  const dir = dirname(abs);
  const prefix = `${basename(abs)}.`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    // The lock of a compare-and-swap whose writer was killed while holding it.
    if (name === `${basename(abs)}${FILE_LOCK_SUFFIX}`) {
      if (await isStaleLock(join(dir, name))) await unlink(join(dir, name)).catch(() => undefined);
      continue;
    }
    // Only clawcode's own temp names: a `<name>.<digits>` beside it (write-file-atomic's names, which earlier
    // versions used) may as well be the person's own `schema.sql.2`.
    const tail = name.slice(prefix.length);
    if (!name.startsWith(prefix) || !TEMP_FILE_PATTERN.test(tail)) continue;
    const pid = Number(tail.slice(0, tail.indexOf('-')));
    if (pid !== process.pid && isProcessAlive(pid)) continue;
    try {
      // lstat: a symlink with a temp file's name is a project entry (committed, perhaps), not a temp file.
      const info = await lstat(join(dir, name));
      if (info.isFile() && info.mtimeMs >= sinceMs - 2000) await unlink(join(dir, name));
    } catch {
      // already gone
    }
  }
}

/** Remove folders a run created, deepest first, only when empty (a user file inside keeps it). */
export async function removeCreatedDirs(realRoot: string, createdDirs: readonly string[]): Promise<void> {
  const ordered = [...createdDirs].sort((a, b) => b.split('/').length - a.split('/').length);
  // Not empty, already gone, or the way to it moved (a tampered manifest's `..` is refused there too): left.
  // A run never creates a control folder (.git/, .clawcode/): a manifest naming one is not followed.
  for (const rel of ordered) if (!isControlPath(rel)) await removeFolderInside(realRoot, rel);
}

/** Create the run folder (and its parents, the clawcode home among them) readable by the owner only. */
export async function ensureDir(dir: string): Promise<void> {
  await makeDirs(dir, PRIVATE_DIR_MODE);
}

/**
 * Atomically write a file's journaled previous bytes back, with its previous mode, through the guarded write
 * (utils/journal/guarded-write.ts): only when `expect` accepts the file's current bytes. The caller fsyncs the
 * file's folder afterwards (one fsync per folder for many files).
 *
 * @throws TargetChangedError the file holds bytes `expect` refuses: left alone
 */
export async function writePreImage(
  record: RunRecord,
  file: RunFileRecord,
  target: GuardedTarget,
  expect: (current: Buffer | null) => boolean,
): Promise<void> {
  if (file.preImage === null) throw new IoError(`Run ${record.runId} has no pre-image for ${file.path}`);
  const read = await readRegularFile(join(record.runDir, file.preImage), Number.MAX_SAFE_INTEGER);
  const bytes = read?.bytes;
  if (bytes === undefined || sha256(bytes) !== file.beforeHash) {
    throw new IoError(`The journaled pre-image of ${file.path} in ${record.runDir} is corrupt`, {
      code: 'journal_corrupt',
    });
  }
  await writeGuarded(target, bytes, { expect, mode: file.mode ?? undefined, syncFolder: false });
}
