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
import { buildContext, type ContextResult } from './agent/context.js';
import { createAgentEmitter, type AgentEmitter, type AgentEventMap, type AgentEventName } from './agent/events.js';
import { preparePlan, type PlannedChange, type PreparedPlan } from './agent/executor.js';
import { runAgent, type AgentRun, type StageTimings } from './agent/runner.js';
import { parsePlan } from './llm/plan-parser.js';
import type { Plan, PatchOp, ProviderConfig, Usage } from './llm/types.js';
import { applyRun, type RunRecord } from './utils/journal.js';
import { withProjectLock } from './utils/lock.js';
import { PatchApplyError } from './utils/errors.js';

export { applyPatch, applyPatches } from './utils/patch.js';
export { parsePlan, createAgentEmitter };
export { ClawcodeError, ConfigError, InterruptedError, IoError, PatchApplyError, ProviderError, UsageError } from './utils/errors.js';
export type {
  AgentEmitter, AgentEventMap, AgentEventName, AgentRun, ContextResult, Plan, PatchOp, PlannedChange, PreparedPlan, ProviderConfig, RunRecord,
  StageTimings, Usage,
};

/** Options of {@link planTask}. */
export interface PlanTaskOptions {
  /** Absolute (or cwd-relative) project root. */
  rootDir: string;
  task: string;
  provider: ProviderConfig;
  /** Context budget in characters; default 18,000. */
  budgetChars?: number;
  /** Per-attempt provider timeout in ms; default 120,000. */
  timeoutMs?: number;
  /** CLAWCODE_HOME override (memory, index). */
  homeDir?: string;
  signal?: AbortSignal;
  /** Receives every pipeline event (agent/events.ts), e.g. to show progress. */
  onEvent?: <K extends AgentEventName>(name: K, payload: AgentEventMap[K]) => void;
}

/**
 * Plan one task: select context, make ONE provider call, apply the plan in memory.
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
    budgetChars: options.budgetChars ?? 18_000,
    timeoutMs: options.timeoutMs ?? 120_000,
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
  /** Recorded in the run journal; default "apply plan". */
  task?: string;
  /** Compute everything, write nothing. */
  dryRun?: boolean;
  homeDir?: string;
}

/** Result of {@link applyPlan}: the prepared plan and, unless a dry run, the journal record. */
export interface ApplyPlanResult {
  prepared: PreparedPlan;
  /** Files written, project-relative. */
  filesWritten: string[];
  run?: RunRecord;
}

/**
 * Apply a plan to a project with the same engine and checks as the CLI: paths checked, every
 * patch applied in memory, then all files written atomically through the run journal (undoable).
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
  if (!prepared.ok) {
    const issue = prepared.pathIssues[0];
    const failed = prepared.results.find((r) => !r.applied);
    throw new PatchApplyError(
      issue ? `Plan refused: ${issue.file}: ${issue.message}` : `Patch #${(failed?.index ?? 0) + 1} (${failed?.file}) did not apply: ${failed?.error ?? 'unknown'}`,
      { code: issue ? issue.code : 'patch_not_applied' },
    );
  }
  if (options.dryRun || prepared.changes.length === 0) return { prepared, filesWritten: [] };
  // The same per-project lock as the CLI, so a script and a clawcode run never interleave writes.
  const run = await withProjectLock(rootDir, { homeDir: options.homeDir, waitMs: 10_000 }, () =>
    applyRun({
      rootDir,
      changes: prepared.changes.map((c) => ({ path: c.path, before: c.before, after: c.after })),
      meta: { task: options.task ?? 'apply plan' },
      homeDir: options.homeDir,
    }),
  );
  return { prepared, filesWritten: prepared.changes.map((c) => c.path), run };
}

/**
 * The context that would be sent for a task (what `clawcode context` shows): ranked files and
 * regions under the budget, with the project outline.
 *
 * @param options.budgetChars  budget in characters; default 18,000
 */
export async function selectContext(options: { rootDir: string; task: string; budgetChars?: number; homeDir?: string }): Promise<ContextResult> {
  return buildContext({ rootDir: resolveRoot(options.rootDir), task: options.task, budgetChars: options.budgetChars ?? 18_000, homeDir: options.homeDir });
}

function resolveRoot(rootDir: string): string {
  return resolve(rootDir);
}
