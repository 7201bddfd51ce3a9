/**
 * clawcode as a library: the same pipeline as the CLI, with no printing and no prompting.
 *
 * ```ts
 * import { planTask, applyPlan } from 'clawcode';
 * const run = await planTask({ rootDir: '/src/shop', task: 'log every request', provider: { provider: 'openai', name: 'openai', model: 'gpt-4o-mini', apiKey } });
 * if (run.prepared.ok) await applyPlan({ rootDir: '/src/shop', plan: run.plan, task: run.task });
 * ```
 *
 * Deliberately not exported: the cli/ and ui/ modules (they talk to a person) and the provider
 * clients (reach them through `planTask`, which loads only the chosen SDK).
 */
import { resolve } from 'node:path';
import { buildContext, type ContextResult } from './agent/context/build.js';
import { createAgentEmitter, type AgentEmitter, type AgentEventMap, type AgentEventName } from './agent/events.js';
import { preparePlan, type PlannedChange, type PreparedPlan } from './agent/prepare.js';
import { runAgent, type AgentRun, type StageTimings } from './agent/runner.js';
import { parsePlan } from './llm/plan-parser.js';
import type { ProviderConfig, Usage } from './llm/types.js';
import { runWriteStage, type WriteReport } from './agent/write-stage.js';
import { DEFAULT_BUDGET_CHARS, DEFAULT_LOCK_WAIT_MS, DEFAULT_TIMEOUT_MS } from './utils/defaults.js';
import type { RunRecord } from './utils/journal/store.js';
import { withProjectLock } from './utils/journal/lock.js';
import { PatchApplyError } from './utils/errors.js';
import type { PatchOp, Plan } from './utils/plan.js';
import {
  prepareWideChange,
  runWideChange,
  type PreparedWideChange,
  type WideChangeInput,
  type WideChangeRun,
} from './agent/wide/wide.js';

export { applyPatch } from './utils/patch.js';
export { applyPatches } from './utils/patch/plan-apply.js';
export { parsePlan, createAgentEmitter };
export {
  ClawcodeError,
  ConfigError,
  InterruptedError,
  IoError,
  PatchApplyError,
  ProviderError,
  UsageError,
} from './utils/errors.js';
export type {
  AgentEmitter,
  AgentEventMap,
  AgentEventName,
  AgentRun,
  ContextResult,
  Plan,
  PatchOp,
  PlannedChange,
  PreparedPlan,
  ProviderConfig,
  RunRecord,
  StageTimings,
  Usage,
  WriteReport,
  PreparedWideChange,
  WideChangeInput,
  WideChangeRun,
};
export { prepareWideChange };

/** Options of {@link planTask}. */
export interface PlanTaskOptions {
  /** Absolute (or cwd-relative) project root. */
  rootDir: string;
  task: string;
  provider: ProviderConfig;
  /** Context budget in characters; default {@link DEFAULT_BUDGET_CHARS} (18,000). */
  budgetChars?: number;
  /** Per-attempt provider timeout in ms; default {@link DEFAULT_TIMEOUT_MS} (120,000). */
  timeoutMs?: number;
  /** CLAWCODE_HOME override (memory, index). */
  homeDir?: string;
  signal?: AbortSignal;
  /** Receives every pipeline event (agent/events.ts), e.g. to show progress. */
  onEvent?: <K extends AgentEventName>(name: K, payload: AgentEventMap[K]) => void;
}

/**
 * Plan one task: select context, ask for ONE plan (at most three requests: the plan, one JSON repair,
 * one patch-repair round), apply the plan in memory.
 * Nothing is written; pass the result's plan to {@link applyPlan}.
 *
 * @returns the run: `plan`, `prepared` (per-patch outcomes and the file changes with diffs), `context`, timings, usage
 * @throws ProviderError, PlanParseError, ConfigError, InterruptedError, IoError
 */
export async function planTask(options: PlanTaskOptions): Promise<AgentRun> {
  const emitter = createAgentEmitter();
  if (options.onEvent) emitter.onAny(options.onEvent);
  return runAgent({
    rootDir: resolveRoot(options.rootDir),
    task: options.task,
    provider: options.provider,
    budgetChars: options.budgetChars ?? DEFAULT_BUDGET_CHARS,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    homeDir: options.homeDir,
    signal: options.signal,
    emitter,
  });
}

/** Options of {@link applyPlan}. */
export interface ApplyPlanOptions {
  rootDir: string;
  /** A plan object, or its JSON text (validated with the plan schema). */
  plan: Plan | string;
  /** Recorded in the run journal and memory; default "apply plan". */
  task?: string;
  /** Compute everything, write nothing. */
  dryRun?: boolean;
  /** Run the plan's commands that stay on this machine and inside the project (destructive ones never run). */
  runCommands?: boolean;
  /** Command to run after writing; a failure sets `report.exitCode` 4. */
  verify?: string;
  /** Restore the previous bytes when `verify` fails. */
  rollbackOnFail?: boolean;
  /** Commit exactly the written files with the task as the message. */
  commit?: boolean;
  homeDir?: string;
  signal?: AbortSignal;
  /** Receives the write events (`write_file`, `run_tests`, `command_done`, `success`). */
  onEvent?: <K extends AgentEventName>(name: K, payload: AgentEventMap[K]) => void;
}

