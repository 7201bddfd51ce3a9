import { performance } from 'node:perf_hooks';
import type { ContextResult } from './context/build.js';
import type { ScanResult } from './context/scan.js';
import { preparePlan, type PreparedPlan } from './prepare.js';
import type { AgentEmitter } from './events.js';
import { buildMemoryContext, loadGlobalMemory, loadProjectMemory } from '../memory/memory.js';
import { detectProjectSummary } from '../memory/project-summary.js';
import type { ProjectInstructions } from './context/instructions.js';
import { gatherContext } from './context/gather.js';
import { repairPlan, type RepairReport } from './repair.js';
import { buildSystemPrompt, buildUserPrompt } from '../llm/prompts.js';
import type { PlanResult, RetryNotice } from '../llm/provider.js';
import type { SendableFile } from '../llm/outbound.js';
import type { ProviderConfig } from '../llm/types.js';
import type { Plan } from '../utils/plan.js';
import { estimateTokens } from '../llm/usage.js';

/** The function that turns prompts into a plan; `llm/provider.ts` `getStructuredPlan` in production. */
export type Planner = (
  config: ProviderConfig,
  systemPrompt: string,
  userPrompt: string,
  options: {
    signal?: AbortSignal;
    timeoutMs?: number;
    onProgress?: (p: { chars: number }) => void;
    onRetry?: (notice: RetryNotice) => void;
    parseRepair?: boolean;
    /** project files whose text the user message quotes (checked at the door, llm/outbound.ts) */
    quotedFiles?: readonly string[];
    /** the files a request may quote: the context stage's candidates */
    sendable?: SendableFile;
  },
) => Promise<PlanResult>;

/** Inputs of one pipeline run. */
export interface RunAgentOptions {
  /** Absolute project root. */
  rootDir: string;
  task: string;
  provider: ProviderConfig;
  /** Context budget in characters. */
  budgetChars: number;
  /** CLAWCODE_HOME override (memory, index); defaults to the environment's. */
  homeDir?: string;
  emitter?: AgentEmitter;
  signal?: AbortSignal;
  /** Provider request timeout per attempt, ms. */
  timeoutMs?: number;
  /** Extra ignore patterns (settings `ignore`), gitignore syntax. */
  extraIgnore?: string[];
  /** Pinned pathspecs (`--files`, `:add`): their files go into the context first. */
  files?: readonly string[];
  /** Paths kept from the previous task of a session (planned or edited): sent after the pins. */
  kept?: readonly string[];
  /** Injected planner; defaults to a lazy import of `getStructuredPlan` so the SDKs load only here. */
  planner?: Planner;
  /** false: no repair round when patches are refused (`--no-repair`, settings `repair: false`). @default true */
  repair?: boolean;
  /** The project's scan when the caller already made one: the context stage does not scan again. */
  scan?: ScanResult;
}

/** Wall-clock time of each stage, ms. `modelMs` is the provider call (incl. a repair request). */
export interface StageTimings {
  contextMs: number;
  promptMs: number;
  modelMs: number;
  applyMs: number;
  totalMs: number;
}

/** Everything one run computed, before anything is written. */
export interface AgentRun {
  task: string;
  context: ContextResult;
  /** Project instructions sent with the task (AGENTS.md …). */
  instructions: ProjectInstructions;
  systemPrompt: string;
  userPrompt: string;
  plan: Plan;
  planResult: PlanResult;
  prepared: PreparedPlan;
  timings: StageTimings;
  /** Set when refused patches were sent back in the one repair round (agent/repair.ts). */
  repair?: RepairReport;
}

/**
 * Build the two prompts for a task: context selection, memory, instructions (no provider call). Reads
 * memory and never writes it; with `cacheIndex: false` (as `--print-prompt`) nothing at all is written
 * under the clawcode home.
 */
