import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgentEmitter, type AgentEventName } from '../../agent/events.js';
import { preparePlan } from '../../agent/prepare.js';
import { runWriteStage, type ChangeApproval, type WriteNotice, type WriteStageInput } from '../../agent/write-stage.js';
import type { RunToRemember } from '../../agent/write-after.js';
import { approveCommand, type CommandQuestion } from '../../agent/write-commands.js';
import { loadProjectMemory } from '../../memory/memory.js';
import type { Plan } from '../../utils/plan.js';
import { gitIn } from '../support/fixture.js';
import { detectSandbox } from '../../utils/shell/sandbox.js';

let root: string;
let home: string;
let savedHome: string | undefined;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'clawcode-write-'));
  home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
  savedHome = process.env.CLAWCODE_HOME;
  process.env.CLAWCODE_HOME = home;
  await writeFile(join(root, 'a.txt'), 'alpha\n');
  await writeFile(join(root, 'b.txt'), 'beta\n');
});
afterEach(async () => {
  if (savedHome === undefined) delete process.env.CLAWCODE_HOME;
  else process.env.CLAWCODE_HOME = savedHome;
  await rm(root, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

function plan(
  commands: string[] = [],
  patches = [
    { file: 'a.txt', operation: 'replace' as const, find: 'alpha', replace: 'ALPHA' },
    { file: 'b.txt', operation: 'replace' as const, find: 'beta', replace: 'BETA' },
  ],
): Plan {
  return { analysis: 'shout', files_to_edit: [], patches, commands, agent_notes: ['a note'] };
}

/** Run the stage on `p` with injected decisions; collects notices and events. */
async function stage(p: Plan, extra: Partial<WriteStageInput> = {}) {
  const prepared = await preparePlan(root, p);
  const notices: WriteNotice[] = [];
  const events: AgentEventName[] = [];
  const emitter = createAgentEmitter();
  emitter.onAny((name) => events.push(name));
  const report = await runWriteStage({
    rootDir: root,
    task: 'shout',
    plan: p,
    prepared,
    homeDir: home,
    emitter,
    onNotice: (n) => notices.push(n),
    ...extra,
  });
  return { report, notices: notices.map((n) => n.type), events };
}

const read = (path: string) => readFile(join(root, path), 'utf8');
const runsInHome = async () => (existsSync(join(home, 'runs')) ? (await readdir(join(home, 'runs'))).length : 0);

describe('runWriteStage: the changes decision', () => {
  it('writes nothing when the person says no, and remembers nothing', async () => {
    const asked: number[] = [];
    const { report, notices, events } = await stage(plan(), {
      decisions: { approveChanges: async (changes) => (asked.push(changes.length), { type: 'decline' }) },
    });
    expect(asked).toEqual([2]);
    expect(report).toMatchObject({ status: 'declined', exitCode: 0, filesWritten: [], memory: null });
    expect(await read('a.txt')).toBe('alpha\n');
    expect(await read('b.txt')).toBe('beta\n');
    expect(await runsInHome()).toBe(0);
    expect(notices).toEqual(['preview', 'declined']);
    expect(events).not.toContain('write_file');
  });

  it('writes only the reviewed subset, with the reviewed content', async () => {
    const answer: ChangeApproval = { type: 'accept-some', files: [{ path: 'b.txt', after: 'Beta (reviewed)\n' }] };
    const { report, events } = await stage(plan(), { decisions: { approveChanges: async () => answer } });
    expect(report).toMatchObject({ status: 'applied', exitCode: 0, filesWritten: ['b.txt'] });
    expect(report.run?.files.map((f) => f.path)).toEqual(['b.txt']);
    expect(await read('a.txt')).toBe('alpha\n');
    expect(await read('b.txt')).toBe('Beta (reviewed)\n');
    expect(events.filter((e) => e === 'write_file')).toHaveLength(1);
    expect(report.memory?.recentFiles).toEqual(['b.txt']);
  });

  it('does not write without yes when nobody can be asked', async () => {
    const { report, notices } = await stage(plan());
    expect(report).toMatchObject({ status: 'not_confirmed', exitCode: 0, filesWritten: [] });
    expect(notices).toContain('no_terminal');
    expect(await read('a.txt')).toBe('alpha\n');
  });

  it('with yes writes every file through the journal, emits the write events, and remembers the run', async () => {
    const { report, events } = await stage(plan(), { yes: true });
    expect(report).toMatchObject({ status: 'applied', exitCode: 0, filesWritten: ['a.txt', 'b.txt'] });
    expect(report.runId).toBe(report.run?.runId);
    expect(await read('a.txt')).toBe('ALPHA\n');
    expect(events).toEqual(['write_file', 'write_file', 'success']);
    expect((await loadProjectMemory(root, home)).lastTasks).toEqual(['shout']);
    // Nobody saw the model's notes (the default memory step has no person): they are not stored.
    expect(report.memory?.notes).toEqual([]);
  });

  it('hands the finished run to an injected memory step, and skips memory with remember: false', async () => {
    const seen: RunToRemember[] = [];
    const { report } = await stage(plan(), { yes: true, remember: async (run) => (seen.push(run), null) });
    expect(seen).toEqual([
      {
        rootDir: root,
        task: 'shout',
        filesWritten: ['a.txt', 'b.txt'],
        agentNotes: ['a note'],
        runId: report.runId,
        homeDir: home,
      },
    ]);
    expect(report.memory).toBeNull();
    await writeFile(join(root, 'a.txt'), 'alpha\n');
    await writeFile(join(root, 'b.txt'), 'beta\n');
    const off = await stage(plan(), { yes: true, remember: false });
    expect(off.report.memory).toBeNull();
    expect(existsSync(join(home, 'memory'))).toBe(false);
  });

  it('refuses a plan whose patch did not apply: exit 3, nothing written, no question asked', async () => {
    const bad = plan([], [{ file: 'a.txt', operation: 'replace', find: 'not there', replace: 'x' }]);
    let asked = false;
    const { report, notices } = await stage(bad, {
      yes: false,
      decisions: { approveChanges: async () => ((asked = true), { type: 'accept-all' }) },
    });
    expect(report).toMatchObject({ status: 'failed', exitCode: 3 });
    expect(report.error).toMatch(/^patch #1 \(a\.txt\)/);
    expect(asked).toBe(false);
    expect(notices).toEqual(['preview', 'refused']);
    expect(await runsInHome()).toBe(0);
  });

  it('refuses a plan with a path outside the root: exit 3', async () => {
    const bad = plan([], [{ file: '../escape.txt', operation: 'replace', find: '', replace: 'x' }]);
    const { report } = await stage(bad, { yes: true });
    expect(report).toMatchObject({ status: 'failed', exitCode: 3 });
    expect(report.error).toMatch(/^plan refused/);
  });

  it('a dry run writes, runs and remembers nothing, and lists the commands as not run', async () => {
    const { report, notices } = await stage(plan(['echo hi']), { dryRun: true, yes: true, runCommands: true });
    expect(report).toMatchObject({ status: 'dry_run', exitCode: 0, filesWritten: [], memory: null });
    expect(report.commands).toEqual([{ command: 'echo hi', ran: false, exitCode: null, skipped: 'dry_run' }]);
    expect(notices).toEqual(['preview', 'dry_run', 'commands_listed']);
    expect(await read('a.txt')).toBe('alpha\n');
    expect(existsSync(join(home, 'memory'))).toBe(false);
  });
});

// Commands are decided by the shell-parsed allow-list and run in the bubblewrap sandbox; without a
// sandbox nothing is auto-approved, so the cases that run commands need one.
const sandboxed = (await detectSandbox()).available;

describe('runWriteStage: commands', () => {
  it.skipIf(!sandboxed)(
    'runs an auto-approved command (--run-commands) in the sandbox and emits run_tests and command_done',
    async () => {
      await writeFile(join(root, 'Makefile'), 'hi:\n\t@echo hi\n');
      const { report, events } = await stage(plan(['make hi']), { yes: true, runCommands: true });
      expect(report.commands).toMatchObject([
        { command: 'make hi', ran: true, exitCode: 0, sandboxed: true, decision: 'auto-approve' },
      ]);
      expect(report.commands[0]!.stdout).toBe('hi\n');
      expect(events).toEqual(['write_file', 'write_file', 'run_tests', 'command_done', 'success']);
    },
  );

  it.skipIf(!sandboxed)('asks once for the batch; a no skips every asked command', async () => {
    const questions: CommandQuestion[] = [];
    const { report } = await stage(plan(['make one', 'make two']), {
      yes: true,
      decisions: { approveCommands: async (q) => (questions.push(q), false) },
    });
    expect(questions).toEqual([{ type: 'batch', commands: ['make one', 'make two'] }]);
    expect(report.commands.map((c) => c.skipped)).toEqual(['not_confirmed', 'not_confirmed']);
    expect(report.exitCode).toBe(0);
  });

  it.skipIf(!sandboxed)('a yes to the batch runs them; a failing command ends with exit code 4', async () => {
    await writeFile(join(root, 'Makefile'), 'ok:\n\t@true\nfail:\n\t@exit 3\n');
    const { report } = await stage(plan(['make ok', 'make fail']), {
      yes: true,
      decisions: { approveCommands: async () => true },
    });
    expect(report.commands.map((c) => [c.ran, c.exitCode])).toEqual([
      [true, 0],
      [true, 2],
    ]);
    expect(report).toMatchObject({ status: 'applied', exitCode: 4, error: 'command failed: make fail' });
  });

  it('rejects a command denied by a rule without asking', async () => {
    const questions: CommandQuestion[] = [];
    const { report, notices } = await stage(plan(['npm publish']), {
      yes: true,
      runCommands: true,
      commandRules: { allow: [], deny: ['npm publish'] },
      decisions: { approveCommands: async (q) => (questions.push(q), true) },
    });
    expect(report.commands).toEqual([
      {
        command: 'npm publish',
        ran: false,
        exitCode: null,
        skipped: 'denied_by_rule',
        decision: 'reject',
        reason: 'matches a deny rule: npm publish',
      },
    ]);
    expect(questions).toEqual([]);
    expect(notices).toContain('command_refused');
  });

  it('asks about a destructive command on its own even with --run-commands; not run when nobody can be asked', async () => {
    const questions: CommandQuestion[] = [];
    const asked = await stage(plan(['git clean -fdx']), {
      yes: true,
      runCommands: true,
      decisions: { approveCommands: async (q) => (questions.push(q), false) },
    });
    expect(questions).toEqual([
      { type: 'single', command: 'git clean -fdx', reason: 'destructive: git clean deletes untracked files' },
    ]);
    expect(asked.report.commands[0]).toMatchObject({ ran: false, skipped: 'declined' });

    await rm(join(home, 'runs'), { recursive: true, force: true });
    await writeFile(join(root, 'a.txt'), 'alpha\n');
    await writeFile(join(root, 'b.txt'), 'beta\n');
    const alone = await stage(plan(['git clean -fdx']), { yes: true, runCommands: true });
    expect(alone.report.commands[0]).toMatchObject({ ran: false, skipped: 'needs_confirmation' });
  });
});

describe('approveCommand', () => {
  const policy = { rootDir: '/p', runCommands: false };
  it('answers with the auto-approve / ask-user / reject union', async () => {
    expect(await approveCommand('npm test', policy)).toEqual(
      sandboxed
        ? { type: 'auto-approve', reason: "npm test runs the project's test script" }
        : { type: 'ask-user', reason: "no sandbox on this machine (npm test runs the project's test script)" },
    );
    expect(await approveCommand('npm test', { ...policy, rules: { allow: ['*'], deny: ['npm test'] } })).toEqual({
      type: 'reject',
      reason: 'matches a deny rule: npm test',
    });
    expect(await approveCommand('node -e 1', policy)).toEqual({
      type: 'ask-user',
      reason: 'runs inline code (node -e)',
    });
    expect(await approveCommand('git reset --hard', { ...policy, runCommands: true })).toMatchObject({
      type: 'ask-user',
    });
  });
});

describe('runWriteStage: verify and commit', () => {
  it('a failing verify with rollback restores the files, skips the commands and ends with exit code 4', async () => {
    const { report, notices } = await stage(plan(['echo never']), {
      yes: true,
      runCommands: true,
      verify: 'exit 3',
      rollbackOnFail: true,
    });
    expect(report).toMatchObject({
      status: 'rolled_back',
      exitCode: 4,
      filesWritten: [],
      verify: { exitCode: 3, rolledBack: true },
    });
    expect(report.error).toBe('verify failed: exit 3 (changes rolled back)');
    expect(report.commands).toEqual([{ command: 'echo never', ran: false, exitCode: null, skipped: 'verify_failed' }]);
    expect(await read('a.txt')).toBe('alpha\n');
    expect(await read('b.txt')).toBe('beta\n');
    expect(notices).toEqual(['preview', 'written', 'verify_started', 'verify_finished']);
  });

  it('a failing verify without rollback keeps the files (undoable) and ends with exit code 4', async () => {
    const { report } = await stage(plan(), { yes: true, verify: 'exit 1' });
    expect(report).toMatchObject({
      status: 'applied',
      exitCode: 4,
      filesWritten: ['a.txt', 'b.txt'],
      verify: { rolledBack: false },
    });
    expect(await read('a.txt')).toBe('ALPHA\n');
  });

  it('commits exactly the written files with the task as the message', async () => {
    gitIn(root, 'init', '-q');
    gitIn(root, 'add', '.');
    gitIn(root, 'commit', '-q', '-m', 'base');
    await writeFile(join(root, 'other.txt'), 'untracked\n');
    const prev = { ...process.env };
    Object.assign(process.env, {
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.invalid',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.invalid',
    });
    try {
      const { report, notices } = await stage(plan(), { yes: true, commit: true });
      expect(report.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(gitIn(root, 'log', '-1', '--format=%H %s').trim()).toBe(`${report.commit} shout`);
      expect(gitIn(root, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n')).toEqual(['a.txt', 'b.txt']);
      expect(notices).toContain('committed');
    } finally {
      process.env = prev;
    }
  });

  it('a commit that fails keeps the written files and ends with exit code 1', async () => {
    const { report } = await stage(plan(), { yes: true, commit: true });
    expect(report).toMatchObject({ status: 'applied', exitCode: 1, filesWritten: ['a.txt', 'b.txt'] });
    expect(report.error).toMatch(/^written but not committed: /);
    expect(await read('a.txt')).toBe('ALPHA\n');
  });
});
