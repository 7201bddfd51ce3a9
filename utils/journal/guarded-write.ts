import { constants, existsSync, type Stats } from 'node:fs';
import { lstat, mkdir, open, rmdir, unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { IoError } from '../errors.js';
import { resolveProjectPath, type PathRefusalCode } from '../policy/paths.js';
import {
  DiskWriteError,
  readRegularFile,
  TargetChangedError,
  writeFileDurable,
  type ChunkWriter,
} from './durable-write.js';
import { holdFileLock } from './file-lock.js';

/**
 * Writes into the project that cannot be steered out of it between the check and the write. Paths are checked
 * once (utils/policy/paths.ts), then every folder from the real root down to the file is remembered by device
 * and inode. A write holds the file's folder open (checked to be that folder) and, on Linux, names everything
 * it creates, renames or deletes through the open folder (`/proc/self/fd/<fd>/<name>`, as `openat` would), so a
 * folder swapped for a symlink afterwards cannot redirect it; the chain is compared again after the temp file
 * is created, right before the rename and after it. A process that swaps `src/` for a symlink out of the project
 * (a rename exchange) makes the write fail, and the run is rolled back, instead of landing anything outside.
 */

/** One folder on the way to a target: where it is and what it is. */
interface FolderIdentity {
  path: string;
  dev: number;
  ino: number;
}

/** A project file resolved for writing: its real location and the folders that lead to it. */
export interface GuardedTarget {
  /** normalized project-relative path as asked */
  rel: string;
  /** the real location (a symlink inside the root is followed once, here); written as is */
  abs: string;
  /** the existing folders from the real root down to the file's folder */
  chain: FolderIdentity[];
  /** folders below them to create (absolute, shallowest first) */
  missing: string[];
}

/** A folder on the way to a file changed identity (swapped, replaced by a symlink) while clawcode wrote. Exit 1. */
export class FolderMovedError extends IoError {
  readonly path: string;
  constructor(path: string) {
    super(`The folder ${path} was moved or replaced while clawcode was writing into it`, {
      code: 'folder_moved',
      hint: 'Another process is changing the project; stop it and run the task again.',
    });
    this.path = path;
  }
}

async function identify(path: string): Promise<Stats | undefined> {
  return lstat(path).catch(() => undefined);
}

/**
 * Resolve a project path with the path policy and remember the identity of its folders.
 *
 * @param realRoot  the project root as a real path
 * @returns the target; the policy's refusal (its code and message) when the path may not be written
 */
export async function guardTarget(
  realRoot: string,
  path: string,
): Promise<{ ok: true; target: GuardedTarget } | { ok: false; code: PathRefusalCode; message: string }> {
  const verdict = await resolveProjectPath(realRoot, path);
  if (!verdict.ok) return { ok: false, code: verdict.code, message: verdict.message };
  const segments = verdict.realRel.split('/').slice(0, -1);
  const chain: FolderIdentity[] = [];
  const missing: string[] = [];
  let dir = realRoot;
  for (const [i, segment] of ['', ...segments].entries()) {
    if (i > 0) dir = join(dir, segment);
    const info = await identify(dir);
    // Missing, or a file in the way (the write fails on it and the run rolls back): created at write time.
    if (i > 0 && (missing.length > 0 || !info || (info.isFile() && !info.isSymbolicLink()))) {
      missing.push(dir);
      continue;
    }
    if (!info || !info.isDirectory()) throw new FolderMovedError(dir);
    chain.push({ path: dir, dev: info.dev, ino: info.ino });
  }
  return { ok: true, target: { rel: verdict.rel, abs: verdict.realAbs, chain, missing } };
}

/** A folder held open; `base` names its entries through the open handle where the system allows it. */
interface HeldFolder {
  base: string;
  close(): Promise<void>;
}

const PROC_FD = existsSync('/proc/self/fd');

/**
 * Open a vetted folder without following a symlink at its name, and make sure it is that folder.
 * @throws FolderMovedError when the path now leads elsewhere
 */
async function holdFolder(folder: FolderIdentity): Promise<HeldFolder> {
  // Without /proc (macOS, Windows, where a folder cannot even be opened) the path is used, checked before and
  // after each step.
  if (!PROC_FD) {
    await checkChain([folder]);
    return { base: folder.path, close: async () => undefined };
  }
  const handle = await open(folder.path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW).catch(
    () => {
      throw new FolderMovedError(folder.path);
    },
  );
  const info = await handle.stat();
  if (info.dev !== folder.dev || info.ino !== folder.ino) {
    await handle.close();
    throw new FolderMovedError(folder.path);
  }
  return { base: `/proc/self/fd/${handle.fd}`, close: () => handle.close() };
}

/**
 * Run `fn` with the last folder of the chain held open, once the whole chain is checked: the held folder keeps its
 * inode when it is moved out of the project and a symlink left on the way to it, so only the chain from the root
 * tells that it is still inside before anything is created, read or removed in it.
 */
async function inFolder<T>(chain: readonly FolderIdentity[], fn: (base: string) => Promise<T>): Promise<T> {
  const folder = chain[chain.length - 1]!;
  const held = await holdFolder(folder);
  try {
    await checkChain(chain);
    return await fn(held.base);
  } catch (error) {
    throw nameFolder(error, held.base, folder.path);
  } finally {
    await held.close();
  }
}

/**
 * The error with the handle path it went through (`/proc/self/fd/<fd>`) replaced by the folder's project path,
 * in its message and in the `path` and `dest` a system error carries: a person is told where the file is
 * (an append-only file refused the rename as "/proc/self/fd/19/a.ts"), never which descriptor reached it.
 */
function nameFolder(error: unknown, base: string, folder: string): unknown {
  if (base === folder || !(error instanceof Error)) return error;
  // The descriptor's number must end there: /proc/self/fd/18 is no part of /proc/self/fd/180.
  const handle = new RegExp(`${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?!\\d)`, 'g');
  const named = (text: string): string => text.replace(handle, () => folder);
  error.message = named(error.message);
  const sys = error as NodeJS.ErrnoException & { dest?: unknown };
  if (typeof sys.path === 'string') sys.path = named(sys.path);
  if (typeof sys.dest === 'string') sys.dest = named(sys.dest);
  return error;
}

/** Compare every folder of a chain with what it was: same device and inode, a folder and not a symlink. */
async function checkChain(chain: readonly FolderIdentity[]): Promise<void> {
  for (const folder of chain) {
    const info = await identify(folder.path);
    if (!info || !info.isDirectory() || info.dev !== folder.dev || info.ino !== folder.ino)
      throw new FolderMovedError(folder.path);
  }
}

/**
 * Create the target's missing folders one at a time, each checked to be a real folder inside the vetted chain
 * (a folder made outside because the chain moved meanwhile is removed again). The chain grows with them.
 */
async function createMissing(target: GuardedTarget): Promise<void> {
  while (target.missing.length > 0) {
    const dir = target.missing[0]!;
    await checkChain(target.chain);
    const info = await inFolder(target.chain, async (base) => {
      const inside = join(base, basename(dir));
      const made = await mkdir(inside).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'EEXIST') return false;
          throw error;
        },
      );
      const found = await identify(inside);
      if (!made && found && !found.isDirectory() && !found.isSymbolicLink())
        throw new IoError(`Cannot create the folder ${dir}: a file is in the way`, { code: 'not_a_folder' });
      if (!found || !found.isDirectory()) throw new FolderMovedError(dir);
      return found;
    });
    await checkChain(target.chain);
    target.chain.push({ path: dir, dev: info.dev, ino: info.ino });
    target.missing.shift();
  }
}

