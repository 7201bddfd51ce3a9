import { buildUserPrompt } from '../../llm/prompts.js';
import type { PlanResult } from '../../llm/provider.js';
import type { ProviderConfig, Usage } from '../../llm/types.js';
import { ClawcodeError, InterruptedError, ProviderError } from '../../utils/errors.js';
import type { AgentEmitter } from '../events.js';
import { preparePlan } from '../prepare.js';
import { repairPlan, type RepairReport } from '../repair.js';
import type { Planner } from '../runner.js';
import type { ShardOutcome } from './merge.js';
import { footprintList, type Shard } from './shards.js';
import { addUsage } from '../../llm/usage.js';
import { sleep } from '../../llm/retry.js';
import type { SendableFile } from '../../llm/outbound.js';

/** The user prompt of one shard request, with its size. */
export interface ShardRequest {
  shard: Shard;
  /** the full user message */
  userPrompt: string;
  /** characters of `userPrompt` */
  chars: number;
}

/** Inputs of `buildShardRequests`. */
export interface ShardPromptInput {
  task: string;
  shards: readonly Shard[];
  /** every path of the footprint, shown in each request as the scope */
  footprintPaths: readonly string[];
  /** characters the scope list may take before it is folded by folder */
  listMaxChars: number;
  /** project instructions (AGENTS.md …), or "" */
  instructions?: string;
  /** memory block, or "" */
  memoryContext?: string;
}

/**
 * Build one user prompt per shard: the same task and instructions, the scope (every footprint
 * path, so the model knows another request covers the files it is not shown) and the shard's own
 * files under `## <path>` headers.
 *
 * @returns one request per shard, in shard order
 * @throws never
 */
export function buildShardRequests(input: ShardPromptInput): ShardRequest[] {
  const total = input.shards.length;
  const list = footprintList(input.footprintPaths, input.listMaxChars);
  return input.shards.map((shard) => {
    const scope = [
      `This change covers ${new Set(input.footprintPaths).size} files, split into ${total} part${total === 1 ? '' : 's'};`,
      `this request is part ${shard.index + 1} of ${total} and shows only its own files below.`,
      'Patch only the files shown in this request: every other file of the list is handled by another request.',
      '',
      list,
    ].join('\n');
    const userPrompt = buildUserPrompt({
      task: input.task,
      outline: scope,
      files: shard.files.map((f) => ({ path: f.path, text: f.text, ranges: f.ranges })),
      memoryContext: input.memoryContext ?? '',
      instructions: input.instructions,
    });
    return { shard, userPrompt, chars: userPrompt.length };
  });
}

/** Options of `planShards`. */
export interface PlanShardsOptions {
  provider: ProviderConfig;
  systemPrompt: string;
  planner: Planner;
  /** requests in flight at once, ≥ 1 @default 4 */
  concurrency?: number;
  /** how many failed shard requests may be sent again after a rate limit, shared by the whole run @default 2 */
  requeueBudget?: number;
  /** wait before sending a requeued shard again when the error named no delay, ms @default 2000 */
  requeueDelayMs?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  emitter?: AgentEmitter;
  /**
   * The project root: with it, each shard's plan is applied in memory as soon as it arrives, and a shard
   * whose patches do not apply gets the one repair round of any plan (agent/repair.ts), for that shard only.
   */
  rootDir?: string;
  /** false: no repair round (`--no-repair`). @default true */
  repair?: boolean;
  /** the scan's candidate paths, over which a shard plan's rules resolve their pathspecs */
  fileList?: readonly string[];
  /** the files a request may quote (the scan's candidates); checked at the door (llm/outbound.ts) */
  sendable?: SendableFile;
}

/** The result of `planShards`: one outcome per shard plus the summed usage and time. */
export interface PlanShardsResult {
  outcomes: ShardOutcome[];
  /** plan results of the shards that planned, by shard index */
  results: Map<number, PlanResult>;
  /** the repair round of each shard that needed one, by shard index */
  repairs: Map<number, RepairReport>;
  usage?: Usage;
  /** requests sent: one per shard, plus requeues and repair requests (the planner's JSON-fix request not counted) */
  requests: number;
  ms: number;
}

/**
 * Send one plan request per shard through a pool of `concurrency` workers.
 *
 * Each request already has the planner's own retries, and (with `rootDir`) a shard whose patches do not
 * apply gets one repair request of its own. On top, the run shares one small budget:
 * a shard that still fails with a rate limit (HTTP 429) is sent once more later, and the pool
 * drops to one request at a time for the rest of the run, so a rate-limited service sees less load
 * instead of the same burst again. A shard that fails otherwise is reported as failed; the other
 * shards go on. Cancellation (`signal`) stops the whole run.
 *
 * @returns outcomes in shard order, usage summed over every request
 * @throws InterruptedError when `signal` aborts; never for a failed shard (it is an outcome)
 */
