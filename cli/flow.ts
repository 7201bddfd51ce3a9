import { writeFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import chalk from 'chalk';
import { runAgent, type AgentRun, type Planner } from '../agent/runner.js';
import type { PreparedPlan } from '../agent/executor.js';
import { IoError, InterruptedError } from '../utils/errors.js';
import { makeSavedPlan } from '../agent/plan-file.js';
import { createAgentEmitter, type AgentEmitter } from '../agent/events.js';
import { applyRun } from '../utils/journal.js';
import { saveSessionAfterRun } from '../memory/memory.js';
import type { Plan, ProviderConfig, Usage } from '../llm/types.js';
import type { CommandRules } from '../config/settings.js';
import { estimateCostUsd } from '../config/prices.js';
import { runPlanCommands, type CommandReport } from './commands-step.js';
import { confirmPrompt } from './ask.js';
import { commitRun, runVerify, uncommittedWarning, type VerifyReport } from './after-write.js';
import { formatPromptEstimate } from './context.js';
import { colorDiff, formatChangeList, formatMs, formatPatchResults, formatPathIssues, formatUsage } from './render.js';

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
  /** Print one JSON report on stdout; never prompt. */
  json: boolean;
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
  review?: (changes: AgentRun['prepared']['changes']) => Promise<{ path: string; after: string }[] | null>;
  planner?: Planner;
  /** `--plan-out`: also save the plan (with base hashes) to this path. */
  planOut?: string;
  /** Command to run after writing (`--verify`); a failure exits 4. */
  verify?: string;
  /** `--rollback-on-fail`: a failing verify restores the journal. */
  rollbackOnFail?: boolean;
  /** `--commit`: commit exactly the written files with the task as the message. */
  commit?: boolean;
  /** Command allow/deny rules from settings. */
  commandRules?: CommandRules;
  /** Extra ignore patterns for the scan (settings `ignore`). */
  extraIgnore?: string[];
  /** Pinned pathspecs (`--files`, `:add`) and the paths kept from the previous task (agent/context-session.ts). */
  files?: readonly string[];
  kept?: readonly string[];
}

/** How a task ended. */
export type TaskStatus = 'applied' | 'dry_run' | 'not_confirmed' | 'declined' | 'failed' | 'no_changes' | 'rolled_back';

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
  patches: { index: number; file: string; applied: boolean; strategy?: string; error?: string; startLine?: number }[];
  pathIssues: { index: number; file: string; code: string; message: string }[];
  filesWritten: string[];
  runId?: string;
  journal?: string;
  commands: CommandReport[];
  usage: Usage | null;
  costUsd: number | null;
  context: { files: { path: string; chars: number; ranges: [number, number][] | null }[]; totalChars: number; budget: number; scannedFiles: number };
  verify?: VerifyReport;
  commit?: string;
  timings: AgentRun['timings'] & { writeMs: number; commandsMs: number };
  error?: string;
}


/** The per-patch and per-path parts of the report, from a prepared plan (task and `apply` alike). */
export function patchReport(prepared: PreparedPlan): Pick<TaskReport, 'patches' | 'pathIssues'> {
  return {
    patches: prepared.results.map((r) => ({ index: r.index, file: r.file, applied: r.applied, strategy: r.strategy, error: r.error, startLine: r.startLine })),
    pathIssues: prepared.pathIssues.map((i) => ({ index: i.index, file: i.file, code: i.code, message: i.message })),
  };
}

/**
 * Run one task end to end with console UX (reference §3.2 `executeTask`): spinner during the model
 * call, analysis and coloured diffs, confirmation (unless --yes), journaled atomic write, confirmed
 * commands, session memory, summary box. Under `--json` nothing is printed here: the caller prints
 * the returned report.
 *
 * @returns the report; `exitCode` is 0 done, 3 plan not applied (nothing written), 4 a command failed
 * @throws ProviderError, PlanParseError, ConfigError, IoError, InterruptedError (exit codes on the error)
 */
