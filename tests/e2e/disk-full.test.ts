import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findUnfinishedRuns } from '../../utils/journal/rollback.js';
import { listRuns } from '../../utils/journal/store.js';
import { cleanEnv, runCli, snapshotTree } from '../support/fixture.js';

// A full disk through the built CLI: `clawcode apply` of a one-line patch to a 660,000-byte file on a
// 1 MiB tmpfs. The system takes only part of the temp file's bytes (a short write), then says ENOSPC;
// the run must exit 1 with one line, leave every byte as it was, and keep the journal consistent.
// Needs root (mount); elsewhere the tests are skipped with that reason in their names.

const mountPoint = await mkdtemp(join(tmpdir(), 'cc-tmpfs-'));
const mounted = tryMount(mountPoint);
const why = mounted ? '' : ' (skipped: needs root and a successful `mount -t tmpfs`)';

function tryMount(dir: string): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0755', 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

afterAll(async () => {
  if (mounted) execFileSync('umount', [mountPoint], { stdio: 'ignore' });
  await rm(mountPoint, { recursive: true, force: true });
});

const LINE = 'export const answer = 41;\n';
/** 660,000 bytes: the line above, then filler lines of 32 bytes. */
const BIG =
  LINE + 'const filler_line_of_text = 0;\n'.repeat((660_000 - LINE.length) / 31).padEnd(660_000 - LINE.length, '/');

function plan(file: string, find: string, replace: string): string {
  return JSON.stringify({
    analysis: 'fix the answer',
    files_to_edit: [{ path: file, reason: 'r' }],
    patches: [{ file, operation: 'replace', find, replace }],
    commands: [],
    agent_notes: [],
  });
}

async function project(name: string): Promise<string> {
  const root = join(mountPoint, name);
  await mkdir(join(root, 'src'), { recursive: true });
  await writeFile(join(root, 'src/x.ts'), BIG);
  await writeFile(join(root, 'src/small.ts'), 'export const small = 1;\n');
  return root;
}

