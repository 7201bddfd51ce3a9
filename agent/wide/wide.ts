import { performance } from 'node:perf_hooks';
import { resolve } from 'node:path';
import { estimateCostUsd, type ModelPrice } from '../../config/prices.js';
import { buildSystemPrompt } from '../../llm/prompts.js';
import type { PatchOp } from '../../utils/plan.js';
import type { ProviderConfig, Usage } from '../../llm/types.js';
import { scanProject, type ScanOptions, type ScanResult } from '../context/scan.js';
import { UsageError } from '../../utils/errors.js';
import { budgetAfterTask } from '../task-size.js';
import type { AgentEmitter } from '../events.js';
import { preparePlan, type PreparedPlan } from '../prepare.js';
import type { RepairReport } from '../repair.js';
import type { Planner } from '../runner.js';
import { collectFootprint, pathsUnder } from './footprint.js';
import { mergeShardPlans, type MergedPlan } from './merge.js';
import { buildShardRequests, planShards, type ShardRequest } from './plan-shards.js';
import type { ScopeAnswer } from './scope-request.js';
import { packShards } from './shards.js';
import { estimateTokens } from '../../llm/usage.js';

/**
 * Wide changes, end to end without user I/O: footprint → shards → one plan request per shard →
 * merge → the merged plan applied in memory. The CLI shows the estimate between `prepareWideChange`
 * and `runWideChange`, and reviews and writes the merged plan with the same write stage as any plan.
 */

/** Share of the budget the scope list of every request may take before it is folded by folder. */
const LIST_SHARE = 0.2;

/** Inputs of `prepareWideChange`. */
export interface WideChangeInput {
  /** absolute project root */
  rootDir: string;
  task: string;
  /** context budget in characters: file text plus scope list of one request */
  budgetChars: number;
  /** files pinned by path (project-relative, already resolved) */
  paths?: readonly string[];
  /** regular expressions (JavaScript syntax) whose matching lines are in scope */
  patterns?: readonly string[];
  /** a scope answer from `requestScope`: its patterns and pathspecs add to the above */
  scope?: ScopeAnswer;
  instructions?: string;
  memoryContext?: string;
  extraIgnore?: ScanOptions['extraIgnore'];
  /** the project's scan when the caller already has one (it is not repeated) */
  scan?: ScanResult;
}

/** Everything computed before the first plan request: the person confirms on this. */
export interface PreparedWideChange {
  footprint: string[];
  requests: ShardRequest[];
  /** the scope answer's rules: applied after the shards' patches, with no request of their own */
  rules: PatchOp[];
  /** every candidate of the scan (sorted): the files a request may quote */
  candidates: string[];
  systemPrompt: string;
  /** estimated input tokens of all requests (characters / 4), and the largest request in characters */
  estimate: { inputTokens: number; maxRequestChars: number };
  ms: number;
}

/**
 * Find the footprint and build every shard request; no provider call.
 *
 * @returns the footprint (paths), one request per shard and an estimate
 * @throws TaskTooLongError (exit 2) when the task takes more than half the budget (agent/task-size.ts)
 * @throws UsageError `footprint_empty` when nothing is in scope, `budget_too_small` when the
 *         budget cannot hold the scope list and one line of a file; UsageError for a bad pattern
 */
