import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { recoverUnfinishedRuns } from '../../../cli/recover.js';
import { applyRun, listRuns, undoRun, type FileChange } from '../../../utils/journal/journal.js';

// `clawcode undo` killed with SIGKILL at random points: after the next start's recovery every tree is
// either fully undone or exactly as before the undo, and a following undo works.

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const childScript = join(repoRoot, 'tests/support/journal-undo-child.ts');
const cleanup: string[] = [];

beforeEach(async () => {
  const home = await mkdtemp(join(tmpdir(), 'cc-undo-kill-env-'));
  cleanup.push(home);
  vi.stubEnv('CLAWCODE_HOME', home);
});

afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

interface Fixture {
  root: string;
  home: string;
  /** the tree before any run, after the small first run, and after the big second run */
  original: Map<string, string>;
  afterFirst: Map<string, string>;
  afterSecond: Map<string, string>;
  oldFiles: Map<string, Buffer>;
  newFiles: Map<string, string>;
}

/** Every entry under `dir` (folders end in `/`) with its bytes and permission bits. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const full = join(entry.parentPath, entry.name);
    const rel = full.slice(dir.length + 1);
    const mode = ((await stat(full)).mode & 0o777).toString(8);
    out.set(
      entry.isDirectory() ? `${rel}/` : rel,
      entry.isDirectory() ? mode : `${mode}:${(await readFile(full)).toString('base64')}`,
    );
  }
  return out;
}

/** A first run changing base.ts, then a second run changing 40 files and creating 20 in new folders. */
async function makeFixture(): Promise<Fixture> {
  const root = await mkdtemp(join(tmpdir(), 'cc-undo-kill-root-'));
  const home = await mkdtemp(join(tmpdir(), 'cc-undo-kill-home-'));
  cleanup.push(root, home);
  const oldFiles = new Map<string, Buffer>();
  const newFiles = new Map<string, string>();
  await writeFile(join(root, 'base.ts'), 'export const base = 0;\n');
  for (let i = 0; i < 40; i += 1) {
    const path = `src/mod${i % 5}/file${i}.ts`;
    const bytes =
      i === 7 ? Buffer.from([0, 255, 1, 254, 10]) : Buffer.from(`export const v${i} = ${i};\n`.repeat(50 + i));
    await mkdir(join(root, `src/mod${i % 5}`), { recursive: true });
    await writeFile(join(root, path), bytes);
    oldFiles.set(path, bytes);
    newFiles.set(path, `export const v${i} = ${i * 100}; // changed\n`.repeat(60 + i));
  }
  await chmod(join(root, 'src/mod0/file0.ts'), 0o755);
  for (let i = 0; i < 20; i += 1)
    newFiles.set(`gen/part${i % 4}/deep/new${i}.ts`, `export const n${i} = true;\n`.repeat(40));
  const original = await snapshot(root);
  await applyRun({
    rootDir: root,
    homeDir: home,
    meta: { task: 'first' },
    changes: [{ path: 'base.ts', before: Buffer.from('export const base = 0;\n'), after: 'export const base = 1;\n' }],
  });
  const afterFirst = await snapshot(root);
  const changes: FileChange[] = [...newFiles].map(([path, after]) => ({
    path,
    before: oldFiles.get(path) ?? null,
    after,
  }));
  await applyRun({ rootDir: root, homeDir: home, changes, meta: { task: 'second' } });
  const afterSecond = await snapshot(root);
  return { root, home, original, afterFirst, afterSecond, oldFiles, newFiles };
}

interface KillPlan {
  afterRestores: number;
  delayMs: number;
}

function runUndoChild(fx: Fixture, kill?: KillPlan): Promise<{ killed: boolean; undoMs?: number }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', childScript, fx.root, fx.home], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let armed = false;
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (kill === undefined || armed || !out.startsWith('ready\n')) return;
      if (out.split('\n').filter((line) => line.startsWith('restored ')).length >= kill.afterRestores) {
        armed = true;
        setTimeout(() => child.kill('SIGKILL'), kill.delayMs);
      }
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal === 'SIGKILL') return resolvePromise({ killed: true });
      if (code !== 0) return reject(new Error(`child failed (${code}): ${err}`));
      const ms = /done (\d+)/.exec(out)?.[1];
      resolvePromise({ killed: false, undoMs: ms === undefined ? undefined : Number(ms) });
    });
  });
}

describe('an undo killed with SIGKILL', () => {
  it('leaves each file whole; the next start finishes it, so the tree is fully undone or untouched, and undo works after', async () => {
    const calibration = await makeFixture();
    const full = await runUndoChild(calibration);
    expect(full.killed).toBe(false);
    expect(await snapshot(calibration.root)).toEqual(calibration.afterFirst);
    const undoMs = Math.max(full.undoMs ?? 50, 5);

    const outcomes: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const fx = await makeFixture();
      const kill: KillPlan =
        i % 2 === 0
          ? { afterRestores: 1 + Math.floor(Math.random() * (fx.newFiles.size - 10)), delayMs: 0 }
          : { afterRestores: 0, delayMs: Math.floor(Math.random() * undoMs * 1.2) };
      const where = `kill ${kill.delayMs} ms after restore ${kill.afterRestores}`;
      const { killed } = await runUndoChild(fx, kill);

      for (const [path, after] of fx.newFiles) {
        const now = await readFile(join(fx.root, path)).catch(() => null);
        const old = fx.oldFiles.get(path) ?? null;
        const isOld = now === null ? old === null : old !== null && now.equals(old);
        const isNew = now !== null && now.toString('utf8') === after;
        expect(isOld || isNew, `${path} after ${where}`).toBe(true);
      }

      const interrupted = (await listRuns(fx.root, fx.home)).some((r) => r.status === 'undoing');
      const recovered = await recoverUnfinishedRuns({ rootDir: fx.root, homeDir: fx.home });
      expect(recovered.finishedUndos.length, where).toBe(interrupted ? 1 : 0);
      const tree = await snapshot(fx.root);
      const fullyUndone = JSON.stringify([...tree]) === JSON.stringify([...fx.afterFirst]);
      const untouched = JSON.stringify([...tree]) === JSON.stringify([...fx.afterSecond]);
      expect(fullyUndone || untouched, `tree after recovery, ${where}`).toBe(true);
      expect((await listRuns(fx.root, fx.home)).map((r) => r.status)).toEqual([
        fullyUndone ? 'undone' : 'applied',
        'applied',
      ]);
      outcomes.push(!killed ? 'finished' : interrupted ? 'mid-undo' : fullyUndone ? 'after-undo' : 'before-journal');

      // A following undo works: it takes the next applied run.
      await undoRun({ rootDir: fx.root, homeDir: fx.home });
      expect(await snapshot(fx.root), where).toEqual(fullyUndone ? fx.original : fx.afterFirst);
    }
    expect(outcomes, outcomes.join(', ')).toContain('mid-undo');
  }, 90_000);
});