export async function buildPrompts(
  options: Pick<
    RunAgentOptions,
    'rootDir' | 'task' | 'budgetChars' | 'homeDir' | 'emitter' | 'extraIgnore' | 'files' | 'kept' | 'scan'
  > & { cacheIndex?: boolean },
): Promise<{
  context: ContextResult;
  instructions: ProjectInstructions;
  systemPrompt: string;
  userPrompt: string;
  contextMs: number;
  promptMs: number;
}> {
  const t0 = performance.now();
  const { context, instructions } = await gatherContext({
    ...options,
    onScan: (scan) => options.emitter?.emit('scan', scan),
  });
  const contextMs = performance.now() - t0;
  options.emitter?.emit('context', {
    files: context.files.map((f) => ({ path: f.path, chars: f.chars })),
    totalChars: context.totalChars,
    budgetChars: context.budget,
    ms: Math.round(contextMs),
  });
  const t1 = performance.now();
  const [global, session] = await Promise.all([
    loadGlobalMemory(options.homeDir),
    loadProjectMemory(options.rootDir, options.homeDir),
  ]);
  if (!global.projectSummaries[options.rootDir]) {
    // First run in this project: describe it (framework, test command) in this prompt. Building a prompt
    // never writes; the write stage remembers the summary once the run is over (agent/write-after.ts).
    global.projectSummaries[options.rootDir] = await detectProjectSummary(options.rootDir);
  }
  const systemPrompt = buildSystemPrompt();
  const userPrompt = buildUserPrompt({
    task: options.task,
    outline: context.outline,
    files: context.files,
    memoryContext: buildMemoryContext(options.rootDir, global, session),
    instructions: instructions.text,
  });
  const promptChars = systemPrompt.length + userPrompt.length;
  options.emitter?.emit('prompt', {
    chars: promptChars,
    estimatedTokens: estimateTokens(promptChars),
    contextChars: context.totalChars,
    budgetChars: context.budget,
  });
  return { context, instructions, systemPrompt, userPrompt, contextMs, promptMs: performance.now() - t1 };
}

/**
 * The plan stage of one task, without any user I/O: select context, build prompts, ask for ONE plan,
 * then apply it in memory. At most three requests: the plan, one JSON repair inside the planner when
 * the reply does not parse, and one patch-repair round (agent/repair.ts) when patches are refused.
 * Nothing is written to the project.
 *
 * @returns the computed run; a plan that does not apply is reported in `prepared.ok === false`
 * @throws ProviderError / PlanParseError / InterruptedError from the planner; IoError on unreadable files
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentRun> {
  const start = performance.now();
  options.emitter?.emit('planning', { task: options.task });
  const prompts = await buildPrompts(options);

  const planner =
    options.planner ??
    (async (...args: Parameters<Planner>) => (await import('../llm/provider.js')).getStructuredPlan(...args));
  options.emitter?.emit('model_request', { provider: options.provider.name, model: options.provider.model });
  const t2 = performance.now();
  // What the requests of this run may quote: the candidates of its scan (never an ignored or refused file).
  const candidates = new Set(prompts.context.fileList);
  const sendable: SendableFile = (path) => candidates.has(path);
  let planResult = await planner(options.provider, prompts.systemPrompt, prompts.userPrompt, {
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    onProgress: (p) => options.emitter?.emit('model_progress', p),
    onRetry: (notice) => options.emitter?.emit('model_retry', notice),
    quotedFiles: prompts.context.files.map((f) => f.path),
    sendable,
  });
  let modelMs = performance.now() - t2;
  options.emitter?.emit('model_reply', {
    ms: Math.round(modelMs),
    inputTokens: planResult.usage?.inputTokens,
    outputTokens: planResult.usage?.outputTokens,
  });

  const t3 = performance.now();
  // Rules resolve their pathspecs over the scan the context stage made.
  const prepareOptions = { fileList: prompts.context.fileList, extraIgnore: options.extraIgnore };
  let prepared = await preparePlan(options.rootDir, planResult.plan, options.emitter, prepareOptions);
  let applyMs = performance.now() - t3;
  let plan = planResult.plan;
  let repair: RepairReport | undefined;
  if (options.repair !== false) {
    const repaired = await repairPlan({
      ...options,
      planner,
      ...prompts,
      plan,
      planResult,
      prepared,
      prepareOptions,
      quotedFiles: prompts.context.files.map((f) => f.path),
      sendable,
    });
    if (repaired) {
      ({ plan, prepared, planResult } = repaired);
      repair = repaired.report;
      modelMs += repair.ms;
      applyMs = performance.now() - t3 - repair.ms;
    }
  }
  if (prepared.ok) {
    options.emitter?.emit('diffs', { diffs: prepared.changes.map((c) => ({ file: c.path, diff: c.diff })) });
  }
  return {
    task: options.task,
    context: prompts.context,
    instructions: prompts.instructions,
    systemPrompt: prompts.systemPrompt,
    userPrompt: prompts.userPrompt,
    plan,
    planResult,
    prepared,
    ...(repair ? { repair } : {}),
    timings: {
      contextMs: Math.round(prompts.contextMs),
      promptMs: Math.round(prompts.promptMs),
      modelMs: Math.round(modelMs),
      applyMs: Math.round(applyMs),
      totalMs: Math.round(performance.now() - start),
    },
  };
}