export async function prepareWideChange(input: WideChangeInput): Promise<PreparedWideChange> {
  const started = performance.now();
  const rootDir = resolve(input.rootDir);
  const scan = input.scan ?? (await scanProject(rootDir, { extraIgnore: input.extraIgnore }));
  const candidatePaths = scan.files.map((f) => f.path);
  const paths = new Set([...(input.paths ?? []), ...pathsUnder(input.scope?.pathspecs ?? [], candidatePaths)]);
  const patterns = [...(input.patterns ?? []), ...(input.scope?.patterns ?? [])];
  const rules: PatchOp[] = (input.scope?.rules ?? []).map((r) => ({ ...r, operation: 'rewrite' as const }));
  const files =
    paths.size > 0 || patterns.length > 0
      ? await collectFootprint({ candidates: scan.files, paths: [...paths], patterns })
      : [];
  const systemPrompt = buildSystemPrompt();
  // A scope answered with rules alone needs no shard: the plan is the rules.
  if (files.length === 0 && rules.length > 0) {
    const estimate = { inputTokens: 0, maxRequestChars: 0 };
    return {
      footprint: [],
      requests: [],
      rules,
      candidates: scan.fileList,
      systemPrompt,
      estimate,
      ms: Math.round(performance.now() - started),
    };
  }
  if (files.length === 0) {
    throw new UsageError('No file is in scope of this change', {
      code: 'footprint_empty',
      hint: 'Check the --files pathspecs or the --grep pattern; secret, binary and ignored files are never in scope.',
    });
  }
  const budget = Math.floor(input.budgetChars);
  budgetAfterTask(input.task, budget);
  const listMaxChars = Math.floor(budget * LIST_SHARE);
  const footprint = files.map((f) => f.path);
  // The task and the scope list ride in every request, so they come off each shard's content budget.
  const probe = buildShardRequests({
    task: input.task,
    shards: [{ index: 0, files: [], chars: 0 }],
    footprintPaths: footprint,
    listMaxChars,
  });
  const listChars = probe[0]!.chars;
  const contentBudgetChars = budget - listChars;
  if (contentBudgetChars < 200) {
    throw new UsageError(
      `A budget of ${budget} characters cannot hold the scope of ${footprint.length} files and their text`,
      {
        code: 'budget_too_small',
        hint: 'Raise --budget or narrow --files / --grep.',
      },
    );
  }
  const shards = packShards(files, { contentBudgetChars });
  const requests = buildShardRequests({
    task: input.task,
    shards,
    footprintPaths: footprint,
    listMaxChars,
    instructions: input.instructions,
    memoryContext: input.memoryContext,
  });
  const totalChars = requests.reduce((a, r) => a + r.chars + systemPrompt.length, 0);
  return {
    footprint,
    requests,
    rules,
    candidates: scan.fileList,
    systemPrompt,
    estimate: {
      inputTokens: estimateTokens(totalChars),
      maxRequestChars: Math.max(...requests.map((r) => r.chars)),
    },
    ms: Math.round(performance.now() - started),
  };
}

/** Estimated cost in USD of the input tokens of a prepared change, or undefined for an unknown price. */
export function estimateWideCostUsd(
  prepared: PreparedWideChange,
  model: string,
  overrides?: Readonly<Record<string, ModelPrice>>,
): number | undefined {
  const inputTokens = prepared.estimate.inputTokens;
  return estimateCostUsd(model, { inputTokens, outputTokens: 0, totalTokens: inputTokens }, overrides);
}

/** Options of `runWideChange`. */
export interface RunWideChangeOptions {
  rootDir: string;
  provider: ProviderConfig;
  planner: Planner;
  concurrency?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  emitter?: AgentEmitter;
  /** false: no per-shard repair round (`--no-repair`). @default true */
  repair?: boolean;
  /** the scan's candidate paths, over which rules resolve their pathspecs (scanned again when missing) */
  fileList?: readonly string[];
}

/** The outcome of a wide change before anything is written. */
export interface WideChangeRun {
  merged: MergedPlan;
  /** the merged plan applied in memory (all or nothing, like any plan) */
  prepared: PreparedPlan;
  usage?: Usage;
  requests: number;
  modelMs: number;
  /** the repair round of each shard that needed one, by shard index */
  repairs: Map<number, RepairReport>;
}

/**
 * Send the shard requests, merge their plans and apply the merged plan in memory. Nothing is
 * written; the caller reviews `prepared` and writes it with the write stage.
 *
 * @returns the merged plan (with failed shards and refused patches listed) and its in-memory result
 * @throws InterruptedError when cancelled; IoError when a target cannot be read
 */
export async function runWideChange(
  prepared: PreparedWideChange,
  options: RunWideChangeOptions,
): Promise<WideChangeRun> {
  options.emitter?.emit('footprint', {
    files: prepared.footprint.length,
    shards: prepared.requests.length,
    requestChars: prepared.requests.map((r) => r.chars),
  });
  const candidates = new Set(prepared.candidates);
  const result = await planShards(prepared.requests, {
    provider: options.provider,
    systemPrompt: prepared.systemPrompt,
    planner: options.planner,
    concurrency: options.concurrency,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    emitter: options.emitter,
    rootDir: options.rootDir,
    repair: options.repair,
    fileList: options.fileList,
    sendable: (path) => candidates.has(path),
  });
  const merged = mergeShardPlans(result.outcomes);
  // The scope's rules come after the shards' patches: those were written against the text the shards saw.
  merged.plan.patches.push(...prepared.rules);
  merged.patchShards.push(...prepared.rules.map(() => -1));
  const applied = await preparePlan(options.rootDir, merged.plan, options.emitter, { fileList: options.fileList });
  return {
    merged,
    prepared: applied,
    usage: result.usage,
    requests: result.requests,
    modelMs: result.ms,
    repairs: result.repairs,
  };
}