export async function executeTask(options: TaskOptions): Promise<TaskReport> {
  const out = (text: string) => (options.json ? undefined : options.stdout.write(text + '\n'));
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
      files: options.files,
      kept: options.kept,
    });
  } finally {
    spinner?.stop();
  }

  const { plan, prepared } = run;
  const usage = run.planResult.usage;
  const report: TaskReport = {
    task: options.task,
    status: 'failed',
    exitCode: 0,
    provider: options.provider.name,
    providerId: options.provider.provider,
    model: run.planResult.reply.model || options.provider.model,
    plan,
    repaired: run.planResult.repaired,
    ...patchReport(prepared),
    filesWritten: [],
    commands: [],
    usage: usage ?? null,
    costUsd: usage ? (estimateCostUsd(run.planResult.reply.model || options.provider.model, usage) ?? null) : null,
    context: {
      files: run.context.files.map((f) => ({ path: f.path, chars: f.chars, ranges: f.ranges })),
      totalChars: run.context.totalChars,
      budget: run.context.budget,
      scannedFiles: run.context.scannedFiles,
    },
    timings: { ...run.timings, writeMs: 0, commandsMs: 0 },
  };

  if (options.planOut) {
    const saved = makeSavedPlan(plan, prepared.targets, { task: options.task, provider: options.provider.name, model: report.model, usage: report.usage });
    try {
      await writeFile(options.planOut, JSON.stringify(saved, null, 2) + '\n');
    } catch (error) {
      throw new IoError(`Cannot save the plan to ${options.planOut}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
    }
    out(chalk.dim(`Plan saved to ${options.planOut} (apply it later with: clawcode apply ${options.planOut})`));
  }
  return presentAndApply(report, plan, prepared, { ...options, emitter }, started);
}

/**
 * The second half of a task, shared by `executeTask` and `clawcode apply`: show the plan's outcome
 * and diffs, confirm (or review), write through the journal, run confirmed commands, save memory,
 * print the summary.
 *
 * @param report    the report so far (filled in and returned)
 * @param started   performance.now() when the task started, for the summary time
 */
export async function presentAndApply(
  report: TaskReport,
  plan: Plan,
  prepared: PreparedPlan,
  options: Omit<TaskOptions, 'provider' | 'budgetChars' | 'planner'>,
  started: number,
): Promise<TaskReport> {
  const out = (text: string) => (options.json ? undefined : options.stdout.write(text + '\n'));
  const confirm = options.confirm ?? confirmPrompt;
  if (plan.analysis) out(`${chalk.bold('Plan:')} ${plan.analysis}`);
  if (prepared.pathIssues.length > 0) {
    out(chalk.red.bold('\nThe plan was refused; nothing was written:') + '\n' + formatPathIssues(prepared.pathIssues));
    return finish(report, 'failed', 3, `plan refused: ${prepared.pathIssues[0]!.message}`);
  }
  if (prepared.results.length > 0) out('\n' + formatPatchResults(prepared.results));
  if (!prepared.ok) {
    const failed = prepared.results.find((r) => !r.applied);
    out(chalk.red.bold('\nThe plan could not be applied; nothing was written.'));
    return finish(report, 'failed', 3, failed ? `patch #${failed.index + 1} (${failed.file}): ${failed.error ?? 'not applied'}` : 'plan not applied');
  }
  if (prepared.changes.length === 0) {
    out(chalk.yellow('\nThe plan changes no file.'));
  } else {
    for (const change of prepared.changes) out('\n' + colorDiff(change.diff.replace(/\n$/, '')));
    out('\n' + chalk.bold('Files:') + '\n' + formatChangeList(prepared.changes));
  }

  let toWrite = prepared.changes.map((c) => ({ path: c.path, after: c.after }));
  if (options.dryRun) {
    out(chalk.dim('\nDry run: nothing written.'));
    report.status = 'dry_run';
    return finishWithCommands(report, options, plan, confirm, out, started);
  }
  if (toWrite.length > 0 && !options.json) {
    const warning = await uncommittedWarning(options.rootDir, toWrite.map((w) => w.path));
    if (warning) out(warning);
  }
  if (toWrite.length > 0 && !options.yes) {
    if (!options.interactive) {
      out(chalk.yellow('\nNot applied: no terminal to confirm in. Pass --yes to write the changes.'));
      report.status = 'not_confirmed';
      return finish(report, 'not_confirmed', 0);
    }
    const accepted = options.review
      ? await options.review(prepared.changes)
      : (await confirm(`Apply these changes to ${toWrite.length} file${toWrite.length === 1 ? '' : 's'}?`))
        ? toWrite
        : null;
    if (!accepted || accepted.length === 0) {
      out(chalk.yellow('Nothing written.'));
      return finish(report, 'declined', 0);
    }
    toWrite = accepted;
  }

  if (toWrite.length > 0) {
    const t = performance.now();
    const byPath = new Map(prepared.changes.map((c) => [c.path, c]));
    const record = await applyRun({
      rootDir: options.rootDir,
      changes: toWrite.map((w) => ({ path: w.path, before: byPath.get(w.path)?.before ?? null, after: w.after })),
      meta: { task: options.task, provider: report.provider, model: report.model },
      homeDir: options.homeDir,
      onWrite: (path) => options.emitter?.emit('write_file', { path }),
    });
    report.filesWritten = toWrite.map((w) => w.path);
    report.runId = record.runId;
    report.journal = record.runDir;
    report.timings.writeMs = Math.round(performance.now() - t);
    out(`\n${chalk.green('✓')} Wrote ${toWrite.length} file${toWrite.length === 1 ? '' : 's'} ${chalk.dim(`(undo: clawcode undo ${record.runId})`)}`);
    report.status = 'applied';
    const print = options.json ? undefined : out;
    if (options.verify) {
      report.verify = await runVerify({
        rootDir: options.rootDir, command: options.verify, runId: record.runId, rollbackOnFail: Boolean(options.rollbackOnFail),
        signal: options.signal, homeDir: options.homeDir, print,
      });
      if (report.verify.exitCode !== 0 || report.verify.timedOut) {
        if (report.verify.rolledBack) {
          report.filesWritten = [];
          report.status = 'rolled_back';
        }
        report.exitCode = 4;
        report.error = `verify failed: ${options.verify}${report.verify.rolledBack ? ' (changes rolled back)' : ''}`;
        // A failed verify skips the commit and the plan's commands, but still records memory and the summary.
        return finishWithCommands(report, options, plan, confirm, out, started, { skipCommands: true });
      }
    }
    if (options.commit) {
      try {
        report.commit = await commitRun(options.rootDir, report.filesWritten, options.task, print);
      } catch (error) {
        // The files are written and undoable; a commit that fails is reported, not a reason to lose the run.
        report.exitCode = 1;
        report.error = `written but not committed: ${(error as Error).message}`;
      }
    }
  } else {
    report.status = 'no_changes';
  }
  return finishWithCommands(report, options, plan, confirm, out, started);
}

function finish(report: TaskReport, status: TaskStatus, exitCode: number, error?: string): TaskReport {
  report.status = status;
  report.exitCode = exitCode;
  if (error) report.error = error;
  return report;
}

async function finishWithCommands(
  report: TaskReport,
  options: Omit<TaskOptions, 'provider' | 'budgetChars' | 'planner'>,
  plan: Plan,
  confirm: (m: string) => Promise<boolean>,
  out: (t: string) => void,
  started: number,
  tail: { skipCommands?: boolean } = {},
): Promise<TaskReport> {
  const t = performance.now();
  if (tail.skipCommands) {
    report.commands = plan.commands.map((command) => ({ command, ran: false, exitCode: null, skipped: 'verify_failed' }));
  } else if (options.dryRun) {
    report.commands = plan.commands.map((command) => ({ command, ran: false, exitCode: null, skipped: 'dry_run' }));
    if (plan.commands.length) out(chalk.bold('\nCommands in the plan (not run):') + '\n' + plan.commands.map((c) => `  $ ${c}`).join('\n'));
  } else {
    report.commands = await runPlanCommands({
      rootDir: options.rootDir,
      commands: plan.commands,
      runCommands: options.runCommands,
      rules: options.commandRules,
      interactive: options.interactive,
      signal: options.signal,
      confirm,
      print: options.json ? undefined : (text) => out(text),
      emitter: options.emitter,
    });
  }
  report.timings.commandsMs = Math.round(performance.now() - t);
  if (!options.dryRun) await saveSessionAfterRun(options.rootDir, options.task, report.filesWritten, plan.agent_notes, options.homeDir);
  if (report.exitCode === 0 && report.commands.some((c) => c.ran && c.exitCode !== 0)) {
    report.exitCode = 4;
    report.error = `command failed: ${report.commands.find((c) => c.ran && c.exitCode !== 0)!.command}`;
  }
  if (!options.json) await printSummary(report, options, performance.now() - started);
  options.emitter?.emit('success', { message: report.status, filesWritten: report.filesWritten });
  return report;
}

async function printSummary(report: TaskReport, options: Pick<TaskOptions, 'stdout'>, ms: number): Promise<void> {
  const { default: boxen } = await import('boxen');
  const ran = report.commands.filter((c) => c.ran);
  const lines = [
    `${chalk.bold('Task:')} ${report.task}`,
    `${chalk.bold('Result:')} ${report.status.replace('_', ' ')}${report.filesWritten.length ? `, ${report.filesWritten.length} file(s) written` : ''}`,
    ...(ran.length ? [`${chalk.bold('Commands:')} ${ran.filter((c) => c.exitCode === 0).length}/${ran.length} succeeded`] : []),
    `${chalk.bold('Model:')} ${report.provider}/${report.model} · ${formatUsage(report.usage ?? undefined, report.costUsd ?? undefined)}`,
    `${chalk.bold('Time:')} ${formatMs(ms)} (model ${formatMs(report.timings.modelMs)})`,
    ...(report.runId ? [chalk.dim(`Undo with: clawcode undo ${report.runId}`)] : []),
  ];
  options.stdout.write(boxen(lines.join('\n'), { padding: { left: 1, right: 1 }, borderStyle: 'round', borderColor: report.exitCode === 0 ? 'green' : 'red' }) + '\n');
}

/**
 * An ora spinner on stderr that follows the pipeline's events; undefined when stderr is not a
 * terminal or under --json. `stop()` also detaches it from the emitter.
 */
async function startSpinner(options: TaskOptions, emitter: AgentEmitter): Promise<{ stop(): void } | undefined> {
  if (options.json || !options.stderr.isTTY) return undefined;
  const { default: ora } = await import('ora');
  const model = options.provider.model;
  // discardStdin:false keeps a surrounding readline REPL alive (ora #236).
  const spinner = ora({ text: 'Selecting context…', stream: options.stderr as NodeJS.WriteStream, discardStdin: false }).start();
  const offs = [
    emitter.on('prompt', (p) => {
      spinner.stopAndPersist({ symbol: chalk.dim('·'), text: chalk.dim(formatPromptEstimate(p)) });
      spinner.start('Sending…');
    }),
    emitter.on('model_request', () => (spinner.text = `Planning with ${model}…`)),
    emitter.on('model_progress', (p) => (spinner.text = `Planning with ${model}… ${p.chars.toLocaleString('en-US')} chars received`)),
  ];
  return {
    stop() {
      offs.forEach((off) => off());
      spinner.stop();
    },
  };
}