export async function planShards(
  requests: readonly ShardRequest[],
  options: PlanShardsOptions,
): Promise<PlanShardsResult> {
  const started = performance.now();
  const queue = [...requests];
  const outcomes = new Map<number, ShardOutcome>();
  const results = new Map<number, PlanResult>();
  const repairs = new Map<number, RepairReport>();
  let usage: Usage | undefined;
  let sent = 0;
  let limit = Math.max(1, Math.floor(options.concurrency ?? 4));
  let requeues = options.requeueBudget ?? 2;
  let done = 0;
  const total = requests.length;
  const finish = (request: ShardRequest, outcome: ShardOutcome, patches: number, extra: object): void => {
    outcomes.set(request.shard.index, outcome);
    done++;
    const status = outcome.status;
    options.emitter?.emit('shard_done', { shard: request.shard.index, shards: total, done, status, patches, ...extra });
  };

  const runOne = async (request: ShardRequest): Promise<void> => {
    sent++;
    const { shard, chars } = request;
    options.emitter?.emit('shard_request', { shard: shard.index, shards: total, files: shard.files.length, chars });
    try {
      const { result, repair } = await requestShardPlan(request, options);
      if (repair) {
        sent++;
        repairs.set(shard.index, repair);
      }
      usage = addUsage(usage, result.usage);
      results.set(shard.index, result);
      finish(request, { shard, status: 'planned', plan: result.plan }, result.plan.patches.length, {
        usage: result.usage,
      });
    } catch (error) {
      if (error instanceof InterruptedError || options.signal?.aborted) throw error;
      if (error instanceof ProviderError && error.status === 429 && requeues > 0) {
        requeues--;
        limit = 1;
        await sleep(options.requeueDelayMs ?? 2000, options.signal);
        queue.push(request);
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      const code = error instanceof ClawcodeError ? error.code : undefined;
      finish(request, { shard, status: 'failed', error: message, code }, 0, { error: message });
    }
  };

  await runPool(queue, () => limit, runOne);
  return {
    outcomes: requests.map((r) => outcomes.get(r.shard.index)!),
    results,
    repairs,
    usage,
    requests: sent,
    ms: Math.round(performance.now() - started),
  };
}

/**
 * One shard's plan request and, when its patches do not apply in memory (with `rootDir`), the one
 * repair round of that shard.
 *
 * @returns the plan result to use (the repaired plan when the repair applied; usage of both requests
 *          summed) and the repair report when a repair request was sent
 * @throws whatever the planner throws (ProviderError, InterruptedError, PlanParseError)
 */
async function requestShardPlan(
  request: ShardRequest,
  options: PlanShardsOptions,
): Promise<{ result: PlanResult; repair?: RepairReport }> {
  const quotedFiles = request.shard.files.map((f) => f.path);
  const result = await options.planner(options.provider, options.systemPrompt, request.userPrompt, {
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    quotedFiles,
    sendable: options.sendable,
  });
  if (!options.rootDir || options.repair === false) return { result };
  const repaired = await repairPlan({
    rootDir: options.rootDir,
    provider: options.provider,
    planner: options.planner,
    systemPrompt: options.systemPrompt,
    userPrompt: request.userPrompt,
    plan: result.plan,
    planResult: result,
    prepared: await preparePlan(options.rootDir, result.plan, undefined, { fileList: options.fileList }),
    prepareOptions: { fileList: options.fileList },
    emitter: options.emitter,
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    quotedFiles,
    sendable: options.sendable,
  });
  if (!repaired) return { result };
  return { result: { ...repaired.planResult, plan: repaired.plan }, repair: repaired.report };
}

/**
 * Work through `queue` with at most `limit()` items in flight (read again each time a slot frees, so
 * the limit can drop while the pool runs); `work` may push more items onto the queue.
 *
 * @returns when the queue is empty and nothing is in flight
 * @throws the first error `work` throws (items in flight then finish on their own)
 */
function runPool<T>(queue: T[], limit: () => number, work: (item: T) => Promise<void>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let active = 0;
    let failed = false;
    const pump = (): void => {
      if (failed) return;
      if (queue.length === 0 && active === 0) return resolve();
      while (active < limit() && queue.length > 0) {
        const next = queue.shift()!;
        active++;
        work(next).then(
          () => {
            active--;
            pump();
          },
          (error: unknown) => {
            failed = true;
            reject(error instanceof Error ? error : new Error(String(error)));
          },
        );
      }
    };
    pump();
  });
}
