import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { findUnfinishedRuns, listRuns, rollbackRun, undoRun } from '../../../utils/journal/journal.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const childScript = join(repoRoot, 'tests/support/journal-apply-child.ts');
const cleanup: string[] = [];

beforeEach(async () => {
  const home = await mkdtemp(join(tmpdir(), 'cc-kill-env-'));
  cleanup.push(home);
  vi.stubEnv('CLAWCODE_HOME', home);
});

afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

interface Fixture {
  root: string;
  home: string;
  changesPath: string;
  oldFiles: Map<string, Buffer>;
  newFiles: Map<string, string>;
}

/** 40 existing files (one executable, one binary) changed and 20 new files in new folders. */
async function makeFixture(): Promise<Fixture> {
  const root = await mkdtemp(join(tmpdir(), 'cc-kill-root-'));
  const home = await mkdtemp(join(tmpdir(), 'cc-kill-home-'));
  cleanup.push(root, home);
  const oldFiles = new Map<string, Buffer>();
  const newFiles = new Map<string, string>();
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
  const changes = [...newFiles].map(([path, after]) => ({
    path,
    before: oldFiles.get(path)?.toString('base64') ?? null,
    after,
  }));
  const changesPath = join(home, 'changes.json');
  await writeFile(changesPath, JSON.stringify(changes));
  return { root, home, changesPath, oldFiles, newFiles };
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

/** When to kill the child: `delayMs` after it has printed "ready" and then `afterWrites` "wrote" lines. */
interface KillPlan {
  afterWrites: number;
  delayMs: number;
}

/** Run the child; kill it with SIGKILL as `kill` says, or let it finish when `kill` is undefined. */
function runChild(fx: Fixture, kill?: KillPlan): Promise<{ killed: boolean; applyMs?: number }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', childScript, fx.root, fx.home, fx.changesPath], {
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
      if (out.split('\n').filter((line) => line.startsWith('wrote ')).length >= kill.afterWrites) {
        armed = true;
        setTimeout(() => child.kill('SIGKILL'), kill.delayMs);
      }
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal === 'SIGKILL') return resolvePromise({ killed: true });
      if (code !== 0) return reject(new Error(`child failed (${code}): ${err}`));
      const ms = /done (\d+)/.exec(out)?.[1];
      resolvePromise({ killed: false, applyMs: ms === undefined ? undefined : Number(ms) });
    });
  });
}

describe('a many-file run killed with SIGKILL', () => {
  it('leaves each file old or new, and recovery (or undo) restores the old tree exactly', async () => {
    // Calibrate: how long a full apply of this fixture takes here, so kills land inside it.
    const calibration = await makeFixture();
    const before = await snapshot(calibration.root);
    const full = await runChild(calibration);
    expect(full.killed).toBe(false);
    for (const [path, text] of calibration.newFiles)
      expect(await readFile(join(calibration.root, path), 'utf8')).toBe(text);
    await undoRun({ rootDir: calibration.root, homeDir: calibration.home });
    expect(await snapshot(calibration.root)).toEqual(before);
    const applyMs = Math.max(full.applyMs ?? 50, 5);

    const outcomes: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const fx = await makeFixture();
      const original = await snapshot(fx.root);
      // Odd iterations aim anywhere in the run (a random time after "ready"); even ones aim into the
      // write phase, right after a random file, where the tree is half written. Counting writes
      // instead of ms keeps the aim true however loaded the machine is.
      const kill: KillPlan =
        i % 2 === 0
          ? { afterWrites: 1 + Math.floor(Math.random() * (fx.newFiles.size - 10)), delayMs: 0 }
          : { afterWrites: 0, delayMs: Math.floor(Math.random() * applyMs * 1.2) };
      const where = `kill ${kill.delayMs} ms after write ${kill.afterWrites}`;
      const { killed } = await runChild(fx, kill);

      // Every file holds either its old bytes or its new bytes, never a mix or a truncation.
      for (const [path, after] of fx.newFiles) {
        const now = await readFile(join(fx.root, path)).catch(() => null);
        const old = fx.oldFiles.get(path) ?? null;
        const isOld = now === null ? old === null : old !== null && now.equals(old);
        const isNew = now !== null && now.toString('utf8') === after;
        expect(isOld || isNew, `${path} after ${where}`).toBe(true);
      }

      const unfinished = await findUnfinishedRuns(fx.root, fx.home);
      for (const run of unfinished) await rollbackRun({ rootDir: fx.root, runId: run.runId, homeDir: fx.home });
      const runs = await listRuns(fx.root, fx.home);
      const applied = runs.find((r) => r.status === 'applied');
      if (applied) await undoRun({ rootDir: fx.root, homeDir: fx.home });
      outcomes.push(
        !killed ? 'finished' : unfinished.length > 0 ? 'mid-apply' : applied ? 'after-apply' : 'before-journal',
      );
      expect(await snapshot(fx.root), `tree after recovery, ${where}`).toEqual(original);
    }
    // Kills must land mid-apply; a run of only clean finishes would prove little.
    expect(outcomes, outcomes.join(', ')).toContain('mid-apply');
  }, 60_000);
});
