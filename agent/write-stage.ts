import { performance } from 'node:perf_hooks';
import type { CommandRules } from '../config/settings-commands.js';
import type { ProjectMemory } from '../memory/memory.js';
import { applyRun } from '../utils/journal/journal.js';
import type { RunRecord } from '../utils/journal/store.js';
import type { Plan } from '../utils/plan.js';
import type { AgentEmitter } from './events.js';
import type { PlannedChange, PreparedPlan } from './prepare.js';
import {
  commitUncommittedFirst,
  commitWritten,
  rememberRun,
  runVerify,
  uncommittedFiles,
  type RunToRemember,
  type VerifyReport,
} from './write-after.js';
import { runPlanCommands, type CommandNotice, type CommandQuestion, type CommandReport } from './write-commands.js';

/** How a task ended. */
export type TaskStatus = 'applied' | 'dry_run' | 'not_confirmed' | 'declined' | 'failed' | 'no_changes' | 'rolled_back';

/**
 * Exit code of a run: 0 done (also declined, dry run, nothing to change), 1 written but not committed (or, with
 * `commit`, nothing written because the files' uncommitted changes could not be committed first), 3 the plan was
 * not applied (nothing written), 4 verify or a plan command failed.
 */
export type WriteExitCode = 0 | 1 | 3 | 4;

/** A file the person chose to write, with the content to write (possibly a reviewed subset of hunks). */
export interface AcceptedFile {
  path: string;
  after: string;
}

/** The person's answer to "write these changes?": everything, a reviewed subset, or nothing. */
export type ChangeApproval =
  { type: 'accept-all' } | { type: 'accept-some'; files: AcceptedFile[] } | { type: 'decline' };

/**
 * How the stage reaches a person. Each callback is optional: a missing one means nobody can be asked
 * (no terminal, `--json`), and the stage then writes only with `yes` and runs only auto-approved commands.
 */
export interface WriteDecisions {
  /** Confirm or review the changes before anything is written (skipped with `yes`). */
  approveChanges?: (changes: readonly PlannedChange[]) => Promise<ChangeApproval>;
  /** Answer a question about plan commands (the batch, or one destructive command). */
  approveCommands?: (question: CommandQuestion) => Promise<boolean>;
  /**
   * Go on with a rule that changes more than {@link LARGE_REWRITE_FILES} files (asked before its diffs are
   * shown, unless `yes` or a dry run)? Missing: such a plan is refused without `yes`.
   */
  approveLargeRewrite?: (files: number) => Promise<boolean>;
}

/** More changed files than this, from a plan with a rule, need a yes of their own (or `yes`). */
export const LARGE_REWRITE_FILES = 500;

/**
 * What the stage tells the surface, in the order it happens; the CLI prints them, the TUI and the library
 * may ignore them. `preview` comes first (the plan's analysis, per-patch outcomes and diffs).
 */
export type WriteNotice =
  | { type: 'preview'; plan: Plan; prepared: PreparedPlan }
  | { type: 'refused'; reason: 'path_issues'; issues: PreparedPlan['pathIssues'] }
  | { type: 'refused'; reason: 'patches_failed'; failed: PreparedPlan['results'] }
  | { type: 'refused'; reason: 'large_rewrite'; files: number }
  | { type: 'dry_run' }
  /** Files to write hold uncommitted changes; with `commit` they are committed first (`committed_first`). */
  | { type: 'uncommitted'; paths: string[]; commit: boolean }
  | { type: 'committed_first'; files: string[]; commit: string }
  | { type: 'no_terminal' }
  | { type: 'declined' }
  | { type: 'written'; files: string[]; runId: string }
  | { type: 'verify_started'; command: string }
  | { type: 'verify_finished'; verify: VerifyReport }
  | { type: 'committed'; files: string[]; commit: string }
  | CommandNotice;

/**
 * What the person chose about writing (flags and settings), the same for every surface: the console task,
 * `apply`, the REPL, the TUI. Passed whole from the surface to {@link runWriteStage}.
 */