describe('apply on a full disk', () => {
  it.skipIf(!mounted)(
    `exits 1 with one line, the 660,000-byte file byte-identical, and undo still works${why}`,
    async () => {
      expect(BIG.length).toBe(660_000);
      const root = await project('p1');
      const home = await mkdtemp(join(tmpdir(), 'cc-full-home-'));
      const work = await mkdtemp(join(tmpdir(), 'cc-full-work-'));
      const env = cleanEnv({ CLAWCODE_HOME: home });
      try {
        // An earlier run that fits, so there is something for undo afterwards.
        await writeFile(join(work, 'small.json'), plan('src/small.ts', 'small = 1', 'small = 2'));
        const first = await runCli(['apply', join(work, 'small.json'), '--dir', root, '--yes'], { env });
        expect(first.code, first.stderr).toBe(0);
        const before = await snapshotTree(root);

        await writeFile(join(work, 'plan.json'), plan('src/x.ts', 'answer = 41', 'answer = 42'));
        const result = await runCli(['apply', join(work, 'plan.json'), '--dir', root, '--yes'], { env });
        expect(result.code).toBe(1);
        expect(result.stderr).toBe('clawcode: Disk full while writing src/x.ts: nothing was changed\n');
        expect(result.stdout).not.toContain('Wrote');

        const after = await snapshotTree(root);
        expect([...after.keys()].sort()).toEqual([...before.keys()].sort()); // no temp file left
        for (const [path, bytes] of before) expect(after.get(path)?.equals(bytes), path).toBe(true);

        const runs = await listRuns(root, home);
        expect(runs.map((r) => r.status)).toEqual(['rolled_back', 'applied']);
        expect(await findUnfinishedRuns(root, home)).toEqual([]);
        const undo = await runCli(['undo', '--dir', root, '--yes'], { env });
        expect(undo.code, undo.stderr).toBe(0);
        expect(await readFile(join(root, 'src/small.ts'), 'utf8')).toBe('export const small = 1;\n');
        expect((await readFile(join(root, 'src/x.ts'))).equals(Buffer.from(BIG))).toBe(true);
      } finally {
        await Promise.all([root, home, work].map((d) => rm(d, { recursive: true, force: true })));
      }
    },
    60_000,
  );

  it.skipIf(!mounted)(
    `undo on a full disk exits 1 with one line, changes nothing, and works once there is room${why}`,
    async () => {
      const root = join(mountPoint, 'p3');
      await mkdir(join(root, 'src'), { recursive: true });
      const mid = BIG.slice(0, 300_000);
      await writeFile(join(root, 'src/x.ts'), mid);
      await writeFile(join(root, 'src/small.ts'), 'export const small = 1;\n');
      const home = await mkdtemp(join(tmpdir(), 'cc-full-home-'));
      const work = await mkdtemp(join(tmpdir(), 'cc-full-work-'));
      const env = cleanEnv({ CLAWCODE_HOME: home });
      const filler = join(mountPoint, 'filler');
      try {
        await writeFile(
          join(work, 'plan.json'),
          JSON.stringify({
            analysis: 'a',
            files_to_edit: [],
            commands: [],
            agent_notes: [],
            patches: [
              // Undo restores the last file first: small.ts is restored, then x.ts fails and small.ts is put back.
              { file: 'src/x.ts', operation: 'replace', find: 'answer = 41', replace: 'answer = 42' },
              { file: 'src/small.ts', operation: 'replace', find: 'small = 1', replace: 'small = 2' },
            ],
          }),
        );
        const applied = await runCli(['apply', join(work, 'plan.json'), '--dir', root, '--yes'], { env });
        expect(applied.code, applied.stderr).toBe(0);
        const after = await snapshotTree(root);
        // Leave less room than the 300,000-byte pre-image of src/x.ts needs.
        const free = await statfs(mountPoint);
        await writeFile(filler, Buffer.alloc(free.bavail * free.bsize - 100 * 1024));
        const undo = await runCli(['undo', '--dir', root, '--yes'], { env });
        expect(undo.code).toBe(1);
        expect(undo.stderr).toBe('clawcode: Disk full while undoing src/x.ts: nothing was changed\n');
        const now = await snapshotTree(root);
        expect([...now.keys()].sort()).toEqual([...after.keys()].sort());
        for (const [path, bytes] of after) expect(now.get(path)?.equals(bytes), path).toBe(true);
        expect((await listRuns(root, home)).map((r) => r.status)).toEqual(['applied']);

        await rm(filler);
        const again = await runCli(['undo', '--dir', root, '--yes'], { env });
        expect(again.code, again.stderr).toBe(0);
        expect(await readFile(join(root, 'src/x.ts'), 'utf8')).toBe(mid);
        expect(await readFile(join(root, 'src/small.ts'), 'utf8')).toBe('export const small = 1;\n');
      } finally {
        await Promise.all([root, home, work, filler].map((d) => rm(d, { recursive: true, force: true })));
      }
    },
    60_000,
  );

  it.skipIf(!mounted)(
    `with the clawcode home on the full disk too, the journal fails first and nothing changes${why}`,
    async () => {
      const root = await project('p2');
      const home = join(mountPoint, 'home');
      const work = await mkdtemp(join(tmpdir(), 'cc-full-work-'));
      const env = cleanEnv({ CLAWCODE_HOME: home });
      try {
        const before = await snapshotTree(root);
        await writeFile(join(work, 'plan.json'), plan('src/x.ts', 'answer = 41', 'answer = 42'));
        const result = await runCli(['apply', join(work, 'plan.json'), '--dir', root, '--yes'], { env });
        expect(result.code).toBe(1);
        expect(result.stderr).toMatch(
          /^clawcode: Disk full while writing the run journal in \S+: nothing was changed\n$/,
        );
        const after = await snapshotTree(root);
        expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
        for (const [path, bytes] of before) expect(after.get(path)?.equals(bytes), path).toBe(true);
        expect(await listRuns(root, home)).toEqual([]);
        // The partial journal was removed, so the disk is not left full of pre-images.
        const runsDir = await readdir(join(home, 'runs')).catch(() => [] as string[]);
        for (const hash of runsDir) expect(await readdir(join(home, 'runs', hash))).toEqual([]);
      } finally {
        await Promise.all([root, home, work].map((d) => rm(d, { recursive: true, force: true })));
      }
    },
    60_000,
  );
});
