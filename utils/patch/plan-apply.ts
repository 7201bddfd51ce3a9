/**
 * A whole plan applied in memory, in order, all or nothing: each find/replace through the patch engine
 * (utils/patch.ts `applyPatch`), each codemod rule (and each literal `replace_all` over a pathspec) over the
 * files its pathspec named (utils/patch/spread.ts).
 */
import { applyPatch, type PatchResult } from '../patch.js';
import type { PatchOp } from '../plan.js';
import type { PatchEdit } from './edits.js';
import { applyLiteralEverywhere, applyRule } from './spread.js';

/** One file a rule (or a literal replacement over a pathspec) changed, and how many places in it. */
export interface SpreadFile {
  path: string;
  matches: number;
}

/** The outcome of one patch of a plan (same order as the plan's patches). */
export interface PatchOutcome extends Omit<PatchResult, 'newContent' | 'edits'> {
  /** Index of the patch in the plan, 0-based. */
  index: number;
  /** The patch's file (as written in the plan): a path, or the pathspec of a rule. */
  file: string;
  /** Set when the patch changes nothing (find equals replace): left out of the plan, with a `note`. */
  dropped?: true;
  /** One line for the report about a patch that applied, e.g. why it was dropped. */
  note?: string;
  /** Rules and literal replacements over a pathspec: the files changed, in pathspec order. */
  files?: SpreadFile[];
  /** Rules: files the pathspec named that were left out because they do not parse. */
  unparsed?: string[];
  /** Rules and literal replacements over a pathspec: how many files the pathspec named. */
  searched?: number;
}

/** The outcome of a whole plan: all patches applied, or none. */
export interface PlanApplyResult {
  /** True when every patch applied. */
  applied: boolean;
  /** Every input file plus new ones, with all patches applied; empty when `applied` is false. */
  contents: Map<string, string>;
  /** One outcome per patch, in plan order. */
  results: PatchOutcome[];
}

/**
 * Apply a plan's patches in memory, in order: a later patch sees the result of the earlier ones.
 * All or nothing: when any patch fails, `applied` is false and `contents` is empty, but every patch is
 * still tried and reported. A find/replace whose span overlaps text written by an earlier find/replace of
 * the same file is refused (`patch_overlap`); a rule rewrites whatever text is there by then. A file
 * missing from `contents` counts as new: only `find: ""` may fill it. A patch whose find equals its
 * replace changes nothing: found once, it is dropped with a note; not found, or ambiguous, it is refused
 * like any other find (the model is wrong about the file).
 *
 * @param contents  current text of every file the plan may touch, keyed by project-relative path (every
 *                  file of every pathspec included)
 * @param patches   the plan's patches, applied in array order
 * @param spread    for each rule, and each literal `replace_all` over a pathspec, by patch index: the files
 *                  its pathspec names, in order (resolved by the caller through the path policy)
 */
export function applyPatches(
  contents: ReadonlyMap<string, string>,
  patches: readonly PatchOp[],
  spread: ReadonlyMap<number, readonly string[]> = new Map(),
): PlanApplyResult {
  const current = new Map(contents);
  const written = new Map<string, { start: number; end: number; index: number }[]>();
  const growth = new Growth(contents);
  const results: PatchOutcome[] = [];
  let ok = true;
  patches.forEach((patch, index) => {
    const base = { index, file: patch.file };
    const touched = spread.get(index) ?? [patch.file];
    const before = touched.map((path) => [path, current.get(path)] as const);
    let outcome: PatchOutcome | undefined;
    try {
      outcome = applyOne(current, written, patch, base, spread.get(index));
    } catch (error) {
      // A replacement that multiplies a file past the longest string V8 can hold: the same refusal.
      if (!(error instanceof RangeError && error.message === 'Invalid string length')) throw error;
    }
    if (!outcome || (outcome.applied && !outcome.dropped && !growth.fits(touched, current))) {
      for (const [path, text] of before) {
        if (text === undefined) current.delete(path);
        else current.set(path, text);
      }
      outcome = {
        ...base,
        applied: false,
        code: 'plan_too_large',
        error: `patch ${index + 1} would grow the files of the plan by more than ${MAX_PLAN_GROWTH_CHARS} characters`,
        hint: 'a plan edits source; generate large files with a command instead',
      };
    }
    if (!outcome.applied) ok = false;
    results.push(outcome);
  });
  return { applied: ok, contents: ok ? current : new Map(), results };
}

