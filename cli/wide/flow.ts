import { performance } from 'node:perf_hooks';
import chalk from 'chalk';
import { buildOutline } from '../../agent/context/outline.js';
import { resolvePathspecs, unmatchedPinError } from '../../agent/context/pins.js';
import type { Planner } from '../../agent/runner.js';
import {
  estimateWideCostUsd,
  prepareWideChange,
  runWideChange,
  type PreparedWideChange,
  type WideChangeRun,
} from '../../agent/wide/wide.js';
import { makeSavedPlan } from '../../agent/plan-file.js';
import { estimateCostUsd } from '../../config/prices.js';
import type { Usage } from '../../llm/types.js';
import { scanProject } from '../../agent/context/scan.js';
import { UsageError } from '../../utils/errors.js';
import { escapeTerminal } from '../../utils/terminal-text.js';
import { confirmPrompt } from '../console/ask.js';
import { patchReport, savePlan, writeWithConsole, type TaskOptions, type TaskReport } from '../task/flow.js';
import { formatUsage } from '../console/render.js';
import { startTerminalSpinner } from '../console/spinner.js';
import { keepAsLastPlan } from '../task/keep.js';
import { addUsage } from '../../llm/usage.js';
import { sealRequest } from '../../llm/outbound.js';
import { emptyReport, folderSummary, printShardOutcomes, shardReports, type ShardReport } from './report.js';

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

/** Share of the budget the project map of a scope request may take. */
const SCOPE_MAP_SHARE = 1;

/**
 * The footprint of a wide task: `--files` resolved through git pathspecs (only scanned candidates),
 * `--grep` patterns, or — with `--wide` alone — the one scope request's answer.
 *
 * @returns the prepared change (every shard request built, nothing sent yet) and the scope request's usage
 * @throws UsageError for pathspecs that match nothing, a bad pattern, an empty footprint or a small budget
 */
async function prepare(
  options: TaskOptions & { wide: WideOptions },
): Promise<{ prepared: PreparedWideChange; scopeUsage?: Usage }> {
  const wide = options.wide;
  let paths: string[] = [];
  let scope;
  let scopeUsage: Usage | undefined;
  // One scan serves the pathspecs, the scope request's map and the footprint.
  const scan = await scanProject(options.rootDir, { extraIgnore: options.extraIgnore });
  if (wide.files?.length || (wide.scope && !wide.grep?.length)) {
    if (wide.files?.length) {
      const resolved = await resolvePathspecs(options.rootDir, wide.files, scan.fileList);
      if (resolved.unmatched.length > 0) {
        throw unmatchedPinError(resolved.unmatched);
      }
      paths = resolved.paths;
    } else {
      const map = buildOutline({
        paths: scan.fileList,
        sent: new Set(),
        maxChars: Math.floor(options.budgetChars * SCOPE_MAP_SHARE),
      });
      const { requestScope } = await import('../../agent/wide/scope-request.js');
      const found = await requestScope(options.provider, options.task, map, {
        signal: options.signal,
        timeoutMs: options.timeoutMs,
      });
      scope = found.scope;
      scopeUsage = found.usage;
      options.emitter?.emit('model_reply', {
        ms: found.ms,
        inputTokens: found.usage?.inputTokens,
        outputTokens: found.usage?.outputTokens,
      });
    }
  }
  const prepared = await prepareWideChange({
    rootDir: options.rootDir,
    scan,
    task: options.task,
    budgetChars: options.budgetChars,
    paths,
    patterns: wide.grep,
    scope,
    extraIgnore: options.extraIgnore,
  });
  return { prepared, scopeUsage };
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
  const { prepared, scopeUsage } = await prepare(options);
  if (pinsFitOneRequest(options.wide, prepared)) {
    // Pinned files that fit one request are an ordinary task with pins: ranked context fills the rest.
    const { executeTask } = await import('../task/flow.js');
    return executeTask({ ...options, wide: undefined });
  }
  if (!(await confirmFootprint(options, prepared, out))) {
    out(chalk.yellow('Not sent; nothing was changed.'));
    return emptyReport(options, prepared, 'declined', 0, scopeUsage, performance.now() - started);
  }
  const run = await planAllShards(options, prepared);
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
  if (run.prepared.ok && run.prepared.changes.length > 0) {
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
  prepared: PreparedWideChange,
  out: (text: string) => void,
): Promise<boolean> {
  const n = prepared.requests.length;
  const files = prepared.footprint.length;
  const cost = estimateWideCostUsd(prepared, options.provider.model);
  const tokens = prepared.estimate.inputTokens.toLocaleString('en-US');
  out(
    chalk.bold(`Footprint: ${files} file${files === 1 ? '' : 's'}, ${n} shard${n === 1 ? '' : 's'}`) +
      chalk.dim(` · ~${tokens} input tokens${cost === undefined ? '' : ` · ~$${cost.toFixed(4)}`}`),
  );
  if (!options.interactive || options.yes || options.dryRun) return true;
  return (options.confirm ?? confirmPrompt)(`Send ${n} plan request${n === 1 ? '' : 's'}?`);
}

/** Every shard request, with progress on stderr in a terminal; the merged plan applied in memory. */
async function planAllShards(
  options: TaskOptions & { wide: WideOptions },
  prepared: PreparedWideChange,
): Promise<WideChangeRun> {
  const planner: Planner =
    options.planner ??
    (async (...args: Parameters<Planner>) => (await import('../../llm/provider.js')).getStructuredPlan(...args));
  const progress = options.json || options.quiet ? undefined : await shardSpinner(options, prepared.requests.length);
  try {
    return await runWideChange(prepared, {
      rootDir: options.rootDir,
      provider: options.provider,
      planner,
      concurrency: options.wide.concurrency,
      repair: options.repair,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      emitter: options.emitter,
    });
  } finally {
    progress?.stop();
  }
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

/** `--files` alone whose files fit one request: no shards needed. */
function pinsFitOneRequest(wide: WideOptions, prepared: PreparedWideChange): boolean {
  return !wide.grep?.length && !wide.scope && prepared.requests.length <= 1;
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
  const { prepared } = await prepare(options);
  if (pinsFitOneRequest(options.wide, prepared)) return false;
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
