import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { clawcodeHome } from '../home.js';
import { getProjectHash } from '../project-hash.js';
import { canonicalRoot } from './store.js';
import { ClawcodeError, IoError } from '../errors.js';
import { lockOwnerAlive, processStartTime } from './process-identity.js';
import { makeDirs } from '../make-dirs.js';

/** What a lock file holds (JSON). */
export interface LockOwner {
  pid: number;
  hostname: string;
  /** ISO-8601 time the lock was taken */
  since: string;
  /** the project root the lock is for */
  rootDir: string;
  /** random token so a process only ever removes its own lock */
  token: string;
  /** when the owner process started (utils/journal/process-identity.ts), so a reused pid is not taken for it */
  start?: string;
}

/** Another live clawcode process holds the project's lock and did not let go within `waitMs`. Exit 1. */
export class ProjectLockedError extends ClawcodeError {
  readonly owner: LockOwner | null;
  constructor(rootDir: string, owner: LockOwner | null, waitedMs: number) {
    const who = owner ? `process ${owner.pid} (since ${owner.since})` : 'another process';
    super(`Another clawcode run is working on ${rootDir}: ${who}; waited ${waitedMs} ms`, {
      code: 'project_locked',
      exitCode: 1,
      hint: 'Wait for it to finish, or stop that process; a lock left by a dead process is cleared automatically.',
    });
    this.owner = owner;
  }
}

/** Options of {@link acquireProjectLock}. */
export interface LockOptions {
  /** clawcode home (default `clawcodeHome()`) */
  homeDir?: string;
  /** how long to wait for a live owner to finish, in ms (default 0: refuse at once) */
  waitMs?: number;
  /** how often to look again while waiting, in ms (default 100) */
  pollMs?: number;
}

/**
 * `<home>/locks/<projectHash>.lock`: one lock per project, outside the user's tree. The hash is of
 * the real path, so a symlinked alias of the project shares the lock.
 */
export async function projectLockPath(rootDir: string, homeDir?: string): Promise<string> {
  return join(homeDir ?? clawcodeHome(), 'locks', `${getProjectHash(await canonicalRoot(rootDir))}.lock`);
}

/**
 * Take the per-project lock so two clawcode runs never write one project at the same time.
 * The lock file is created whole with `link()` (atomic, fails when the file exists), so no reader
 * ever sees a half-written owner. A lock whose owner pid is dead on this host is stale and is
 * cleared (moved aside first, so two processes clearing it at once cannot delete a fresh lock).
 *
 * @returns `release()`: removes the lock if it is still ours; safe to call twice. A process that exits without
 *          calling it (process.exit) still removes its own lock on the way out
 * @throws ProjectLockedError (exit 1) a live owner kept the lock for longer than `waitMs`
 * @throws IoError (exit 1) the lock folder cannot be written
 */
export async function acquireProjectLock(rootDir: string, options: LockOptions = {}): Promise<() => Promise<void>> {
  const lockPath = await projectLockPath(rootDir, options.homeDir);
  const waitMs = options.waitMs ?? 0;
  const pollMs = options.pollMs ?? 100;
  const owner: LockOwner = {
    pid: process.pid,
    hostname: hostname(),
    since: new Date().toISOString(),
    rootDir: resolve(rootDir),
    token: randomBytes(8).toString('hex'),
    start: processStartTime(process.pid),
  };
  const content = JSON.stringify(owner);
  const started = Date.now();
  try {
    await makeDirs(join(lockPath, '..'), 0o700);
  } catch (cause) {
    throw new IoError(`Could not create the lock folder for ${rootDir}`, { cause });
  }
  for (;;) {
    if (await tryCreate(lockPath, content)) break;
    const raw = await readFile(lockPath, 'utf8').catch(() => null);
    if (raw === null) continue; // released between our attempt and the read: try again at once
    const current = parseOwner(raw);
    if (current === null || isStale(current)) {
      await breakStaleLock(lockPath, raw);
      continue;
    }
    const waited = Date.now() - started;
    if (waited >= waitMs) throw new ProjectLockedError(resolve(rootDir), current, waited);
    await sleep(Math.min(pollMs, waitMs - waited));
  }
  let released = false;
  // A process that ends through process.exit (SIGTERM, a second Ctrl-C) runs no `finally`: release it on exit.
  const releaseOnExit = (): void => {
    try {
      if (parseOwner(readFileSync(lockPath, 'utf8'))?.token === owner.token) unlinkSync(lockPath);
    } catch {
      // already gone, or the home is unreadable: a lock of a dead pid is cleared by the next run anyway
    }
  };
  process.once('exit', releaseOnExit);
  return async () => {
    if (released) return;
    released = true;
    process.off('exit', releaseOnExit);
    const raw = await readFile(lockPath, 'utf8').catch(() => null);
    if (raw !== null && parseOwner(raw)?.token === owner.token) await unlink(lockPath).catch(() => undefined);
  };
}

