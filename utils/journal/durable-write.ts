import { randomBytes } from 'node:crypto';
import { lstat, open, realpath, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { constants, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ClawcodeError, IoError } from '../errors.js';
import { holdFileLock } from './file-lock.js';

/**
 * Writes `length` bytes of `buffer` from `offset` at file `position`; resolves to how many bytes the
 * system took, which may be fewer (a short write). The default is `FileHandle.write`; tests pass
 * their own to make short writes or fail midway.
 */
export type ChunkWriter = (
  handle: FileHandle,
  buffer: Buffer,
  offset: number,
  length: number,
  position: number,
) => Promise<number>;

/** Options of {@link writeFileDurable}. */
export interface DurableWriteOptions {
  /**
   * Permission bits of the written file. Default: the bits of the file being replaced, or for a new
   * file 0o666 minus the umask (what `open` gives).
   */
  mode?: number;
  /** the write call (see {@link ChunkWriter}); default `handle.write` */
  write?: ChunkWriter;
  /**
   * fsync the folder after the rename (default true). Pass false when writing many files and fsync
   * each folder once afterwards (see {@link fsyncDirs}) before relying on the renames.
   */
  syncFolder?: boolean;
  /**
   * Called once the temp file exists (still empty) and again right before the rename; throwing aborts the
   * write (the temp file is removed, the target untouched). The journal checks here that the target's folders
   * are still the ones it vetted. With `check`, `abs` is written as given: the caller resolved it, and a
   * symlink met at write time is never followed.
   */
  check?: () => Promise<void>;
  /**
   * Compare-and-swap: whether the target's current bytes (`null`: it does not exist) are the ones this write
   * replaces. Asked right before the rename, under a lock file beside the target that every such write takes,
   * so two writers (two clawcode processes with different homes) never both replace the same bytes.
   * @throws TargetChangedError when it answers false
   */
  expect?: (current: Buffer | null) => boolean;
}

/** The target's bytes were not the ones a compare-and-swap write expected: nothing was written. Exit 3. */
export class TargetChangedError extends ClawcodeError {
  readonly path: string;
  constructor(path: string) {
    super(`${path} changed on disk while clawcode was writing it`, { code: 'file_changed', exitCode: 3 });
    this.path = path;
  }
}

/** Error codes that mean the device has no room (or refused the bytes); the write left nothing behind. */
const DEVICE_FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'EIO', 'EROFS']);

/**
 * A durable write failed because the device is full, over quota, read-only or failing (ENOSPC,
 * EDQUOT, EFBIG, EIO, EROFS). The target still holds its previous bytes and the temp file is gone.
 * `path` is the absolute target; `errno` the system code. Exit 1.
 */
export class DiskWriteError extends IoError {
  readonly path: string;
  readonly errno: string;
  /** "Disk full" (ENOSPC, EDQUOT) or "Device error (EIO)": the start of a one-line message */
  readonly problem: string;
  constructor(path: string, errno: string, cause?: unknown) {
    const full = errno === 'ENOSPC' || errno === 'EDQUOT';
    const problem = full ? 'Disk full' : `Device error (${errno})`;
    super(`${problem} while writing ${path}`, { code: full ? 'disk_full' : 'device_error', cause });
    this.path = path;
    this.errno = errno;
    this.problem = problem;
  }
}

/** Marks temp files made by {@link writeFileDurable}: `<name>.<pid>-<8 hex>.cctmp`. */
export const TEMP_FILE_PATTERN = /^\d{1,10}-[0-9a-f]{8}\.cctmp$/;

/** The temp-file name used beside `abs` (same folder, so the rename never crosses devices). */
function tempPathFor(abs: string): string {
  return join(dirname(abs), `${basename(abs)}.${process.pid}-${randomBytes(4).toString('hex')}.cctmp`);
}

const defaultWriter: ChunkWriter = async (handle, buffer, offset, length, position) =>
  (await handle.write(buffer, offset, length, position)).bytesWritten;

/**
 * Replace (or create) a file atomically and durably, so a crash or a full disk leaves either the
 * old bytes or the new bytes, never a truncated mix.
 *
 * Steps: create a temp file beside `abs` with O_EXCL and the target's mode; write in a loop until
 * every byte is written (a short write continues where it stopped; a write that makes no progress
 * fails); fsync it; check its size equals the data's; rename it over `abs`; fsync the folder (unless
 * `syncFolder` is false).
 * Written for clawcode because write-file-atomic issues one write and ignores a short count, then
 * renames the partial temp file over the original.
 *
 * @param abs   absolute path of the target; its folder must exist; when it is a symlink, the file it
 *              points to is replaced and the link kept (callers vet where links lead)
 * @param data  the new bytes (a string is written as UTF-8)
 * @throws DiskWriteError (exit 1) ENOSPC, EDQUOT, EFBIG, EIO or EROFS: the temp file is removed, `abs` untouched
 * @throws IoError (exit 1) any other failure (permissions, missing folder, size mismatch); same clean-up
 */
