import { performance } from 'node:perf_hooks';
import chalk from 'chalk';
import type { WideChangeRun } from '../../agent/wide/wide.js';
import { prepareWideTask, runWideTask, type FootprintEstimate, type WideTaskInput } from '../../agent/wide/task.js';
import { makeSavedPlan } from '../../agent/plan-file.js';
import { estimateCostUsd } from '../../config/prices.js';
import type { Usage } from '../../llm/types.js';
import { UsageError } from '../../utils/errors.js';
import { escapeTerminal } from '../../utils/terminal-text.js';
import { confirmPrompt } from '../console/ask.js';
import {
  executeTask,
  patchReport,
  savePlan,
  writeWithConsole,
  type TaskOptions,
  type TaskReport,
} from '../task/flow.js';
import { formatUsage } from '../console/render.js';
import { startTerminalSpinner } from '../console/spinner.js';
import { keepAsLastPlan } from '../task/keep.js';
import { addUsage } from '../../llm/usage.js';
import { emptyReport, printShardOutcomes, shardReports, type ShardReport } from './report.js';
import { folderSummary } from '../console/render.js';
import { sealRequest } from '../../llm/outbound.js';

/** The wide-change flags of one task. */
export interface WideOptions {
  /** `--files <pathspec...>`: git pathspecs and globs, relative to the root */
  files?: string[];
  /** `--grep <regex>`: lines matching it (JavaScript syntax) are in scope */
  grep?: string[];
  /** `--wide`: without files or grep, ask the provider for the scope first (one request) */
  scope?: boolean;
  /** `--concurrency <n>`: plan requests in flight @default 4 */
  concurrency?: number;
  /** `--partial`: with `--yes`, write the shards that planned even when others failed */
  partial?: boolean;
}

/**
 * A wide change with console UX: footprint and estimate, a confirmation before any plan request
 * (unless `--yes`, `--json` or a dry run), one request per shard with progress, the merged plan
 * reviewed and written once (one journal run, one undo id) through the same write stage as any task.
 *
 * @returns the task report with a `shards` list; exit code 3 when shards failed and nothing was written
 * @throws UsageError (footprint), ProviderError (the scope request), InterruptedError
 */
export async function executeWideTask(options: TaskOptions & { wide: WideOptions }): Promise<TaskReport> {
  const started = performance.now();
  // Model and file text passes through here: terminal controls are shown, never obeyed (colours kept).
  const out = (text: string): void => {
    if (!options.json) options.stdout.write(`${escapeTerminal(text, 'colored')}\n`);
  };
  const progress = { stop: () => {} };
  let outcome;
  try {
    outcome = await runWideTask(wideInput(options), {
      confirmFootprint: async (estimate) => {
        const go = await confirmFootprint(options, estimate, out);
        // Shard progress shows only once the requests go out.
        const spinner =
          go && !options.json && !options.quiet ? await shardSpinner(options, estimate.shards) : undefined;
        if (spinner) progress.stop = () => spinner.stop();
        return go;
      },
    });
  } finally {
    progress.stop();
  }
  // Pinned files that fit one request are an ordinary task with pins (ranked context fills the rest), on the same scan.
  if (outcome.kind === 'single-request') return executeTask({ ...options, scan: outcome.scan });
  const { prepared, scopeUsage } = outcome.wide;
  if (outcome.kind === 'declined') {
    out(chalk.yellow('Not sent; nothing was changed.'));
    return emptyReport(options, prepared, 'declined', 0, scopeUsage, performance.now() - started);
  }
  const { run } = outcome;
  if (prepared.rules.length > 0) {
    const n = prepared.rules.length;
    out(chalk.bold(`Scope: ${n} rule${n === 1 ? '' : 's'}`) + chalk.dim(' · applied to every file of their pathspecs'));
  }
  const usage = addUsage(scopeUsage, run.usage);
  const shards = shardReports(prepared, run);
  printShardOutcomes(shards, run, out);

  const model = options.provider.model;
  const base = {
    task: options.task,
    provider: options.provider.name,
    providerId: options.provider.provider,
    model,
    plan: run.merged.plan,
    repaired: run.repairs.size > 0,
    ...patchReport(run.prepared),
    usage: usage ?? null,
    costUsd: usage ? (estimateCostUsd(model, usage) ?? null) : null,
    context: { files: [], totalChars: 0, budget: options.budgetChars, scannedFiles: 0 },
    shards,
    timings: {
      contextMs: prepared.ms,
      promptMs: 0,
      modelMs: run.modelMs,
      applyMs: 0,
      totalMs: Math.round(performance.now() - started),
    },
  };
  const meta = { task: options.task, provider: options.provider.name, model, usage: usage ?? null };
  const saved = makeSavedPlan(run.merged.plan, run.prepared.targets, meta);
  await keepAsLastPlan(options.rootDir, saved, options.homeDir);
  if (options.planOut) await savePlan(options.planOut, saved, out);
  if (run.merged.failed.length > 0 && !options.dryRun && !(await writeWhatPlanned(options, shards, run))) {
    const failed = `${run.merged.failed.length} of ${shards.length} shards failed`;
    const error = `${failed}; nothing was written${options.interactive ? '' : ' (--partial writes the shards that planned)'}`;
    const timings = { ...base.timings, writeMs: 0, commandsMs: 0 };
    return { ...base, timings, status: 'failed', exitCode: 3, filesWritten: [], commands: [], error };
  }
  // A plan with rules shows its folders in the preview (cli/task/write-console.ts).
  if (run.prepared.ok && run.prepared.changes.length > 0 && !run.prepared.results.some((r) => r.files)) {
    out(`${chalk.bold('Changes by folder:')}\n${folderSummary(run.prepared.changes)}`);
  }
  return writeWithConsole(base, run.prepared, options, started);
}