/**
 * Read a target's current bytes through its folder held open and checked to be the vetted one, so a folder
 * swapped for a symlink cannot make clawcode read (and decide on) a file outside the project.
 *
 * @returns the bytes, or `null` when no regular file is there: absent (or its folders are still to be created), or
 *          something another process put at its name (a symlink, never followed, a folder): not the run's bytes
 * @throws FolderMovedError a folder on the way is gone or is another folder now; IoError the read failed
 */
export async function readGuarded(target: GuardedTarget): Promise<Buffer | null> {
  if (target.missing.length > 0) return null;
  return inTargetFolder(target, (file) =>
    readRegularFile(file).catch((error: NodeJS.ErrnoException) => {
      if (error instanceof TargetChangedError) return null;
      throw new IoError(`Could not read ${target.abs}: ${error.message}`, { cause: error });
    }),
  );
}

/**
 * Run `fn` with a name for the target that goes through its folder held open (checked to be the vetted one, with
 * the chain from the root checked before and after): what `fn` reads, lists or removes beside that name is inside
 * the project.
 *
 * @param fn  takes the target's path through the held folder (`/proc/self/fd/<fd>/<name>` on Linux)
 * @throws FolderMovedError a folder on the way is gone or is another folder now
 */
export async function inTargetFolder<T>(target: GuardedTarget, fn: (file: string) => Promise<T>): Promise<T> {
  const result = await inFolder(target.chain, (base) => fn(join(base, basename(target.abs))));
  await checkChain(target.chain);
  return result;
}