export interface WritePolicy {
  /** Compute and report, write nothing, run nothing, remember nothing. */
  dryRun?: boolean;
  /** Write without asking (commands still need `runCommands`, a rule or a person). */
  yes?: boolean;
  /** `--run-commands`: run the plan's allow-listed commands without asking. */
  runCommands?: boolean;
  /** `--allow-network`: plan and verify commands keep the network inside the sandbox. */
  allowNetwork?: boolean;
  /** Command allow/deny rules from settings. */
  commandRules?: CommandRules;
  /** Command to run after writing (`--verify`); a failure ends with exit code 4. */
  verify?: string;
  /** A failing verify restores the journal. */
  rollbackOnFail?: boolean;
  /** Commit exactly the written files with the task as the message. */
  commit?: boolean;
  /** Let git run the repository's commit hooks (and sign) for that commit; default neither. */
  commitHooks?: boolean;
}

/** Inputs of {@link runWriteStage}: the prepared plan, the write policy, and how to decide and report. */
export interface WriteStageInput extends WritePolicy {
  /** Absolute project root. */
  rootDir: string;
  /** The task, recorded in the journal, memory and a `--commit` message. */
  task: string;
  plan: Plan;
  /** The plan applied in memory (agent/prepare.ts `preparePlan`). */
  prepared: PreparedPlan;
  /** Recorded in the run journal. */
  meta?: { provider?: string; model?: string };
  /**
   * The memory step (never called on a dry run): default agent/write-after.ts `rememberRun`; a surface may
   * pass its own (e.g. one that asks about the model's notes); `false` remembers nothing.
   */
  remember?: false | ((run: RunToRemember) => Promise<ProjectMemory | null>);
  /** CLAWCODE_HOME override (journal, memory). */
  homeDir?: string;
  signal?: AbortSignal;
  emitter?: AgentEmitter;
  decisions?: WriteDecisions;
  onNotice?: (notice: WriteNotice) => void;
}

/** What the stage did. Times in ms. */
export interface WriteReport {
  status: TaskStatus;
  exitCode: WriteExitCode;
  /** One line saying why the run did not end cleanly, when it did not. */
  error?: string;
  /** Project-relative paths written (empty after a rollback). */
  filesWritten: string[];
  /** The journal record of the write, when something was written. */
  run?: RunRecord;
  runId?: string;
  /** The run's journal folder. */
  journal?: string;
  verify?: VerifyReport;
  /** Full hash of the `--commit` commit. */
  commit?: string;
  /** `--commit`: full hash of the commit of the files' uncommitted changes, made before the write. */
  committedFirst?: string;
  commands: CommandReport[];
  /** Session memory as saved, or null when nothing was remembered (dry run, `remember: false`, or the step said so). */
  memory: ProjectMemory | null;
  timings: { writeMs: number; commandsMs: number };
}

/**
 * The write half of a task, shared by every surface (CLI task, `apply`, REPL, TUI, library): refuse a
 * plan that did not apply, ask (unless `yes`), write all accepted files through the journal (atomic and
 * undoable), verify (and roll back), commit, run the commands the policy and the person allow, and
 * remember the run. Never prints or prompts: decisions come in through `decisions`, progress goes out
 * through `onNotice` and the emitter (`write_file`, `run_tests`, `command_done`, `success`).
 *
 * @returns the report; `exitCode` 3 means nothing was written
 * @throws InterruptedError when `signal` aborts; IoError/StaleFileError from the journal write (nothing
 *         half-written); whatever a decision callback throws (e.g. a cancelled prompt)
 */