/**
 * Show the footprint (files, shards, estimated input tokens and cost) and, in a terminal without
 * `--yes` or `--dry-run`, ask before any plan request is sent.
 *
 * @returns false when the person said no
 */
async function confirmFootprint(
  options: TaskOptions,
  estimate: FootprintEstimate,
  out: (text: string) => void,
): Promise<boolean> {
  const { files, shards: n, costUsd } = estimate;
  const tokens = estimate.inputTokens.toLocaleString('en-US');
  out(
    chalk.bold(`Footprint: ${files} file${files === 1 ? '' : 's'}, ${n} shard${n === 1 ? '' : 's'}`) +
      chalk.dim(` · ~${tokens} input tokens${costUsd === undefined ? '' : ` · ~$${costUsd.toFixed(4)}`}`),
  );
  if (!options.interactive || options.yes || options.dryRun) return true;
  return (options.confirm ?? confirmPrompt)(`Send ${n} plan request${n === 1 ? '' : 's'}?`);
}

/** The wide task's inputs from the task options. */
function wideInput(options: TaskOptions & { wide: WideOptions }): WideTaskInput {
  return {
    rootDir: options.rootDir,
    task: options.task,
    provider: options.provider,
    budgetChars: options.budgetChars,
    extraIgnore: options.extraIgnore,
    files: options.wide.files,
    grep: options.wide.grep,
    scope: options.wide.scope,
    concurrency: options.wide.concurrency,
    repair: options.repair,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    emitter: options.emitter,
    planner: options.planner,
  };
}

/**
 * Some shards failed: write the ones that planned? Yes with `--partial`; in a terminal the person
 * decides (when the rest applies); otherwise no.
 */
async function writeWhatPlanned(
  options: TaskOptions & { wide: WideOptions },
  shards: readonly ShardReport[],
  run: WideChangeRun,
): Promise<boolean> {
  if (options.wide.partial) return true;
  const planned = shards.length - run.merged.failed.length;
  if (!options.interactive || planned === 0 || !run.prepared.ok) return false;
  return (options.confirm ?? confirmPrompt)(
    `${run.merged.failed.length} of ${shards.length} shards failed. Review and write the ${planned} that planned?`,
  );
}

/** Shard progress on stderr where a spinner can be drawn: shards done/total, tokens and cost so far. */
async function shardSpinner(options: TaskOptions, total: number): Promise<{ stop(): void } | undefined> {
  const spinner = await startTerminalSpinner(options.stderr, `Planning 0/${total} shards…`);
  if (!spinner) return undefined;
  let usage: Usage | undefined;
  const off = options.emitter?.on('shard_done', (e) => {
    usage = addUsage(usage, e.usage);
    const cost = usage ? estimateCostUsd(options.provider.model, usage) : undefined;
    spinner.text = `Planning ${e.done}/${e.shards} shards… ${formatUsage(usage, cost)}`;
  });
  return {
    stop() {
      off?.();
      spinner.stop();
    },
  };
}

/**
 * `--print-prompt` for a wide task: every shard request, each after a `===== request i/n =====`
 * line, with the system prompt first. No provider call.
 *
 * @returns false (and prints nothing) when `--files` alone fits one request: the ordinary prompt applies
 */
export async function printWidePrompts(options: TaskOptions & { wide: WideOptions }): Promise<boolean> {
  if (options.wide.scope && !options.wide.files?.length && !options.wide.grep?.length) {
    throw new UsageError('--print-prompt with --wide needs --files or --grep: finding the scope needs a model call.');
  }
  const { prepared, fitsOneRequest } = await prepareWideTask(wideInput(options));
  if (fitsOneRequest) return false;
  const n = prepared.requests.length;
  const parts = [`===== system =====\n${sealRequest({ system: prepared.systemPrompt, user: '' }).system}`];
  // Printed for pasting, each request leaves clawcode as surely as a sent one: through the same door.
  const candidates = new Set(prepared.candidates);
  for (const r of prepared.requests) {
    const files = r.shard.files.map((f) => f.path);
    const sealed = sealRequest({ system: '', user: r.userPrompt, files }, (path) => candidates.has(path));
    parts.push(`===== request ${r.shard.index + 1}/${n} =====\n${sealed.user}`);
  }
  const text = `${parts.join('\n\n')}\n`;
  options.stdout.write((options.stdout as { isTTY?: boolean }).isTTY ? escapeTerminal(text) : text);
  return true;
}