export async function writeFileDurable(
  abs: string,
  data: Buffer | string,
  options: DurableWriteOptions = {},
): Promise<void> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const write = options.write ?? defaultWriter;
  // A symlink stays a symlink: write its target (as write-file-atomic did), so undo gives back the same tree.
  const target = options.check ? abs : await realpath(abs).catch(() => abs);
  const previous = await stat(target).catch(() => null);
  const mode = options.mode ?? (previous?.isFile() ? previous.mode & 0o7777 : undefined);
  const tmp = tempPathFor(target);
  let handle: FileHandle | undefined;
  let created = false;
  try {
    handle = await open(tmp, 'wx', mode ?? 0o666);
    created = true;
    const tempId = await handle.stat();
    // The temp file must be the one in the folder the caller vetted: checked before a byte is written.
    if (options.check) await checkTemp(tmp, tempId, options.check);
    // open() applies the umask; an explicit mode (the replaced file's, or the caller's) must hold exactly.
    if (mode !== undefined) await handle.chmod(mode);
    // The new inode would take this process's user and group: keep the replaced file's (root can set both; others
    // can keep the group when they belong to it).
    if (previous?.isFile()) {
      const root = process.getuid?.() === 0;
      await handle.chown(root ? previous.uid : -1, previous.gid).catch(() => undefined);
    }
    let offset = 0;
    while (offset < bytes.length) {
      const written = await write(handle, bytes, offset, bytes.length - offset, offset);
      if (!Number.isInteger(written) || written <= 0) {
        throw Object.assign(new Error(`write made no progress at byte ${offset} of ${bytes.length}`), { code: 'EIO' });
      }
      offset += written;
    }
    await handle.sync();
    const size = (await handle.stat()).size;
    if (size !== bytes.length) {
      throw Object.assign(new Error(`temp file holds ${size} of ${bytes.length} bytes`), { code: 'EIO' });
    }
    await handle.close();
    handle = undefined;
    await swapIn(tmp, target, tempId, options);
    created = false;
  } catch (error) {
    await handle?.close().catch(() => undefined);
    if (created) await unlink(tmp).catch(() => undefined);
    if (error instanceof ClawcodeError) throw error;
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if (code !== undefined && DEVICE_FULL_CODES.has(code)) throw new DiskWriteError(abs, code, error);
    const why = error instanceof Error ? error.message : String(error);
    throw new IoError(`Could not write ${abs}: ${why}`, { cause: error });
  }
  if (options.syncFolder !== false) await fsyncDir(dirname(target));
}

/** Run the caller's check and make sure the temp file at `tmp` is still the one opened (`tempId`). */
async function checkTemp(tmp: string, tempId: Stats, check: () => Promise<void>): Promise<void> {
  await check();
  const now = await lstat(tmp).catch(() => undefined);
  if (!now || now.ino !== tempId.ino || now.dev !== tempId.dev)
    throw new IoError(`The temp file ${tmp} moved while it was written`, { code: 'folder_moved' });
}

/**
 * The rename that puts the temp file in place: with `expect`, under the target's lock, after the check and the
 * comparison; with `check`, the checks run once more after the rename (a folder swapped between the last check
 * and the rename is found, and the caller rolls back).
 */
async function swapIn(tmp: string, target: string, tempId: Stats, options: DurableWriteOptions): Promise<void> {
  const rename_ = async (): Promise<void> => {
    if (options.check) await checkTemp(tmp, tempId, options.check);
    if (options.expect && !options.expect(await readRegularFile(target))) throw new TargetChangedError(target);
    await rename(tmp, target);
  };
  if (options.expect) await holdFileLock(target, rename_);
  else await rename_();
  if (options.check) {
    await options.check();
    const landed = await lstat(target).catch(() => undefined);
    if (!landed || landed.ino !== tempId.ino || landed.dev !== tempId.dev)
      throw new IoError(`${target} is not the file just written: its folder moved`, { code: 'folder_moved' });
  }
}

/**
 * The bytes of the regular file at `path`, its last name not followed: what a compare-and-swap compares.
 * O_NONBLOCK keeps a FIFO put there from blocking the open.
 *
 * @returns the bytes, or `null` when nothing is at `path`
 * @throws TargetChangedError something other than a regular file is there (a symlink, a folder, a device): another
 *         process put it there, and it is never taken for the bytes it may lead to
 */
export async function readRegularFile(path: string): Promise<Buffer | null> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      if (error.code === 'ELOOP') throw new TargetChangedError(path);
      throw error;
    },
  );
  if (handle === null) return null;
  try {
    if (!(await handle.stat()).isFile()) throw new TargetChangedError(path);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** fsync each distinct folder once (after many writes made with `syncFolder: false`). */
export async function fsyncDirs(dirs: Iterable<string>): Promise<void> {
  for (const dir of new Set(dirs)) await fsyncDir(dir);
}

/** fsync a folder so a rename or a new entry inside it survives a crash; a no-op where unsupported. */
async function fsyncDir(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Some platforms (Windows) cannot open or fsync folders; the file fsyncs still hold there.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