/**
 * Run `fn` while holding the project lock; the lock is released on every path, also when `fn` throws.
 *
 * @throws ProjectLockedError / IoError as {@link acquireProjectLock}; whatever `fn` throws
 */
export async function withProjectLock<T>(rootDir: string, options: LockOptions, fn: () => Promise<T>): Promise<T> {
  const release = await acquireProjectLock(rootDir, options);
  try {
    return await fn();
  } finally {
    await release();
  }
}

/** The current owner of a project's lock, or `null` when it is free (for status and messages). */
export async function readProjectLock(rootDir: string, homeDir?: string): Promise<LockOwner | null> {
  const raw = await readFile(await projectLockPath(rootDir, homeDir), 'utf8').catch(() => null);
  return raw === null ? null : parseOwner(raw);
}

/**
 * True when a live process other than this one holds the project's lock, e.g. a run that is still
 * applying; recovery must then leave its `applying` journal alone.
 */
export async function isLockedByOther(rootDir: string, homeDir?: string): Promise<boolean> {
  const owner = await readProjectLock(rootDir, homeDir);
  return owner !== null && owner.pid !== process.pid && !isStale(owner);
}

async function tryCreate(lockPath: string, content: string): Promise<boolean> {
  const temp = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(temp, content);
  try {
    await link(temp, lockPath);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === 'EEXIST') return false;
    throw new IoError(`Could not create the lock ${lockPath}`, { cause: error });
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

function parseOwner(raw: string): LockOwner | null {
  try {
    const value = JSON.parse(raw) as Partial<LockOwner>;
    if (typeof value.pid === 'number' && typeof value.token === 'string') {
      return {
        pid: value.pid,
        hostname: String(value.hostname ?? ''),
        since: String(value.since ?? ''),
        rootDir: String(value.rootDir ?? ''),
        token: value.token,
        ...(typeof value.start === 'string' ? { start: value.start } : {}),
      };
    }
  } catch {
    // unreadable lock: treated as stale below
  }
  return null;
}

/**
 * A lock is stale when its owner ran on this host and is gone: its pid no longer exists, or the process now
 * holding that pid started at another time than the owner did (a reused pid, e.g. pid 1 after a restart).
 */
function isStale(owner: LockOwner): boolean {
  if (owner.hostname !== '' && owner.hostname !== hostname()) return false; // cannot see other hosts' pids
  if (owner.pid === process.pid) return owner.start !== undefined && owner.start !== processStartTime(process.pid);
  return !lockOwnerAlive(owner.pid, owner.start);
}

async function breakStaleLock(lockPath: string, staleRaw: string): Promise<void> {
  const aside = `${lockPath}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await rename(lockPath, aside);
  } catch {
    return; // someone else moved or released it
  }
  const moved = await readFile(aside, 'utf8').catch(() => null);
  if (moved !== staleRaw) {
    // We moved a fresh lock taken after our read: put it back unless the slot is taken again.
    await link(aside, lockPath).catch(() => undefined);
  }
  await unlink(aside).catch(() => undefined);
}