/**
 * Most characters a whole plan may add to the files it touches: the sum over files of how far each grew
 * past its size before the plan, in UTF-16 code units. A plan of a few kilobytes can multiply a file by the
 * length of a `replace` (`replace_all`, a rule's template), and chained spreading patches multiply again;
 * past this bound it is refused before anything is diffed or written. The figure is in docs/tuning.md.
 */
export const MAX_PLAN_GROWTH_CHARS = 32 * 1024 * 1024;

/** How much a plan has grown its files so far (see MAX_PLAN_GROWTH_CHARS). */
class Growth {
  private readonly grown = new Map<string, number>();
  private total = 0;
  constructor(private readonly original: ReadonlyMap<string, string>) {}

  /** Count the files a patch touched; false (and nothing counted) when the total would pass the bound. */
  fits(paths: readonly string[], current: ReadonlyMap<string, string>): boolean {
    let total = this.total;
    const next: [string, number][] = [];
    for (const path of paths) {
      const g = Math.max(0, (current.get(path)?.length ?? 0) - (this.original.get(path)?.length ?? 0));
      total += g - (this.grown.get(path) ?? 0);
      next.push([path, g]);
    }
    if (total > MAX_PLAN_GROWTH_CHARS) return false;
    for (const [path, g] of next) this.grown.set(path, g);
    this.total = total;
    return true;
  }
}

/** One patch of a plan applied to `current` (updated on success), as {@link applyPatches} describes. */
function applyOne(
  current: Map<string, string>,
  written: Map<string, { start: number; end: number; index: number }[]>,
  patch: PatchOp,
  base: { index: number; file: string },
  files: readonly string[] | undefined,
): PatchOutcome {
  const index = base.index;
  if (files?.length === 0) {
    const what = patch.operation === 'rewrite' ? 'file a grammar covers' : 'file';
    return {
      ...base,
      applied: false,
      code: 'rewrite_no_files',
      error: `the pathspec ${patch.file} names no ${what} that clawcode may edit`,
      hint: 'name files of the project (ignored, secret, binary and generated files are never edited)',
    };
  }
  if (files) {
    return patch.operation === 'rewrite'
      ? applyRule(current, patch, files, base)
      : applyLiteralEverywhere(current, patch, files, base);
  }
  const before = current.get(patch.file);
  if (before === undefined && patch.find !== '') {
    return {
      ...base,
      applied: false,
      code: 'patch_file_missing',
      error: `${patch.file}: no such file; \`find: ""\` creates it`,
    };
  }
  const result = applyPatch(before ?? '', patch.find, patch.replace, {
    replaceAll: patch.replace_all,
    occurrence: patch.occurrence,
  });
  const { newContent, edits, ...report } = result;
  if (result.code === 'patch_noop') {
    return { ...base, applied: true, dropped: true, note: 'find equals replace: nothing to change; dropped' };
  }
  if (!result.applied || newContent === undefined || !edits) return { ...base, ...report };
  const regions = written.get(patch.file) ?? [];
  // Strict intersection; an empty region (a deletion point) clashes only with a span around it.
  const clash = regions.find((r) => edits.some((e) => e.start < r.end && r.start < e.end));
  if (clash) {
    return {
      ...base,
      applied: false,
      strategy: result.strategy,
      startLine: result.startLine,
      endLine: result.endLine,
      code: 'patch_overlap',
      error: `patch ${index + 1} changes text that patch ${clash.index + 1} wrote in ${patch.file}; merge them into one patch`,
    };
  }
  written.set(patch.file, shiftRegions(regions, edits, index));
  current.set(patch.file, newContent);
  return { ...base, ...report };
}

/** Move earlier regions past the new edits and add the regions the edits wrote. */
function shiftRegions(
  regions: readonly { start: number; end: number; index: number }[],
  edits: readonly PatchEdit[],
  index: number,
) {
  const out: { start: number; end: number; index: number }[] = [];
  for (const r of regions) {
    let delta = 0;
    for (const e of edits) if (e.end <= r.start) delta += e.text.length - (e.end - e.start);
    out.push({ start: r.start + delta, end: r.end + delta, index: r.index });
  }
  let delta = 0;
  for (const e of edits) {
    out.push({ start: e.start + delta, end: e.start + delta + e.text.length, index });
    delta += e.text.length - (e.end - e.start);
  }
  return out;
}