/**
 * Remove an empty folder of the project, reached one folder at a time from the real root: each folder on the way
 * is opened without following a symlink at its name (on Linux, the next one is opened through the one held
 * open), so a folder swapped for a symlink out of the project meanwhile makes the removal fail instead of
 * removing a folder outside.
 *
 * @param realRoot  the project root as a real path
 * @param rel       the folder, project-relative with `/` separators (no `.` or `..` segments)
 * @returns whether the folder was removed (false: not empty, gone, not a folder, or the way to it moved)
 */
export async function removeFolderInside(realRoot: string, rel: string): Promise<boolean> {
  const segments = rel.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return false;
  const held: { close(): Promise<void> }[] = [];
  try {
    let base = realRoot;
    for (const segment of segments.slice(0, -1)) {
      const next = join(base, segment);
      if (!PROC_FD) {
        const info = await identify(next);
        if (!info || !info.isDirectory()) return false;
        base = next;
        continue;
      }
      const handle = await open(next, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      held.push(handle);
      base = `/proc/self/fd/${handle.fd}`;
    }
    await rmdir(join(base, segments[segments.length - 1]!));
    return true;
  } catch {
    return false;
  } finally {
    for (const handle of held) await handle.close().catch(() => undefined);
  }
}

/** Options of {@link writeGuarded}. */
export interface GuardedWriteOptions {
  /** whether the target's current bytes (`null`: absent) are the ones this write replaces (compare-and-swap) */
  expect: (current: Buffer | null) => boolean;
  mode?: number;
  write?: ChunkWriter;
  syncFolder?: boolean;
}

/**
 * Write a target atomically and durably (utils/journal/durable-write.ts), creating its folders, with the folder
 * chain checked after the temp file is created, before and after the rename, and the target's bytes compared
 * under its lock right before the rename.
 *
 * @throws FolderMovedError a folder on the way moved: nothing written (or, moved right at the rename, the caller
 *         rolls back); TargetChangedError the bytes were not the expected ones; DiskWriteError / IoError as
 *         writeFileDurable
 */
export async function writeGuarded(target: GuardedTarget, data: Buffer, options: GuardedWriteOptions): Promise<void> {
  await createMissing(target);
  await inFolder(target.chain, (base) =>
    writeFileDurable(join(base, basename(target.abs)), data, {
      mode: options.mode,
      write: options.write,
      syncFolder: options.syncFolder,
      check: () => checkChain(target.chain),
      expect: options.expect,
    }),
  ).catch((error: unknown) => {
    // Name the file, not the handle path it was written through.
    if (error instanceof DiskWriteError) throw new DiskWriteError(target.abs, error.errno, error.cause);
    if (error instanceof TargetChangedError) throw new TargetChangedError(target.abs);
    throw error;
  });
}

/**
 * Delete a target the way {@link writeGuarded} writes one: under its lock, after checking its folders and that
 * it still holds the bytes `expect` accepts. A target already gone is fine.
 *
 * @returns true when it was deleted, false when it was not there
 * @throws FolderMovedError, TargetChangedError (it holds other bytes: left alone)
 */
export async function unlinkGuarded(
  target: GuardedTarget,
  expect: (current: Buffer | null) => boolean,
): Promise<boolean> {
  if (target.missing.length > 0) return false;
  return inFolder(target.chain, (base) => {
    const file = join(base, basename(target.abs));
    return holdFileLock(file, async () => {
      await checkChain(target.chain);
      const current = await readRegularFile(file);
      if (current === null) return false;
      if (!expect(current)) throw new TargetChangedError(target.abs);
      await unlink(file);
      return true;
    });
  });
}
