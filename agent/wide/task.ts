import type { Usage } from '../../llm/types.js';
import { buildOutline } from '../context/outline.js';
import { resolvePathspecs, unmatchedPinError } from '../context/pins.js';
import { scanProject, type ScanResult } from '../context/scan.js';
import type { AgentEmitter } from '../events.js';
import type { Planner } from '../runner.js';
import type { ScopeAnswer } from './scope-request.js';
import {
  estimateWideCostUsd,
  prepareWideChange,
  runWideChange,
  type PreparedWideChange,
  type RunWideChangeOptions,
  type WideChangeRun,
} from './wide.js';

/**
 * A wide task driven from here, without user I/O: one scan, the footprint (`--files` pathspecs, `--grep`
 * patterns, or the one `--wide` scope request), the decision whether pinned files fit one ordinary request,
 * the person's go-ahead through a `confirmFootprint` callback, then one plan request per shard, merged and
 * applied in memory. The surface (cli/wide/flow.ts) shows, asks and writes.
 */

/** Share of the budget the project map of a scope request may take. */
const SCOPE_MAP_SHARE = 1;

/** Inputs of a wide task. Budget in characters, timeout in ms. */
export interface WideTaskInput {
  rootDir: string;
  task: string;
  provider: RunWideChangeOptions['provider'];
  budgetChars: number;
  /** settings `ignore`: more gitignore-style patterns for the scan */
  extraIgnore?: string[];
  /** `--files <pathspec...>`: git pathspecs and globs, relative to the root */
  files?: readonly string[];
  /** `--grep <regex>`: lines matching one (JavaScript syntax) are in scope */
  grep?: readonly string[];
  /** `--wide`: without files or grep, ask the provider for the scope first (one request) */
  scope?: boolean;
  /** plan requests in flight @default 4 */
  concurrency?: number;
  /** false: no per-shard repair round */
  repair?: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
  emitter?: AgentEmitter;
  /** the plan requests' planner; default `llm/provider.ts` `getStructuredPlan`, loaded lazily */
  planner?: Planner;
}

/** What the person is asked about before any plan request: files, shards, input tokens, cost (USD). */
export interface FootprintEstimate {
  files: number;
  shards: number;
  /** rules of the scope answer, applied with no request of their own */
  rules: number;
  inputTokens: number;
  /** undefined when the model's price is unknown */
  costUsd?: number;
}

/** How a wide task reaches a person; a missing callback means nobody is asked (go on). */
export interface WideDecisions {
  /** Send the plan requests of this footprint (one or more)? false ends the task with nothing sent. */
  confirmFootprint?: (estimate: FootprintEstimate) => Promise<boolean>;
}

/** A wide task's footprint, prepared: every shard request built, nothing sent yet. */
export interface PreparedWideTask {
  prepared: PreparedWideChange;
  /** the one scan of the project (an ordinary task reuses it) */
  scan: ScanResult;
  /** what the scope request cost, when there was one */
  scopeUsage?: Usage;
  /** `--files` alone whose files fit one request: an ordinary task with those pins, no shards */
  fitsOneRequest: boolean;
}

/** How a wide task ended before anything is written. Times in ms. */
export type WideTaskOutcome =
  | { kind: 'single-request'; scan: ScanResult }
  | { kind: 'declined'; wide: PreparedWideTask }
  | { kind: 'planned'; wide: PreparedWideTask; run: WideChangeRun };

/**
 * Find the footprint of a wide task and build its shard requests: scan once, resolve `--files` through
 * git pathspecs (scanned candidates only), or send the one scope request (its reply is emitted as
 * `model_reply`), then pack the footprint into shards.
 *
 * @throws UsageError for pathspecs that match nothing sendable, a bad pattern, an empty footprint or a
 *         budget too small; ProviderError and InterruptedError from the scope request
 */
export async function prepareWideTask(input: WideTaskInput): Promise<PreparedWideTask> {
  const scan = await scanProject(input.rootDir, { extraIgnore: input.extraIgnore });
  let paths: string[] = [];
  let scope: ScopeAnswer | undefined;
  let scopeUsage: Usage | undefined;
  const grep = input.grep ?? [];
  if (input.files?.length) {
    const resolved = await resolvePathspecs(input.rootDir, input.files, scan.fileList);
    if (resolved.unmatched.length > 0) throw unmatchedPinError(resolved.unmatched);
    paths = resolved.paths;
  } else if (input.scope && grep.length === 0) {
    const map = buildOutline({
      paths: scan.fileList,
      sent: new Set(),
      maxChars: Math.floor(input.budgetChars * SCOPE_MAP_SHARE),
    });
    const { requestScope } = await import('./scope-request.js');
    const found = await requestScope(input.provider, input.task, map, {
      signal: input.signal,
      timeoutMs: input.timeoutMs,
    });
    scope = found.scope;
    scopeUsage = found.usage;
    input.emitter?.emit('model_reply', {
      ms: found.ms,
      inputTokens: found.usage?.inputTokens,
      outputTokens: found.usage?.outputTokens,
    });
  }
  const prepared = await prepareWideChange({
    rootDir: input.rootDir,
    scan,
    task: input.task,
    budgetChars: input.budgetChars,
    paths,
    patterns: grep,
    scope,
    extraIgnore: input.extraIgnore,
  });
  const pinsOnly = grep.length === 0 && !input.scope;
  return { prepared, scan, scopeUsage, fitsOneRequest: pinsOnly && prepared.requests.length <= 1 };
}

/**
 * Run a wide task up to the merged plan applied in memory: prepare it, decide whether it fits one ordinary
 * request (then nothing more is done here: the caller runs the task with the same scan), ask
 * `confirmFootprint`, then send the shard requests.
 *
 * @returns `single-request`, `declined` (nothing sent) or `planned` with the merged plan and its in-memory result
 * @throws what `prepareWideTask` and `runWideChange` throw
 */
export async function runWideTask(input: WideTaskInput, decisions: WideDecisions = {}): Promise<WideTaskOutcome> {
  const wide = await prepareWideTask(input);
  if (wide.fitsOneRequest) return { kind: 'single-request', scan: wide.scan };
  const { prepared } = wide;
  const estimate: FootprintEstimate = {
    files: prepared.footprint.length,
    shards: prepared.requests.length,
    rules: prepared.rules.length,
    inputTokens: prepared.estimate.inputTokens,
    costUsd: estimateWideCostUsd(prepared, input.provider.model),
  };
  // Rules alone send nothing more: there is nothing to confirm before the review.
  const ask = estimate.shards > 0 ? decisions.confirmFootprint : undefined;
  if (ask && !(await ask(estimate))) return { kind: 'declined', wide };
  const planner: Planner =
    input.planner ??
    (async (...args: Parameters<Planner>) => (await import('../../llm/provider.js')).getStructuredPlan(...args));
  const run = await runWideChange(prepared, {
    rootDir: input.rootDir,
    provider: input.provider,
    planner,
    concurrency: input.concurrency,
    repair: input.repair,
    timeoutMs: input.timeoutMs,
    signal: input.signal,
    emitter: input.emitter,
    fileList: wide.scan.fileList,
  });
  return { kind: 'planned', wide, run };
}
