import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  acquireProjectLock,
  ProjectLockedError,
  projectLockPath,
  readProjectLock,
} from '../../../utils/journal/lock.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
let root: string;
let home: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'cc-lock-root-'));
  home = await mkdtemp(join(tmpdir(), 'cc-lock-home-'));
  vi.stubEnv('CLAWCODE_HOME', home);
});

afterEach(async () => {
  await Promise.all([root, home].map((d) => rm(d, { recursive: true, force: true })));
});

function startHolder(holdMs: number): {
  child: ChildProcessByStdio<null, Readable, Readable>;
  locked: Promise<void>;
  exited: Promise<void>;
} {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(repoRoot, 'tests/support/journal-lock-child.ts'), root, home, String(holdMs)],
    {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const locked = new Promise<void>((res, rej) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('locked')) res();
    });
    child.on('exit', () => rej(new Error(`holder exited before locking: ${out}`)));
  });
  const exited = new Promise<void>((res) => child.on('exit', () => res()));
  return { child, locked, exited };
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((res) => child.on('exit', res));
  return child.pid ?? 999_999;
}

describe('acquireProjectLock', () => {
  it('writes the owner pid and removes the lock on release', async () => {
    const release = await acquireProjectLock(root);
    expect((await readProjectLock(root))?.pid).toBe(process.pid);
    await release();
    expect(await readProjectLock(root)).toBeNull();
    await release(); // twice is harmless
    expect(await readdir(dirname(await projectLockPath(root, home)))).toEqual([]);
  });

  it('refuses a second run while another process holds the lock, naming its pid', async () => {
    const holder = startHolder(3000);
    await holder.locked;
    const started = Date.now();
    const error = await acquireProjectLock(root, { waitMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProjectLockedError);
    expect((error as ProjectLockedError).owner?.pid).toBe(holder.child.pid);
    expect((error as ProjectLockedError).message).toContain(String(holder.child.pid));
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    holder.child.kill('SIGKILL');
    await holder.exited;
  });

  it('waits for the owner to finish, then takes the lock', async () => {
    const holder = startHolder(600);
    await holder.locked;
    const started = Date.now();
    const release = await acquireProjectLock(root, { waitMs: 10_000, pollMs: 25 });
    expect(Date.now() - started).toBeGreaterThan(200);
    expect((await readProjectLock(root))?.pid).toBe(process.pid);
    await release();
    await holder.exited;
  });

  it('serialises two waiters in one process', async () => {
    const order: string[] = [];
    const first = await acquireProjectLock(root);
    const second = acquireProjectLock(root, { waitMs: 5000, pollMs: 10 }).then((release) => {
      order.push('second');
      return release;
    });
    await new Promise((res) => setTimeout(res, 100));
    order.push('first done');
    await first();
    await (
      await second
    )();
    expect(order).toEqual(['first done', 'second']);
  });

  it('recovers a stale lock left by a dead process', async () => {
    const pid = await deadPid();
    await mkdir(dirname(await projectLockPath(root, home)), { recursive: true });
    await writeFile(
      await projectLockPath(root, home),
      JSON.stringify({ pid, hostname: hostname(), since: 'x', rootDir: root, token: 'old' }),
    );
    const release = await acquireProjectLock(root, { waitMs: 0 });
    expect((await readProjectLock(root))?.pid).toBe(process.pid);
    await release();
  });

  it('takes over a lock naming a live process that is not its owner (pid 1, another start time)', async () => {
    await mkdir(dirname(await projectLockPath(root, home)), { recursive: true });
    const owner = { pid: 1, hostname: hostname(), since: 'x', rootDir: root, token: 'old' };
    await writeFile(await projectLockPath(root, home), JSON.stringify(owner));
    const release = await acquireProjectLock(root, { waitMs: 0 });
    expect((await readProjectLock(root))?.pid).toBe(process.pid);
    await release();
    await writeFile(await projectLockPath(root, home), JSON.stringify({ ...owner, start: 'another-boot:1' }));
    await (
      await acquireProjectLock(root, { waitMs: 0 })
    )();
  });

  it('is shared by a symlinked alias of the project folder', async () => {
    const alias = `${root}-alias`;
    await symlink(root, alias);
    try {
      const release = await acquireProjectLock(root);
      await expect(acquireProjectLock(alias)).rejects.toBeInstanceOf(ProjectLockedError);
      await release();
    } finally {
      await rm(alias, { force: true });
    }
  });

  it('recovers a corrupt lock file', async () => {
    await mkdir(dirname(await projectLockPath(root, home)), { recursive: true });
    await writeFile(await projectLockPath(root, home), '{not json');
    const release = await acquireProjectLock(root);
    await release();
    expect(await readProjectLock(root)).toBeNull();
  });
});
