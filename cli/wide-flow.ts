import { performance } from 'node:perf_hooks';
import chalk from 'chalk';
import type { PlannedChange } from '../agent/executor.js';
import { buildOutline } from '../agent/context/outline.js';
import { resolvePathspecs, unmatchedPinError } from '../agent/context/pins.js';
import type { Planner } from '../agent/runner.js';
import {
  estimateWideCostUsd,
  prepareWideChange,
  runWideChange,
  type PreparedWideChange,
  type WideChangeRun,
} from '../agent/wide/wide.js';
import { makeSavedPlan } from '../agent/plan-file.js';
import { estimateCostUsd } from '../config/prices.js';
import type { Usage } from '../llm/types.js';
import { scanProject } from '../agent/context/scan.js';
import { UsageError } from '../utils/errors.js';
import { escapeControlsKeepColor } from '../utils/terminal-text.js';
import { confirmPrompt } from './ask.js';
import { patchReport, savePlan, writeWithConsole, type TaskOptions, type TaskReport } from './flow.js';
import { formatUsage } from './render.js';

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

/** One shard in the `--json` report. */
export interface ShardReport {
  index: number;
  files: string[];
  /** characters of the request's user message */
  chars: number;
  status: 'planned' | 'failed';
  patches: number;
  error?: string;
  /** the shard's repair round, when its patches did not apply at first */
  repair?: { patches: number[]; firstError: string; applied: boolean };
}

/** Share of the budget the project map of a scope request may take. */
const SCOPE_MAP_SHARE = 1;

/** Group changed files by folder: `folder/  N files  +added −removed`, for the review's first screen. */
export function folderSummary(changes: readonly Pick<PlannedChange, 'path' | 'diff'>[]): string {
  const byFolder = new Map<string, { files: number; added: number; removed: number }>();
  for (const c of changes) {
    const folder = c.path.includes('/') ? c.path.slice(0, c.path.lastIndexOf('/') + 1) : './';
    const row = byFolder.get(folder) ?? { files: 0, added: 0, removed: 0 };
    row.files++;
    for (const line of c.diff.split('\n')) {
      if (line.startsWith('+') && !line.startsWith('+++')) row.added++;
      else if (line.startsWith('-') && !line.startsWith('---')) row.removed++;
    }
    byFolder.set(folder, row);
  }
  const width = Math.max(...[...byFolder.keys()].map((k) => k.length));
  return [...byFolder]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(
      ([folder, r]) =>
        `  ${folder.padEnd(width)}  ${String(r.files).padStart(3)} file${r.files === 1 ? ' ' : 's'}  +${r.added} −${r.removed}`,
    )
    .join('\n');
}

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
      const { requestScope } = await import('../agent/wide/scope-request.js');
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

function addUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (!a) return b;
  if (!b) return a;
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
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
    if (!options.json) options.stdout.write(`${escapeControlsKeepColor(text)}\n`);
  };
  const { prepared, scopeUsage } = await prepare(options);
  if (pinsFitOneRequest(options.wide, prepared)) {
    // Pinned files that fit one request are an ordinary task with pins: ranked context fills the rest.
    const { executeTask } = await import('./flow.js');
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
  if (options.planOut) {
    const meta = { task: options.task, provider: options.provider.name, model, usage: usage ?? null };
    await savePlan(options.planOut, makeSavedPlan(run.merged.plan, run.prepared.targets, meta), out);
  }
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
    (async (...args: Parameters<Planner>) => (await import('../llm/provider.js')).getStructuredPlan(...args));
  const progress =
    options.json || !options.stderr.isTTY ? undefined : await shardSpinner(options, prepared.requests.length);
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

/** One report entry per shard request: its files, size, status, patches kept and repair round. */
function shardReports(prepared: PreparedWideChange, run: WideChangeRun): ShardReport[] {
  return prepared.requests.map((r) => {
    const failed = run.merged.failed.find((f) => f.shard === r.shard.index);
    const repair = run.repairs.get(r.shard.index);
    return {
      index: r.shard.index,
      files: [...new Set(r.shard.files.map((f) => f.path))],
      chars: r.chars,
      status: failed ? 'failed' : 'planned',
      patches: run.merged.patchShards.filter((s) => s === r.shard.index).length,
      ...(failed ? { error: failed.error } : {}),
      ...(repair
        ? { repair: { patches: repair.patches, firstError: repair.firstError, applied: repair.applied } }
        : {}),
    };
  });
}

/** Failed shards, repair rounds and patches dropped for leaving their shard, one line each. */
function printShardOutcomes(shards: readonly ShardReport[], run: WideChangeRun, out: (text: string) => void): void {
  for (const s of shards) {
    if (s.status === 'failed') out(chalk.red(`Shard ${s.index + 1}/${shards.length} failed: ${s.error}`));
    if (s.repair) {
      const which = s.repair.patches.map((n) => `#${n}`).join(', ');
      out(chalk.dim(`Shard ${s.index + 1}: repair round for patch ${which} after ${s.repair.firstError}`));
    }
  }
  for (const r of run.merged.refused) out(chalk.yellow(`Dropped a patch: ${r.message}`));
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

function emptyReport(
  options: TaskOptions,
  prepared: PreparedWideChange,
  status: TaskReport['status'],
  exitCode: number,
  usage: Usage | undefined,
  ms: number,
): TaskReport {
  return {
    task: options.task,
    status,
    exitCode,
    provider: options.provider.name,
    providerId: options.provider.provider,
    model: options.provider.model,
    plan: { analysis: '', files_to_edit: [], patches: [], commands: [], agent_notes: [] },
    repaired: false,
    patches: [],
    pathIssues: [],
    changes: [],
    filesWritten: [],
    commands: [],
    usage: usage ?? null,
    costUsd: null,
    context: { files: [], totalChars: 0, budget: options.budgetChars, scannedFiles: 0 },
    shards: prepared.requests.map((r) => ({
      index: r.shard.index,
      files: [...new Set(r.shard.files.map((f) => f.path))],
      chars: r.chars,
      status: 'failed',
      patches: 0,
      error: 'not sent',
    })),
    timings: {
      contextMs: prepared.ms,
      promptMs: 0,
      modelMs: 0,
      applyMs: 0,
      totalMs: Math.round(ms),
      writeMs: 0,
      commandsMs: 0,
    },
  };
}

/** Shard progress on stderr in a terminal: shards done/total, tokens and cost so far. */
async function shardSpinner(options: TaskOptions, total: number): Promise<{ stop(): void }> {
  const { default: ora } = await import('ora');
  // The caller checked stderr is a terminal; ora alone would go quiet whenever CI is set (dev containers set it).
  const spinner = ora({
    text: `Planning 0/${total} shards…`,
    stream: options.stderr as NodeJS.WriteStream,
    discardStdin: false,
    isEnabled: true,
  }).start();
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
  const parts = [`===== system =====\n${prepared.systemPrompt}`];
  for (const r of prepared.requests) parts.push(`===== request ${r.shard.index + 1}/${n} =====\n${r.userPrompt}`);
  options.stdout.write(`${parts.join('\n\n')}\n`);
  return true;
}
