import { z } from 'zod';
import type { Usage } from '../llm/types.js';
import type { Plan } from '../utils/plan.js';
import { applyPatch } from '../utils/patch.js';
import { sha256 } from '../utils/journal/store.js';
import { isAlreadyApplied } from './already-applied.js';

/** A plan saved by `--plan-out`, applied later by `clawcode apply` / checked by `clawcode check`. */
export interface SavedPlan {
  version: 1;
  task: string;
  createdAt: string;
  provider?: string;
  model?: string;
  usage?: Usage | null;
  /** sha256 (hex) of each target file's bytes when the plan was made; null = the file did not exist. */
  baseHashes: Record<string, string | null>;
  plan: Plan;
}

/** The `--plan-out` document's shape (its `plan` is validated on its own). */
export const savedPlanSchema = z.object({
  version: z.literal(1),
  task: z.string(),
  createdAt: z.string(),
  provider: z.string().optional(),
  model: z.string().optional(),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number(), totalTokens: z.number() }).nullish(),
  baseHashes: z.record(z.string(), z.string().nullable()),
  plan: z.unknown(),
});

/** sha256 hex of bytes, or null for a missing file. */
export function hashBytes(bytes: Buffer | null): string | null {
  return bytes === null ? null : sha256(bytes);
}

/**
 * Build the saved-plan document for `--plan-out`.
 * @param targets  path → bytes (null = missing) of every file the plan patches, as planned against
 */
export function makeSavedPlan(
  plan: Plan,
  targets: ReadonlyMap<string, Buffer | null>,
  meta: { task: string; provider?: string; model?: string; usage?: Usage | null; now?: Date },
): SavedPlan {
  const baseHashes: Record<string, string | null> = {};
  for (const [path, bytes] of targets) baseHashes[path] = hashBytes(bytes);
  return {
    version: 1,
    task: meta.task,
    createdAt: (meta.now ?? new Date()).toISOString(),
    provider: meta.provider,
    model: meta.model,
    usage: meta.usage ?? null,
    baseHashes,
    plan,
  };
}

/** Status of one patch against the current files (`clawcode check`). */
export type PatchCheckStatus = 'applies' | 'already_applied' | 'conflict' | 'ambiguous';

/** One row of `clawcode check`. */
export interface PatchCheck {
  index: number;
  file: string;
  status: PatchCheckStatus;
  /** Match strategy when it applies; refusal reason otherwise. */
  detail?: string;
  /** The file changed since the plan was saved (base hash differs). */
  baseChanged: boolean;
}

/**
 * Check every patch of a plan against the current contents, in order (a patch sees the earlier ones'
 * result when they apply): `applies`, `already_applied` (find is gone but the replacement is there),
 * `ambiguous` (find matches more than once), otherwise `conflict`.
 *
 * @param contents   path → current text ('' for a missing file)
 * @param baseHashes from a saved plan, to flag files changed since; `current` gives today's hashes
 */
export function checkPlan(
  plan: Plan,
  contents: ReadonlyMap<string, string>,
  baseHashes?: Record<string, string | null>,
  current?: ReadonlyMap<string, string | null>,
): PatchCheck[] {
  const state = new Map(contents);
  return plan.patches.map((patch, index) => {
    const content = state.get(patch.file) ?? '';
    const baseChanged =
      baseHashes !== undefined &&
      current !== undefined &&
      patch.file in baseHashes &&
      baseHashes[patch.file] !== current.get(patch.file);
    // Before matching: a replacement that keeps its find would otherwise "apply" a second time.
    if (isAlreadyApplied(content, patch.find, patch.replace))
      return { index, file: patch.file, status: 'already_applied', baseChanged };
    const result = applyPatch(content, patch.find, patch.replace, {
      replaceAll: patch.replace_all,
      occurrence: patch.occurrence,
    });
    if (result.applied && result.newContent !== undefined) {
      state.set(patch.file, result.newContent);
      return { index, file: patch.file, status: 'applies', detail: result.strategy, baseChanged };
    }
    const error = result.error ?? '';
    if (result.code === 'patch_ambiguous_find')
      return { index, file: patch.file, status: 'ambiguous', detail: error, baseChanged };
    if (patch.replace.trim() !== '' && content.includes(patch.replace)) {
      return { index, file: patch.file, status: 'already_applied', baseChanged };
    }
    return { index, file: patch.file, status: 'conflict', detail: error, baseChanged };
  });
}
