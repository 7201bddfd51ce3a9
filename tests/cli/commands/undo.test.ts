import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runHistoryCommand } from '../../../cli/commands/history.js';
import { recoverUnfinishedRuns } from '../../../cli/recover.js';
import { runUndoCommand } from '../../../cli/commands/undo.js';
import { applyRun } from '../../../utils/journal/journal.js';
import { listRuns, type RunRecord } from '../../../utils/journal/store.js';
import { writeManifest } from '../../../utils/journal/store.js';
import { acquireProjectLock, projectLockPath } from '../../../utils/journal/lock.js';
import { processStartTime } from '../../../utils/journal/process-identity.js';

let root: string;
let home: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'cc-undo-cli-'));
  home = await mkdtemp(join(tmpdir(), 'cc-undo-cli-home-'));
  vi.stubEnv('CLAWCODE_HOME', home);
});

afterEach(async () => {
  await Promise.all([root, home].map((d) => rm(d, { recursive: true, force: true })));
});

function capture(): { stream: Writable; text: () => string } {
  let buffer = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      buffer += String(chunk);
      done();
    },
  });
  return { stream, text: () => stripVTControlCharacters(buffer) };
}

async function applied(task: string, files: Record<string, string>): Promise<RunRecord> {
  const changes = [];
  for (const [path, after] of Object.entries(files))
    changes.push({ path, before: await readFile(join(root, path)).catch(() => null), after });
  return applyRun({ rootDir: root, changes, meta: { task, provider: 'openai', model: 'gpt-x' } });
}

const read = (p: string) => readFile(join(root, p), 'utf8');

/**
 * Write the project lock as another live clawcode would: the test runner's parent process is alive and is not
 * us, so it stands in for one (with its start time, as a lock records it).
 */
async function lockedByAnother(): Promise<void> {
  const lockPath = await projectLockPath(root, home);
  await mkdir(dirname(lockPath), { recursive: true });
  const owner = { pid: process.ppid, hostname: hostname(), since: 'now', rootDir: root, token: 'other' };
  await writeFile(lockPath, JSON.stringify({ ...owner, start: processStartTime(process.ppid) }));
}

describe('clawcode undo', () => {
  it('shows the files, asks, and restores them', async () => {
    await writeFile(join(root, 'a.ts'), 'a0');
    const run = await applied('add logging', { 'a.ts': 'a1', 'b.ts': 'b1' });
    const out = capture();
    const questions: string[] = [];
    const outcome = await runUndoCommand({
      rootDir: root,
      interactive: true,
      stdout: out.stream,
      confirm: async (q) => {
        questions.push(q);
        return true;
      },
    });
    expect(outcome).toMatchObject({ status: 'undone', runId: run.runId, exitCode: 0 });
    expect(questions).toEqual(['Undo 2 files?']);
    expect(out.text()).toContain(`Undo run ${run.runId}`);
    expect(out.text()).toMatch(/restore a\.ts/);
    expect(out.text()).toMatch(/delete\s+b\.ts/);
    expect(await readdir(root)).toEqual(['a.ts']);
    expect(await read('a.ts')).toBe('a0');
  });

  it('changes nothing when the person declines', async () => {
    await writeFile(join(root, 'a.ts'), 'a0');
    await applied('t', { 'a.ts': 'a1' });
    const outcome = await runUndoCommand({
      rootDir: root,
      interactive: true,
      stdout: capture().stream,
      confirm: async () => false,
    });
    expect(outcome.status).toBe('declined');
    expect(await read('a.ts')).toBe('a1');
  });

  it('refuses after an external edit, listing the file, and --force restores only the untouched ones', async () => {
    await writeFile(join(root, 'a.ts'), 'a0');
    await writeFile(join(root, 'b.ts'), 'b0');
    await applied('t', { 'a.ts': 'a1', 'b.ts': 'b1' });
    await writeFile(join(root, 'b.ts'), 'hand edit');
    const out = capture();
    await expect(runUndoCommand({ rootDir: root, yes: true, stdout: out.stream })).rejects.toMatchObject({
      code: 'undo_conflict',
      exitCode: 1,
      message: expect.stringContaining('b.ts (modified)'),
    });
    expect(out.text()).toMatch(/changed b\.ts/);
    expect(await read('a.ts')).toBe('a1');

    const forced = await runUndoCommand({ rootDir: root, yes: true, force: true, stdout: capture().stream });
    expect(forced.result).toMatchObject({ restored: ['a.ts'], skipped: ['b.ts'] });
    expect([await read('a.ts'), await read('b.ts')]).toEqual(['a0', 'hand edit']);
  });

  it('needs --yes when nobody can be asked, and prints JSON under --json', async () => {
    await writeFile(join(root, 'a.ts'), 'a0');
    await applied('t', { 'a.ts': 'a1' });
    await expect(runUndoCommand({ rootDir: root, interactive: false, stdout: capture().stream })).rejects.toMatchObject(
      { code: 'confirmation_needed', exitCode: 2 },
    );
    const out = capture();
    await runUndoCommand({ rootDir: root, yes: true, json: true, stdout: out.stream });
    expect(JSON.parse(out.text())).toMatchObject({ status: 'undone', restored: ['a.ts'], deleted: [], skipped: [] });
  });

  it('first rolls back a run interrupted mid-apply, then undoes the last applied run', async () => {
    await writeFile(join(root, 'a.ts'), 'a0');
    await applied('good', { 'a.ts': 'a1' });
    const crashed = await applied('crashed', { 'a.ts': 'a2', 'tmp.ts': 'x' });
    crashed.status = 'applying';
    await writeManifest(crashed);
    const out = capture();
    const outcome = await runUndoCommand({ rootDir: root, yes: true, stdout: out.stream });
    expect(out.text()).toMatch(/interrupted while writing files[\s\S]*Rolled back/);
    expect(outcome.result).toMatchObject({ restored: ['a.ts'] });
    expect(await readdir(root)).toEqual(['a.ts']);
    expect(await read('a.ts')).toBe('a0');
    expect((await listRuns(root)).map((r) => r.status)).toEqual(['rolled_back', 'undone']);
  });

  it('refuses while another live clawcode run holds the project lock', async () => {
    await writeFile(join(root, 'a.ts'), 'a0');
    await applied('t', { 'a.ts': 'a1' });
    await lockedByAnother();
    await expect(
      runUndoCommand({ rootDir: root, yes: true, lockWaitMs: 50, stdout: capture().stream }),
    ).rejects.toMatchObject({ code: 'project_locked' });
    expect(await read('a.ts')).toBe('a1');
  });

  it('says there is nothing to undo', async () => {
    await expect(runUndoCommand({ rootDir: root, yes: true, stdout: capture().stream })).rejects.toMatchObject({
      code: 'nothing_to_undo',
    });
  });
});

