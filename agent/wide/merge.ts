import type { PatchOp, Plan } from '../../utils/plan.js';
import type { Shard } from './shards.js';

/** What one shard request produced. */
export type ShardOutcome =
  { shard: Shard; status: 'planned'; plan: Plan } | { shard: Shard; status: 'failed'; error: string; code?: string };

/** A patch of a shard plan that the merge refused. */
export interface RefusedShardPatch {
  /** 0-based shard index */
  shard: number;
  /** 0-based index of the patch in its shard's plan */
  patchIndex: number;
  file: string;
  code: 'patch_outside_shard';
  message: string;
}

/** The shard plans merged into one plan. */
export interface MergedPlan {
  /** one plan: analyses joined, patches in shard order, commands and notes deduplicated */
  plan: Plan;
  /** for each patch of `plan.patches`, the shard it came from (same order; -1: a rule of the scope answer) */
  patchShards: number[];
  /** patches dropped because they touch a file their shard did not show */
  refused: RefusedShardPatch[];
  /** shards whose plan is part of the merge, and shards that failed, by index */
  planned: number[];
  failed: { shard: number; error: string; code?: string }[];
}

function dedupe(items: readonly string[]): string[] {
  return [...new Set(items.map((s) => s.trim()).filter((s) => s !== ''))];
}

/**
 * Merge the plans of every shard into one plan, applied and written once.
 *
 * A patch must target a file its own shard showed: a shard that edits another shard's file would
 * race that shard's plan (both see the old text) and could undo or double its edits, so such a
 * patch is refused and reported, never applied. A rule is the exception: it matches the merged
 * result, not what a shard saw. A patch identical to one an earlier shard sent (overlapping excerpts
 * of one file) is merged into it. Patches keep shard order, then plan order, so a file split over
 * two shards gets the first shard's edits first.
 *
 * @param outcomes  one outcome per shard, any order
 * @returns the merged plan with the provenance of each patch and what was refused or failed
 * @throws never
 */
export function mergeShardPlans(outcomes: readonly ShardOutcome[]): MergedPlan {
  const sorted = [...outcomes].sort((a, b) => a.shard.index - b.shard.index);
  const patches: PatchOp[] = [];
  const patchShards: number[] = [];
  const refused: RefusedShardPatch[] = [];
  const analyses: string[] = [];
  const commands: string[] = [];
  const notes: string[] = [];
  const filesToEdit = new Map<string, string>();
  const planned: number[] = [];
  const failed: MergedPlan['failed'] = [];
  const seen = new Set<string>();
  for (const outcome of sorted) {
    const index = outcome.shard.index;
    if (outcome.status === 'failed') {
      failed.push({ shard: index, error: outcome.error, code: outcome.code });
      continue;
    }
    planned.push(index);
    const shown = new Set(outcome.shard.files.map((f) => f.path));
    const { plan } = outcome;
    if (plan.analysis.trim()) analyses.push(plan.analysis.trim());
    for (const [i, patch] of plan.patches.entries()) {
      // A file split over two shards whose excerpts overlap can get the same patch from both: one is kept.
      const key = JSON.stringify([
        patch.file,
        patch.operation,
        patch.find,
        patch.replace,
        patch.replace_all,
        patch.occurrence,
      ]);
      if (seen.has(key)) continue;
      seen.add(key);
      // A rule names files by pathspec and rewrites whatever they hold when the merged plan is applied.
      if (patch.operation !== 'rewrite' && !shown.has(patch.file)) {
        refused.push({
          shard: index,
          patchIndex: i,
          file: patch.file,
          code: 'patch_outside_shard',
          message: `shard ${index + 1} patched ${patch.file}, which it was not shown`,
        });
        continue;
      }
      patches.push(patch);
      patchShards.push(index);
    }
    for (const f of plan.files_to_edit)
      if (shown.has(f.path) && !filesToEdit.has(f.path)) filesToEdit.set(f.path, f.reason);
    commands.push(...plan.commands);
    notes.push(...plan.agent_notes);
  }
  return {
    plan: {
      analysis: analyses.join('\n'),
      files_to_edit: [...filesToEdit].map(([path, reason]) => ({ path, reason })),
      patches,
      commands: dedupe(commands),
      agent_notes: dedupe(notes),
    },
    patchShards,
    refused,
    planned,
    failed,
  };
}
