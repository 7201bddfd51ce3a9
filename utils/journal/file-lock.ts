import { randomBytes } from 'node:crypto';
import { link, lstat, unlink, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { IoError } from '../errors.js';
import { readRegularFile } from '../regular-file.js';
import { lockOwnerAlive, processStartTime } from './process-identity.js';

/**
 * A lock file beside one project file, held only around a compare-and-swap (read the bytes, compare, rename:
 * well under a millisecond for source files). It lives in the project, not in clawcode's home, so two clawcode
 * processes with different homes see each other. `<name>.cclock` holds `<pid> <start time or -> <token>`.
 */

/** Suffix of the lock file of a target. */
export const FILE_LOCK_SUFFIX = '.cclock';
/** How long to wait for another writer's lock before giving up, ms. */
const WAIT_MS = 5_000;
/** A lock older than this was left by a writer that died between taking and releasing it, ms. */
const STALE_MS = 30_000;
/** What a lock file holds: `<pid> <start time or -> <12 hex>`; anything else at the lock's name is not a lock. */
const LOCK_TEXT = /^(\d+) (\S+) [0-9a-f]{12}$/;
/** Most bytes read of an entry at a lock's name (a lock's text is under 50). */
const LOCK_MAX_BYTES = 256;

/**
 * Run `fn` holding the lock file of `target`.
 *
 * @returns what `fn` returns; the lock is removed on every path
 * @throws IoError `file_busy` when another live writer held the lock for {@link WAIT_MS}; whatever `fn` throws
 */
export async function holdFileLock<T>(target: string, fn: () => Promise<T>): Promise<T> {
  const path = `${target}${FILE_LOCK_SUFFIX}`;
  const token = `${process.pid} ${processStartTime(process.pid) ?? '-'} ${randomBytes(6).toString('hex')}`;
  const started = Date.now();
  // Made whole, then linked into place (atomic, fails when the lock exists): no reader sees a lock without its
  // writer's pid, even when that writer is killed midway. The temp file has a durable write's temp name, so a
  // killed writer's one is cleaned up like any other (utils/journal/store.ts).
  const temp = `${target}.${process.pid}-${randomBytes(4).toString('hex')}.cctmp`;
  await writeFile(temp, token, { flag: 'wx', mode: 0o600 });
  try {
    for (;;) {
      if (
        await link(temp, path).then(
          () => true,
          (error: NodeJS.ErrnoException) => {
            if (error.code !== 'EEXIST') throw error;
            return false;
          },
        )
      )
        break;
      const state = await lockState(path);
      if (state === 'foreign') {
        // Named by file name: `target` may be spelled through a held folder (/proc/self/fd/N/…).
        const name = basename(path);
        throw new IoError(`${name} beside it is not a clawcode lock; move it away`, {
          code: 'file_lock_foreign',
          hint: `A lock is a small file clawcode makes and removes itself; ${name} is something else.`,
        });
      }
      if (state === 'stale') {
        await unlink(path).catch(() => undefined);
        continue;
      }
      if (Date.now() - started > WAIT_MS)
        throw new IoError(`Another process kept ${target} locked for ${WAIT_MS} ms`, { code: 'file_busy' });
      await sleep(2);
    }
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  try {
    return await fn();
  } finally {
    if ((await readLockText(path)) === token) await unlink(path).catch(() => undefined);
  }
}

/**
 * A lock whose writer is gone (its pid is not alive, or now names a process that started at another time) or
 * that is far older than any compare-and-swap takes. Only a regular file holding a lock's text is a lock: the
 * lock's name sits in the project, where a committed symlink (to `/dev/zero`, a terminal, a file outside) or a
 * file of the person's own may stand; those are never read through, waited on or removed.
 */
export async function isStaleLock(path: string): Promise<boolean> {
  return (await lockState(path)) === 'stale';
}

/** `gone` (nothing there), `foreign` (not a lock, see isStaleLock), `stale` or `live`. */
async function lockState(path: string): Promise<'gone' | 'foreign' | 'stale' | 'live'> {
  const info = await lstat(path).catch(() => undefined);
  if (!info) return 'gone'; // released meanwhile: the next attempt takes it
  const text = info.isFile() ? await readLockText(path) : undefined;
  const match = text === undefined ? null : LOCK_TEXT.exec(text);
  if (!match) return (await lstat(path).catch(() => undefined)) ? 'foreign' : 'gone';
  if (Date.now() - info.mtimeMs > STALE_MS) return 'stale';
  const pid = Number(match[1]);
  return pid > 0 && !lockOwnerAlive(pid, match[2] === '-' ? undefined : match[2]) ? 'stale' : 'live';
}

/** The text of a regular file at a lock's name (never through a symlink, never blocking); undefined otherwise. */
async function readLockText(path: string): Promise<string | undefined> {
  const read = await readRegularFile(path, LOCK_MAX_BYTES);
  return read && !read.truncated ? read.bytes.toString('utf8') : undefined;
}