describe('clawcode history', () => {
  it('lists runs newest first with time, status, files and task', async () => {
    await writeFile(join(root, 'a.ts'), 'a0');
    await applied('first task', { 'a.ts': 'a1' });
    await applied('second task', { 'a.ts': 'a2', 'n.ts': 'n' });
    await runUndoCommand({ rootDir: root, yes: true, stdout: capture().stream });
    const out = capture();
    const entries = await runHistoryCommand({ rootDir: root, stdout: out.stream });
    const lines = out.text().trim().split('\n');
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d {2}undone\s+2 files {2}\S+ {2}second task$/);
    expect(lines[1]).toMatch(/applied\s+1 file\s+\S+ {2}first task$/);
    expect(entries.map((e) => [e.task, e.status, e.files.length])).toEqual([
      ['second task', 'undone', 2],
      ['first task', 'applied', 1],
    ]);
    const json = capture();
    await runHistoryCommand({ rootDir: root, json: true, stdout: json.stream });
    expect(JSON.parse(json.text())[1]).toMatchObject({
      task: 'first task',
      provider: 'openai',
      model: 'gpt-x',
      files: [{ path: 'a.ts', created: false }],
    });
  });

  it('says when there are no runs', async () => {
    const out = capture();
    expect(await runHistoryCommand({ rootDir: root, stdout: out.stream })).toEqual([]);
    expect(out.text()).toMatch(/No runs yet/);
  });
});

describe('start-up recovery', () => {
  async function interrupted(): Promise<RunRecord> {
    await writeFile(join(root, 'a.ts'), 'a0');
    const run = await applied('crashed', { 'a.ts': 'a1', 'new.ts': 'n' });
    run.status = 'applying';
    await writeManifest(run);
    return run;
  }

  it('asks, then rolls an interrupted run back', async () => {
    const run = await interrupted();
    const printed: string[] = [];
    const outcome = await recoverUnfinishedRuns({
      rootDir: root,
      confirm: async () => true,
      print: (t) => printed.push(stripVTControlCharacters(t)),
    });
    expect(outcome.rolledBack).toEqual([{ runId: run.runId, restored: ['a.ts'], deleted: ['new.ts'], left: [] }]);
    expect(printed.join('\n')).toMatch(/interrupted while writing files/);
    expect(await readdir(root)).toEqual(['a.ts']);
    expect(await read('a.ts')).toBe('a0');
    expect((await listRuns(root))[0]?.status).toBe('rolled_back');
  });

  it('leaves the run when the person declines, and offers it again', async () => {
    await interrupted();
    const outcome = await recoverUnfinishedRuns({ rootDir: root, confirm: async () => false });
    expect(outcome).toMatchObject({ declined: true, rolledBack: [] });
    expect(await read('a.ts')).toBe('a1');
    expect((await recoverUnfinishedRuns({ rootDir: root })).rolledBack).toHaveLength(1);
    expect(await read('a.ts')).toBe('a0');
  });

  it('does nothing when there is no unfinished run', async () => {
    await writeFile(join(root, 'a.ts'), 'a0');
    await applied('fine', { 'a.ts': 'a1' });
    const confirm = vi.fn(async () => true);
    expect(await recoverUnfinishedRuns({ rootDir: root, confirm })).toMatchObject({ found: [], rolledBack: [] });
    expect(confirm).not.toHaveBeenCalled();
  });

  it('leaves a run alone while another live process holds the project lock (it may still be applying)', async () => {
    await interrupted();
    await lockedByAnother();
    const outcome = await recoverUnfinishedRuns({ rootDir: root, confirm: async () => true });
    expect(outcome).toMatchObject({ busy: true, rolledBack: [] });
    expect(await read('a.ts')).toBe('a1');
  });

  it('rolls back while this process holds the project lock', async () => {
    await interrupted();
    const release = await acquireProjectLock(root);
    expect((await recoverUnfinishedRuns({ rootDir: root })).busy).toBe(false);
    await release();
    expect(await read('a.ts')).toBe('a0');
  });
});