export async function runWriteStage(input: WriteStageInput): Promise<WriteReport> {
  const notify = input.onNotice ?? (() => undefined);
  const report: WriteReport = {
    status: 'failed',
    exitCode: 0,
    filesWritten: [],
    commands: [],
    memory: null,
    timings: { writeMs: 0, commandsMs: 0 },
  };
  const { prepared } = input;
  const large = prepared.results.some((r) => r.files) ? prepared.changes.length : 0;
  if (large > LARGE_REWRITE_FILES && !input.yes && !input.dryRun) {
    const ask = input.decisions?.approveLargeRewrite;
    if (!ask) {
      notify({ type: 'refused', reason: 'large_rewrite', files: large });
      const error = `the plan's rules change ${large} files, more than ${LARGE_REWRITE_FILES}: refused without --yes`;
      return end(input, report, 'failed', 3, error);
    }
    if (!(await ask(large))) {
      notify({ type: 'declined' });
      return end(input, report, 'declined', 0);
    }
  }
  notify({ type: 'preview', plan: input.plan, prepared });
  if (prepared.pathIssues.length > 0) {
    notify({ type: 'refused', reason: 'path_issues', issues: prepared.pathIssues });
    return end(input, report, 'failed', 3, `plan refused: ${prepared.pathIssues[0]!.message}`);
  }
  if (!prepared.ok) {
    const failed = prepared.results.find((r) => !r.applied);
    notify({ type: 'refused', reason: 'patches_failed', failed: prepared.results.filter((r) => !r.applied) });
    return end(
      input,
      report,
      'failed',
      3,
      failed ? `patch #${failed.index + 1} (${failed.file}): ${failed.error ?? 'not applied'}` : 'plan not applied',
    );
  }
  if (input.dryRun) {
    notify({ type: 'dry_run' });
    report.status = 'dry_run';
    return finish(input, report);
  }

  const chosen = await chooseFiles(input, notify);
  if (chosen.type === 'stop') return end(input, report, chosen.status, 0);
  if (chosen.files.length === 0) {
    report.status = 'no_changes';
    return finish(input, report);
  }
  if (input.commit) {
    try {
      const first = await commitUncommittedFirst(
        input.rootDir,
        chosen.files.map((f) => f.path),
        input.task,
        input.commitHooks,
      );
      if (first) {
        report.committedFirst = first.commit;
        notify({ type: 'committed_first', files: first.files, commit: first.commit });
      }
    } catch (error) {
      // Writing now would put the person's work into clawcode's commit: stop before anything is written.
      const why = (error as Error).message;
      return end(
        input,
        report,
        'failed',
        1,
        `nothing written: the uncommitted changes could not be committed first: ${why}`,
      );
    }
  }
  const stop = await writeAndCheck(input, chosen.files, report, notify);
  return finish(input, report, { skipCommands: stop });
}

/** Which files to write: all of them with `yes`, else what the person accepts. */
async function chooseFiles(
  input: WriteStageInput,
  notify: (n: WriteNotice) => void,
): Promise<{ type: 'write'; files: AcceptedFile[] } | { type: 'stop'; status: 'not_confirmed' | 'declined' }> {
  const all = input.prepared.changes.map((c) => ({ path: c.path, after: c.after }));
  if (all.length === 0) return { type: 'write', files: [] };
  const dirty = await uncommittedFiles(
    input.rootDir,
    all.map((f) => f.path),
  );
  if (dirty.length > 0) notify({ type: 'uncommitted', paths: dirty, commit: Boolean(input.commit) });
  if (input.yes) return { type: 'write', files: all };
  const ask = input.decisions?.approveChanges;
  if (!ask) {
    notify({ type: 'no_terminal' });
    return { type: 'stop', status: 'not_confirmed' };
  }
  const answer = await ask(input.prepared.changes);
  const files = answer.type === 'accept-all' ? all : answer.type === 'accept-some' ? answer.files : [];
  if (files.length === 0) {
    notify({ type: 'declined' });
    return { type: 'stop', status: 'declined' };
  }
  return { type: 'write', files };
}

/**
 * Write the accepted files through the journal, then verify and commit.
 * @returns true when verify failed (the plan's commands are then skipped)
 */
