// The report side of a wide change (cli/wide/flow.ts): the shards' report lines, what the console shows of
// them, and the report when no plan request was sent.
import chalk from 'chalk';
import type { PreparedWideChange, WideChangeRun } from '../../agent/wide/wide.js';
import type { Usage } from '../../llm/types.js';
import type { TaskOptions, TaskReport } from '../task/flow.js';

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

/** The report line of each shard: its files, whether it planned, its patches, its repair round. */
export function shardReports(prepared: PreparedWideChange, run: WideChangeRun): ShardReport[] {
  return prepared.requests.map((r) => {
    const failed = run.merged.failed.find((f) => f.shard === r.shard.index);
    const patches = run.merged.patchShards.filter((s) => s === r.shard.index).length;
    const repair = run.repairs.get(r.shard.index);
    return {
      index: r.shard.index,
      files: [...new Set(r.shard.files.map((f) => f.path))],
      chars: r.chars,
      status: failed ? 'failed' : 'planned',
      patches,
      ...(failed ? { error: failed.error } : {}),
      ...(repair
        ? { repair: { patches: repair.patches, firstError: repair.firstError, applied: repair.applied } }
        : {}),
    };
  });
}

/** Print the failed shards, the repair rounds and the patches the merge dropped. */
export function printShardOutcomes(
  shards: readonly ShardReport[],
  run: WideChangeRun,
  out: (text: string) => void,
): void {
  for (const s of shards.filter((x) => x.status === 'failed'))
    out(chalk.red(`Shard ${s.index + 1}/${shards.length} failed: ${s.error}`));
  for (const s of shards.filter((x) => x.repair)) {
    out(
      chalk.dim(
        `Shard ${s.index + 1}: repair round for patch ${s.repair!.patches.map((n) => `#${n}`).join(', ')} after ${s.repair!.firstError}`,
      ),
    );
  }
  for (const r of run.merged.refused) out(chalk.yellow(`Dropped a patch: ${r.message}`));
}

/**
 * The report of a wide change that sent no plan request: every shard "not sent", nothing written.
 * @param ms  the time since the task started
 */
export function emptyReport(
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
