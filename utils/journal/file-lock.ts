import { randomBytes } from 'node:crypto';
import { link, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { IoError } from '../errors.js';
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
      if (await isStaleLock(path)) {
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
    const held = await readFile(path, 'utf8').catch(() => '');
    if (held === token) await unlink(path).catch(() => undefined);
  }
}

/**
 * A lock whose writer is gone (its pid is not alive, or now names a process that started at another time) or
 * that is far older than any compare-and-swap takes.
 */
export async function isStaleLock(path: string): Promise<boolean> {
  const [text, info] = await Promise.all([readFile(path, 'utf8').catch(() => ''), stat(path).catch(() => undefined)]);
  if (!info) return false; // released meanwhile: the next attempt takes it
  if (Date.now() - info.mtimeMs > STALE_MS) return true;
  const [pidText, start] = text.split(' ');
  const pid = Number(pidText);
  return Number.isInteger(pid) && pid > 0 && !lockOwnerAlive(pid, start === '-' ? undefined : start);
}