async function writeAndCheck(
  input: WriteStageInput,
  files: AcceptedFile[],
  report: WriteReport,
  notify: (n: WriteNotice) => void,
): Promise<boolean> {
  const t = performance.now();
  const byPath = new Map(input.prepared.changes.map((c) => [c.path, c]));
  const record = await applyRun({
    rootDir: input.rootDir,
    changes: files.map((f) => ({ path: f.path, before: byPath.get(f.path)?.before ?? null, after: f.after })),
    meta: { task: input.task, ...input.meta },
    homeDir: input.homeDir,
    onWrite: (path) => input.emitter?.emit('write_file', { path }),
  });
  Object.assign(report, { run: record, runId: record.runId, journal: record.runDir, status: 'applied' as const });
  report.filesWritten = files.map((f) => f.path);
  report.timings.writeMs = Math.round(performance.now() - t);
  notify({ type: 'written', files: report.filesWritten, runId: record.runId });

  if (input.verify) {
    notify({ type: 'verify_started', command: input.verify });
    const verify = await runVerify({
      rootDir: input.rootDir,
      command: input.verify,
      runId: record.runId,
      rollbackOnFail: Boolean(input.rollbackOnFail),
      allowNetwork: input.allowNetwork,
      signal: input.signal,
      homeDir: input.homeDir,
    });
    report.verify = verify;
    notify({ type: 'verify_finished', verify });
    if (verify.exitCode !== 0 || verify.timedOut || verify.controlChanged) {
      if (verify.rolledBack) {
        report.filesWritten = [];
        report.status = 'rolled_back';
      }
      report.exitCode = 4;
      report.error = `verify failed: ${input.verify}${verify.controlChanged ? `: ${verify.controlChanged}` : ''}${verify.rolledBack ? ' (changes rolled back)' : ''}`;
      if (verify.rollbackError) {
        const n = report.filesWritten.length;
        report.error +=
          `; not rolled back (${verify.rollbackError}): ${n === 1 ? 'the file written stays' : `the ${n} files written stay`} written` +
          ` (undo with: clawcode undo ${record.runId} --force)`;
      }
      // A failed verify skips the commit and the plan's commands, but the run is still remembered.
      return true;
    }
  }
  if (input.commit) {
    try {
      report.commit = await commitWritten(input.rootDir, report.filesWritten, input.task, input.commitHooks);
      notify({ type: 'committed', files: report.filesWritten, commit: report.commit });
    } catch (error) {
      // The files are written and undoable; a commit that fails is reported, not a reason to lose the run.
      report.exitCode = 1;
      report.error = `written but not committed: ${(error as Error).message}`;
    }
  }
  return false;
}

function end(
  input: WriteStageInput,
  report: WriteReport,
  status: TaskStatus,
  exitCode: WriteExitCode,
  error?: string,
): WriteReport {
  report.status = status;
  report.exitCode = exitCode;
  if (error) report.error = error;
  return report;
}

/** The commands, memory and the `success` event: the tail of every run that got past the checks. */
async function finish(
  input: WriteStageInput,
  report: WriteReport,
  tail: { skipCommands?: boolean } = {},
): Promise<WriteReport> {
  const t = performance.now();
  const { commands } = input.plan;
  if (tail.skipCommands) {
    report.commands = commands.map((command) => ({ command, ran: false, exitCode: null, skipped: 'verify_failed' }));
  } else if (input.dryRun) {
    report.commands = commands.map((command) => ({ command, ran: false, exitCode: null, skipped: 'dry_run' }));
    if (commands.length > 0) input.onNotice?.({ type: 'commands_listed', commands: [...commands], dryRun: true });
  } else {
    report.commands = await runPlanCommands({
      rootDir: input.rootDir,
      commands,
      planFiles: report.filesWritten,
      runCommands: Boolean(input.runCommands),
      allowNetwork: input.allowNetwork,
      rules: input.commandRules,
      ask: input.decisions?.approveCommands,
      signal: input.signal,
      emitter: input.emitter,
      onNotice: input.onNotice,
    });
  }
  report.timings.commandsMs = Math.round(performance.now() - t);
  if (!input.dryRun && input.remember !== false) {
    const remember = input.remember ?? rememberRun;
    report.memory = await remember({
      rootDir: input.rootDir,
      task: input.task,
      filesWritten: report.filesWritten,
      agentNotes: input.plan.agent_notes,
      runId: report.status === 'applied' ? report.runId : undefined,
      homeDir: input.homeDir,
    });
  }
  const failed = report.commands.find((c) => c.ran && (c.exitCode !== 0 || c.controlChanged || c.restored));
  if (report.exitCode === 0 && failed) {
    const why = failed.controlChanged ?? failed.restored;
    report.exitCode = 4;
    report.error = why ? `command failed: ${failed.command}: ${why}` : `command failed: ${failed.command}`;
  }
  input.emitter?.emit('success', { message: report.status, filesWritten: report.filesWritten });
  return report;
}
