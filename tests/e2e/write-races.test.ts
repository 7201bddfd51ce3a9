import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, renameSync, symlinkSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_PATH, REPO_ROOT, runCli, snapshotTree, type CliResult } from '../support/fixture.js';
import { planOf, replacePatch } from '../support/plans.js';
import { useCliProvider } from '../support/loopback-project.js';
import { replies } from '../support/provider-server.js';
import { projectLockPath } from '../../utils/journal/lock.js';

// Writes raced by other processes, through the built CLI: a process swapping src/ for a symlink out of the
// project while the run writes (every write outside the root is a failure, whatever the run says), two runs with
// different clawcode homes on one project (a change must never be lost), and a lock naming a live, unrelated pid.

const FILES = 31;
const cli = useCliProvider();

/** A hash of every file under `dir` (names and bytes): the sentinel folder outside the root must keep it. */
async function treeHash(dir: string): Promise<string> {
  const hash = createHash('sha256');
  for (const [path, bytes] of [...(await snapshotTree(dir))].sort(([a], [b]) => (a < b ? -1 : 1)))
    hash.update(`${path}\0${bytes.length}\0`).update(bytes);
  return hash.digest('hex');
}

/** Run the CLI; once it has the plan in memory (the `diffs` event), start `onDiffs` (the attacker). */
function runWithAttacker(args: string[], env: NodeJS.ProcessEnv, onDiffs: () => void): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args, '--events'], { env, cwd: REPO_ROOT });
    let stdout = '';
    let stderr = '';
    let started = false;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
      if (!started && stdout.includes('"event":"diffs"')) {
        started = true;
        onDiffs();
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const hasPython =
  spawnSync('python3', ['-c', 'import ctypes; ctypes.CDLL(None).renameat2'], { stdio: 'ignore' }).status === 0;

describe('writes raced by other processes', () => {
  for (const mode of ['rename', ...(hasPython ? ['exchange'] : [])]) {
    it(`a process swapping src/ for a symlink out (${mode}) never gets a write outside the root`, async () => {
      const outcomes: string[] = [];
      for (let round = 0; round < 8; round++) {
        const project = await mkdtemp(join(tmpdir(), 'clawcode-race-'));
        const outside = await mkdtemp(join(tmpdir(), 'clawcode-sentinel-'));
        await mkdir(join(project, 'src'));
        for (let i = 0; i < FILES; i++) {
          await writeFile(join(project, 'src', `f${i}.txt`), `old ${i}\n`);
          await writeFile(join(outside, `f${i}.txt`), `old ${i}\n`);
        }
        symlinkSync(outside, join(project, 'swap'));
        const sentinel = await treeHash(outside);
        const stop = join(outside, '..', `${round}-${process.pid}-${mode}.stop`);
        cli.server.reply(
          replies.plan(
            planOf(Array.from({ length: FILES }, (_, i) => replacePatch(`src/f${i}.txt`, `old ${i}`, `new ${i}`))),
          ),
        );
        const env = await cli.freshEnv();
        let attacker: ReturnType<typeof spawn> | undefined;
        const result = await runWithAttacker(['raise', '--dir', project, '--yes', '--provider', 'openai'], env, () => {
          attacker = spawn(
            process.execPath,
            [
              '--import',
              'tsx',
              join(REPO_ROOT, 'tests/support/folder-swap-child.ts'),
              join(project, 'src'),
              join(project, 'swap'),
              stop,
              mode,
            ],
            { cwd: REPO_ROOT, stdio: 'ignore' },
          );
        });
        await writeFile(stop, '');
        if (attacker && attacker.exitCode === null) await new Promise((r) => attacker!.once('close', r));
        if (lstatSync(join(project, 'src')).isSymbolicLink()) {
          renameSync(join(project, 'src'), join(project, 'src.aside'));
          renameSync(join(project, 'swap'), join(project, 'src'));
          renameSync(join(project, 'src.aside'), join(project, 'swap'));
        }
        expect(await treeHash(outside), `round ${round}: a write landed outside the root`).toBe(sentinel);
        // The next start finishes what a run under attack could not: the tree is the plan's or the old one.
        if (result.code !== 0) await runCli(['undo', '--dir', project, '--yes'], { env });
        const texts = await Promise.all(
          Array.from({ length: FILES }, (_, i) => readFile(join(project, 'src', `f${i}.txt`), 'utf8')),
        );
        const all = (word: string) => texts.every((t, i) => t === `${word} ${i}\n`);
        expect(
          result.code === 0 ? all('new') : all('old'),
          `round ${round} (exit ${result.code}): ${result.stderr}`,
        ).toBe(true);
        expect([...(await snapshotTree(project)).keys()].filter((p) => /\.(cctmp|cclock)$/.test(p))).toEqual([]);
        outcomes.push(String(result.code));
      }
      expect(outcomes).toHaveLength(8);
    }, 180_000);
  }

  it('two runs with different clawcode homes on one project never lose a change', async () => {
    const N = 20;
    for (let round = 0; round < 10; round++) {
      const project = await mkdtemp(join(tmpdir(), 'clawcode-two-homes-'));
      for (let i = 0; i < N; i++) await writeFile(join(project, `f${i}.txt`), `base ${i}\n`);
      const mk = (tag: string) =>
        planOf(Array.from({ length: N }, (_, i) => replacePatch(`f${i}.txt`, `base ${i}`, `${tag} ${i}`)));
      cli.server.reply(replies.plan(mk('A')), replies.plan(mk('B')));
      const args = ['raise', '--dir', project, '--yes', '--provider', 'openai', '--json', '--no-repair'];
      const [one, two] = await Promise.all([
        runCli(args, { env: await cli.freshEnv(), timeoutMs: 60_000 }),
        runCli(args, { env: await cli.freshEnv(), timeoutMs: 60_000 }),
      ]);
      const texts = await Promise.all(
        Array.from({ length: N }, (_, i) => readFile(join(project, `f${i}.txt`), 'utf8')),
      );
      const written = [one, two].filter((r) => r.code === 0);
      const where = `round ${round}: exits ${one.code}/${two.code}, tree ${texts.map((t) => t[0]).join('')}`;
      // At most one run reports success, and then the tree is exactly its plan; the other wrote nothing.
      expect(written.length, where).toBeLessThanOrEqual(1);
      const tag =
        written.length === 0 ? 'base' : JSON.parse(written[0]!.stdout).changes[0].diff.includes('+A 0') ? 'A' : 'B';
      expect(
        texts.every((t, i) => t === `${tag} ${i}\n`),
        where,
      ).toBe(true);
      for (const r of [one, two].filter((x) => x.code !== 0)) expect(r.code, r.stderr || r.stdout).toBe(3);
    }
  }, 240_000);

  it('a lock left behind naming a live, unrelated process (pid 1) does not block the project', async () => {
    const project = await mkdtemp(join(tmpdir(), 'clawcode-pid1-'));
    await writeFile(join(project, 'a.txt'), 'hello\n');
    const env = await cli.freshEnv();
    const lock = await projectLockPath(project, env.CLAWCODE_HOME);
    await mkdir(join(lock, '..'), { recursive: true });
    const owner = { pid: 1, hostname: hostname(), since: new Date().toISOString(), rootDir: project, token: 'gone' };
    await writeFile(lock, JSON.stringify(owner));
    cli.server.reply(replies.plan(planOf([replacePatch('a.txt', 'hello', 'bye')])));
    const first = await runCli(['greet', '--dir', project, '--yes', '--provider', 'openai'], {
      env,
      timeoutMs: 30_000,
    });
    expect(first.code, first.stderr).toBe(0);
    expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('bye\n');
    // With a start time that is not pid 1's, too.
    await writeFile(lock, JSON.stringify({ ...owner, start: 'another-boot:12345' }));
    cli.server.reply(replies.plan(planOf([replacePatch('a.txt', 'bye', 'hi')])));
    const second = await runCli(['greet', '--dir', project, '--yes', '--provider', 'openai'], {
      env,
      timeoutMs: 30_000,
    });
    expect(second.code, second.stderr).toBe(0);
  });
});
