import { writeFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import chalk from 'chalk';
import { runAgent, type AgentRun, type Planner } from '../../agent/runner.js';
import type { PlannedChange, PreparedPlan } from '../../agent/prepare.js';
import type { ScanResult } from '../../agent/context/scan.js';
import { IoError } from '../../utils/errors.js';
import type { RepairReport } from '../../agent/repair.js';
import { makeSavedPlan } from '../../agent/plan-file.js';
import { createAgentEmitter, type AgentEmitter } from '../../agent/events.js';
import { runWriteStage, type TaskStatus } from '../../agent/write-stage.js';
import type { VerifyReport } from '../../agent/write-after.js';
import type { CommandReport } from '../../agent/write-commands.js';
import type { ProviderConfig, Usage } from '../../llm/types.js';
import type { CommandRules } from '../../config/settings-commands.js';
import { escapeTerminal } from '../../utils/terminal-text.js';
import { changeReport, type ChangeReport } from './report-changes.js';
import { reportedCostUsd } from './report-cost.js';
import { confirmPrompt } from '../console/ask.js';
import { consoleDecisions, printWriteNotice } from './write-console.js';
import { showNotesAndRemember } from '../commands/memory.js';
import { startTerminalSpinner } from '../console/spinner.js';
import { keepAsLastPlan, keepRepliesOf } from './keep.js';
import { printSummary } from './summary.js';
import { formatPromptEstimate } from '../commands/context.js';

export type { TaskStatus };
/** Options of one task run with console UX. Streams and `confirm` are injected so tests drive them. */
export interface TaskOptions {
  rootDir: string;
  task: string;
  provider: ProviderConfig;
  /** Context budget in characters. */
  budgetChars: number;
  dryRun: boolean;
  /** Apply edits without asking (commands still need `runCommands`). */
  yes: boolean;
  runCommands: boolean;
  /** `--allow-network`: commands and verify keep the network inside the sandbox. */
  allowNetwork?: boolean;
  /** Print one JSON report on stdout; never prompt. */
  json: boolean;
  /** `--quiet`: no spinner, plan, diffs or summary; questions, warnings, errors and the outcome line stay. */
  quiet?: boolean;
  debug: boolean;
  /** A person is at a terminal (stdin and stdout are TTYs, not --json). */
  interactive: boolean;
  timeoutMs?: number;
  homeDir?: string;
  signal?: AbortSignal;
  emitter?: AgentEmitter;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** Yes/no question; defaults to @inquirer/prompts `confirm`. */
  confirm?: (message: string) => Promise<boolean>;
  /** Decide which changes to write (per-hunk review); defaults to one yes/no for all. */
  review?: (changes: PlannedChange[]) => Promise<{ path: string; after: string }[] | null>;
  planner?: Planner;
  /** `--plan-out`: also save the plan (with base hashes) to this path. */
  planOut?: string;
  /** Command to run after writing (`--verify`); a failure exits 4. */
  verify?: string;
  /** `--rollback-on-fail`: a failing verify restores the journal. */
  rollbackOnFail?: boolean;
  /** `--commit`: commit exactly the written files with the task as the message. */
  commit?: boolean;
  /** `--commit-hooks`: git runs the repository's commit hooks (and signs) for that commit. */
  commitHooks?: boolean;
  /** Command allow/deny rules from settings. */
  commandRules?: CommandRules;
  /** Extra ignore patterns for the scan (settings `ignore`). */
  extraIgnore?: string[];
  /** The project's scan when the caller already made one (a wide task that fits one request): not repeated. */
  scan?: ScanResult;
  /** false: no repair round for refused patches (`--no-repair`, settings `repair: false`). */
  repair?: boolean;
  /** Pinned pathspecs (`--files`, `:add`) and the paths kept from the previous task (agent/context/carried-files.ts). */
  files?: readonly string[];
  kept?: readonly string[];
}

/** The `--json` report (and the return value of `executeTask`). Times in ms, usage in tokens. */
export interface TaskReport {
  task: string;
  status: TaskStatus;
  exitCode: number;
  provider: string;
  providerId: string;
  model: string;
  plan: AgentRun['plan'];
  repaired: boolean;
  /** The one patch-repair round, when refused patches were sent back (agent/repair.ts). */
  repair?: RepairReport;
  /**
   * One entry per patch. A rule (and a `replace_all` over a pathspec) adds its `matches`, the number of
   * `files` it changed, and the files that did not parse; a dropped patch its `note`.
   */
  patches: {
    index: number;
    file: string;
    applied: boolean;
    strategy?: string;
    error?: string;
    startLine?: number;
    matches?: number;
    files?: number;
    unparsed?: string[];
    note?: string;
  }[];
  pathIssues: { index: number; file: string; code: string; message: string }[];
  /** Each file the plan changes, with its unified diff (whether or not it was written). */
  changes: ChangeReport[];
  filesWritten: string[];
  runId?: string;
  journal?: string;
  commands: CommandReport[];
  usage: Usage | null;
  costUsd: number | null;
  context: {
    files: { path: string; chars: number; ranges: [number, number][] | null }[];
    totalChars: number;
    budget: number;
    scannedFiles: number;
  };
  verify?: VerifyReport;
  commit?: string;
  /** `--commit`: the commit of the files' uncommitted changes, made before the write. */
  committedFirst?: string;
  timings: AgentRun['timings'] & { writeMs: number; commandsMs: number };
  /** Wide changes: one entry per shard request. */
  shards?: import('../wide/report.js').ShardReport[];
  error?: string;
}

/** The per-patch and per-path parts of the report, from a prepared plan (task and `apply` alike). */
export function patchReport(prepared: PreparedPlan): Pick<TaskReport, 'patches' | 'pathIssues' | 'changes'> {
  return {
    changes: changeReport(prepared),
    patches: prepared.results.map((r) => ({
      index: r.index,
      file: r.file,
      applied: r.applied,
      strategy: r.strategy,
      error: r.error,
      startLine: r.startLine,
      ...(r.files ? { matches: r.matchCount ?? 0, files: r.files.length, unparsed: r.unparsed ?? [] } : {}),
      ...(r.note ? { note: r.note } : {}),
    })),
    pathIssues: prepared.pathIssues.map((i) => ({ index: i.index, file: i.file, code: i.code, message: i.message })),
  };
}

/**
 * Run one task end to end with console UX: spinner during the model
 * call, analysis and coloured diffs, confirmation (unless --yes), journaled atomic write, confirmed
 * commands, session memory, summary box. Under `--json` nothing is printed here: the caller prints
 * the returned report.
 *
 * @returns the report; `exitCode` is 0 done, 3 plan not applied (nothing written), 4 a command failed
 * @throws ProviderError, PlanParseError, ConfigError, IoError, InterruptedError (exit codes on the error)
 */
export async function executeTask(options: TaskOptions): Promise<TaskReport> {
  // Model and file text passes through here: terminal controls are shown, never obeyed (colours kept).
  const out = (text: string) =>
    options.json ? undefined : options.stdout.write(escapeTerminal(text, 'colored') + '\n');
  const emitter = options.emitter ?? createAgentEmitter();
  const spinner = await startSpinner(options, emitter);
  const started = performance.now();
  let run: AgentRun;
  try {
    run = await runAgent({
      rootDir: options.rootDir,
      task: options.task,
      provider: options.provider,
      budgetChars: options.budgetChars,
      homeDir: options.homeDir,
      emitter,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      planner: options.planner,
      extraIgnore: options.extraIgnore,
      repair: options.repair,
      files: options.files,
      kept: options.kept,
      scan: options.scan,
    });
  } catch (error) {
    await keepRepliesOf(error, options.homeDir);
    throw error;
  } finally {
    spinner?.stop();
  }

  const { plan, prepared } = run;
  const usage = run.planResult.usage;
  const model = run.planResult.reply.model || options.provider.model;
  const saved = makeSavedPlan(plan, prepared.targets, {
    task: options.task,
    provider: options.provider.name,
    model,
    usage: usage ?? null,
  });
  await keepAsLastPlan(options.rootDir, saved, options.homeDir);
  if (options.planOut) await savePlan(options.planOut, saved, out);
  const base = {
    task: options.task,
    provider: options.provider.name,
    providerId: options.provider.provider,
    model,
    plan,
    repaired: run.planResult.repaired,
    ...(run.repair ? { repair: run.repair } : {}),
    ...patchReport(prepared),
    usage: usage ?? null,
    costUsd: reportedCostUsd(options.provider, run.planResult.reply.model || options.provider.model, usage),
    context: {
      files: run.context.files.map((f) => ({ path: f.path, chars: f.chars, ranges: f.ranges })),
      totalChars: run.context.totalChars,
      budget: run.context.budget,
      scannedFiles: run.context.scannedFiles,
    },
    timings: run.timings,
  };
  return writeWithConsole(base, prepared, { ...options, emitter }, started);
}

/** `--plan-out`: save the plan with its base hashes. @throws IoError when the file cannot be written */
export async function savePlan(
  path: string,
  saved: ReturnType<typeof makeSavedPlan>,
  out: (text: string) => void,
): Promise<void> {
  try {
    await writeFile(path, JSON.stringify(saved, null, 2) + '\n');
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new IoError(`Cannot save the plan to ${path}: ${why}`, { cause: error });
  }
  out(chalk.dim(`Plan saved to ${path} (apply it later with: clawcode apply ${path})`));
}

/**
 * The second half of a task, shared by `executeTask` and `clawcode apply`: the write stage
 * (agent/write-stage.ts) with the console as its decisions and its notices printed, then the summary.
 *
 * @param base     the task, the plan-stage facts (or those of a saved plan) and the per-patch report
 * @param started  performance.now() when the task started, for the summary time
 * @returns the full report; `exitCode` 0 done, 1 not committed, 3 nothing written, 4 verify/command failed
 */
export async function writeWithConsole(
  base: Omit<TaskReport, 'status' | 'exitCode' | 'filesWritten' | 'commands' | 'timings'> & {
    timings: AgentRun['timings'];
  },
  prepared: PreparedPlan,
  options: Omit<TaskOptions, 'provider' | 'budgetChars' | 'planner'>,
  started: number,
): Promise<TaskReport> {
  // Model and file text passes through here: terminal controls are shown, never obeyed (colours kept).
  const out = (text: string) =>
    options.json ? undefined : options.stdout.write(escapeTerminal(text, 'colored') + '\n');
  const { review } = options;
  // Time at the questions is the person's, not clawcode's: the summary shows it apart from the work.
  let promptMs = 0;
  const waiting =
    <A extends unknown[], R>(ask: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const t = performance.now();
      try {
        return await ask(...args);
      } finally {
        promptMs += performance.now() - t;
      }
    };
  if (base.repair && !options.quiet) {
    out(
      chalk.dim(
        `Repair round for patch ${base.repair.patches.map((n) => `#${n}`).join(', ')} after ${base.repair.firstError}`,
      ),
    );
  }
  const write = await runWriteStage({
    rootDir: options.rootDir,
    task: options.task,
    plan: base.plan,
    prepared,
    meta: { provider: base.provider, model: base.model },
    dryRun: options.dryRun,
    yes: options.yes,
    runCommands: options.runCommands,
    allowNetwork: options.allowNetwork,
    commandRules: options.commandRules,
    verify: options.verify,
    rollbackOnFail: options.rollbackOnFail,
    commit: options.commit,
    commitHooks: options.commitHooks,
    homeDir: options.homeDir,
    signal: options.signal,
    emitter: options.emitter,
    decisions: consoleDecisions(
      {
        confirm: waiting(options.confirm ?? confirmPrompt),
        review: review && waiting((changes) => review([...changes])),
      },
      options.interactive,
    ),
    onNotice: (notice) => {
      // Quiet: the plan and diffs only when a question about them follows.
      const asked = options.interactive && !options.yes && !options.dryRun;
      if (options.quiet && notice.type === 'preview' && !asked) return;
      printWriteNotice(notice, options.quiet ? (text) => out(text.replace(/^\n+/, '')) : out, options.rootDir);
    },
    // The model's notes are stored only after a person at this terminal has seen them.
    remember: (run) =>
      showNotesAndRemember({
        rootDir: run.rootDir,
        task: run.task,
        filesWritten: run.filesWritten,
        notes: run.agentNotes,
        runId: run.runId,
        personAtTerminal: options.interactive && !options.json,
        print: options.json || options.quiet ? undefined : out,
        homeDir: run.homeDir,
      }),
  });
  const report: TaskReport = {
    ...base,
    status: write.status,
    exitCode: write.exitCode,
    filesWritten: write.filesWritten,
    commands: write.commands,
    timings: { ...base.timings, ...write.timings },
    ...(write.runId ? { runId: write.runId, journal: write.journal } : {}),
    ...(write.verify ? { verify: write.verify } : {}),
    ...(write.commit ? { commit: write.commit } : {}),
    ...(write.committedFirst ? { committedFirst: write.committedFirst } : {}),
    ...(write.error ? { error: write.error } : {}),
  };
  // Refused, not confirmed and declined runs end without a summary, as before anything was done.
  const summarized = write.exitCode !== 3 && write.status !== 'not_confirmed' && write.status !== 'declined';
  if (summarized && !options.json && !options.quiet) {
    await printSummary(report, options, { wallMs: performance.now() - started, promptMs });
  }
  return report;
}

/**
 * An ora spinner on stderr that follows the pipeline's events; undefined under --json and where no spinner
 * can be drawn (cli/console/spinner.ts). `stop()` also detaches it from the emitter.
 */
async function startSpinner(options: TaskOptions, emitter: AgentEmitter): Promise<{ stop(): void } | undefined> {
  if (options.json || options.quiet) return undefined;
  const spinner = await startTerminalSpinner(options.stderr, 'Selecting context…');
  if (!spinner) return undefined;
  const model = options.provider.model;
  // While the model works: seconds waited, and characters received once the reply streams.
  const waiting = { since: 0, chars: 0, retry: '' };
  const show = () => {
    const seconds = Math.floor((performance.now() - waiting.since) / 1000);
    const received = waiting.chars > 0 ? ` · ${waiting.chars.toLocaleString('en-US')} chars received` : '';
    const retry = waiting.retry ? ` · ${waiting.retry}` : '';
    spinner.text = `Planning with ${model}… ${seconds} s${received}${retry}`;
  };
  let timer: NodeJS.Timeout | undefined;
  const offs = [
    // The request's size goes on a line of its own above the spinner, which keeps running.
    emitter.on('prompt', (p) => {
      spinner.clear();
      const cost = reportedCostUsd(options.provider, model, {
        inputTokens: p.estimatedTokens,
        outputTokens: 0,
        totalTokens: p.estimatedTokens,
      });
      options.stderr.write(`${chalk.dim(`· ${formatPromptEstimate(p, cost)}`)}\n`);
      spinner.render();
    }),
    emitter.on('model_request', () => {
      waiting.since = performance.now();
      waiting.chars = 0;
      show();
      timer ??= setInterval(show, 1000);
    }),
    emitter.on('model_progress', (p) => {
      waiting.chars = p.chars;
      waiting.retry = '';
      show();
    }),
    // A retry is said where the person is looking: "rate limited; retrying in 47 s, 1 of 2".
    emitter.on('model_retry', (r) => {
      waiting.retry = r.message;
      show();
    }),
  ];
  return {
    stop() {
      if (timer) clearInterval(timer);
      offs.forEach((off) => off());
      spinner.stop();
    },
  };
}