/** Result of {@link applyPlan}: the prepared plan and the write stage's report. */
export interface ApplyPlanResult {
  prepared: PreparedPlan;
  /** Files written, project-relative. */
  filesWritten: string[];
  /** The journal record, unless a dry run or nothing changed. */
  run?: RunRecord;
  /** Status, exit code, verify, commit, commands and memory of the write. */
  report: WriteReport;
}

/**
 * Apply a plan to a project with the same write stage as the CLI: paths checked, every patch applied
 * in memory, then all files written atomically through the run journal (undoable), verify, commit, the
 * commands allowed by `runCommands`, and memory. Nobody is asked: the plan is written as a whole.
 *
 * @throws PatchApplyError (exit code 3) when a path is refused or a patch does not apply: nothing is written
 * @throws PlanParseError when `plan` is not a valid plan (text or object)
 * @throws ProjectLockedError when another clawcode run holds the project for more than 10 s
 */
export async function applyPlan(options: ApplyPlanOptions): Promise<ApplyPlanResult> {
  const rootDir = resolveRoot(options.rootDir);
  // Objects are validated too: a plan from JSON.parse or another tool is untrusted input.
  const plan = parsePlan(typeof options.plan === 'string' ? options.plan : JSON.stringify(options.plan));
  const prepared = await preparePlan(rootDir, plan);
  if (!prepared.ok) throw notAppliedError(prepared);
  const emitter = createAgentEmitter();
  if (options.onEvent) emitter.onAny(options.onEvent);
  // The same per-project lock as the CLI, so a script and a clawcode run never interleave writes.
  const report = await withProjectLock(rootDir, { homeDir: options.homeDir, waitMs: DEFAULT_LOCK_WAIT_MS }, () =>
    runWriteStage({
      rootDir,
      task: options.task ?? 'apply plan',
      plan,
      prepared,
      dryRun: options.dryRun,
      yes: true,
      runCommands: options.runCommands,
      verify: options.verify,
      rollbackOnFail: options.rollbackOnFail,
      commit: options.commit,
      homeDir: options.homeDir,
      signal: options.signal,
      emitter,
    }),
  );
  return { prepared, filesWritten: report.filesWritten, run: report.run, report };
}

/** The error of a plan that did not apply: the first refused path, else the first failed patch. */
function notAppliedError(prepared: PreparedPlan): PatchApplyError {
  const issue = prepared.pathIssues[0];
  if (issue) return new PatchApplyError(`Plan refused: ${issue.file}: ${issue.message}`, { code: issue.code });
  const failed = prepared.results.find((r) => !r.applied);
  const which = `Patch #${(failed?.index ?? 0) + 1} (${failed?.file})`;
  return new PatchApplyError(`${which} did not apply: ${failed?.error ?? 'unknown'}`, { code: 'patch_not_applied' });
}

/**
 * The context that would be sent for a task (what `clawcode context` shows): ranked files and
 * regions under the budget, with the project outline.
 *
 * @param options.budgetChars  budget in characters; default {@link DEFAULT_BUDGET_CHARS}
 */
export async function selectContext(options: {
  rootDir: string;
  task: string;
  budgetChars?: number;
  homeDir?: string;
}): Promise<ContextResult> {
  return buildContext({
    rootDir: resolveRoot(options.rootDir),
    task: options.task,
    budgetChars: options.budgetChars ?? DEFAULT_BUDGET_CHARS,
    homeDir: options.homeDir,
  });
}

function resolveRoot(rootDir: string): string {
  return resolve(rootDir);
}

/** Options of {@link planWideChange}: the footprint inputs plus the provider. */
export interface PlanWideChangeOptions extends WideChangeInput {
  provider: ProviderConfig;
  /** plan requests in flight at once @default 4 */
  concurrency?: number;
  /** per-request timeout, ms */
  timeoutMs?: number;
  signal?: AbortSignal;
  onEvent?: Parameters<AgentEmitter['onAny']>[0];
}

/**
 * Plan a wide change (a codemod across many files), as `clawcode --files/--grep` does: the footprint
 * is split into shards under the budget, one plan request per shard, and the shard plans are merged
 * into one plan applied in memory. Nothing is written: pass `run.merged.plan` to {@link applyPlan}.
 *
 * @returns the prepared shards (footprint, requests, estimate) and the run (merged plan, failed
 *          shards, refused patches, in-memory result, usage)
 * @throws UsageError for an empty footprint, a bad pattern or a budget too small; InterruptedError
 */
export async function planWideChange(
  options: PlanWideChangeOptions,
): Promise<{ shards: PreparedWideChange; run: WideChangeRun }> {
  const rootDir = resolveRoot(options.rootDir);
  const shards = await prepareWideChange({ ...options, rootDir });
  const emitter = createAgentEmitter();
  if (options.onEvent) emitter.onAny(options.onEvent);
  const planner = async (...args: Parameters<typeof import('./llm/provider.js').getStructuredPlan>) =>
    (await import('./llm/provider.js')).getStructuredPlan(...args);
  const run = await runWideChange(shards, {
    rootDir,
    provider: options.provider,
    planner,
    concurrency: options.concurrency,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    signal: options.signal,
    emitter,
  });
  return { shards, run };
}
