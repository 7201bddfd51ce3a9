/**
 * The patch engine: apply one find/replace, or a whole plan of them, in memory. It applies what the model
 * meant and never guesses: a cascade of matchers from strict to loose (utils/patch/match.ts) stops at the
 * first pass that finds anything, counts distinct locations, and applies only when there is exactly one
 * (or the patch asks for all, or names an occurrence). Line endings, BOM and final newline are kept; edits
 * are spliced by index. A relaxed pass never changes a line the patch leaves unchanged: see the invariant in
 * utils/patch/render.ts.
 */
import { locate, preparePatch, type MatchStrategy } from './patch/match.js';
import type { Candidate } from './patch/text.js';
import { closestRegion } from './patch/closest.js';
import { makeTextModel, type TextModel } from './patch/text.js';
import { blankEdgeConflict, splice, toRawEdit, widenToBlankRun, type PatchEdit } from './patch/edits.js';

/**
 * Stable codes of a refused patch (for tests, logs and `--json` reports):
 * - `patch_no_match`: no pass found find (see `closest`); `patch_ambiguous_find`: the first pass that
 *   found anything found several places (see `matchLines`); nothing looser was tried.
 * - `patch_empty_find`: `find: ""` on a non-empty file; `patch_noop`: find equals replace (and is found
 *   once; a find that is not found or is ambiguous is refused as such);
 *   `patch_invalid_options`: bad `occurrence` or both options; `patch_occurrence_out_of_range`;
 *   `patch_overlapping_matches`: `replaceAll` on matches that overlap.
 * - `patch_ambiguous_blank_edge`: find starts/ends inside a run of blank lines and the patch changes how
 *   many, or find left out blank lines next to a change and replace does not say what becomes of them.
 * - `patch_ambiguous_indent`: a new line's indentation has no certain spelling in the file's frame (the
 *   indentation relation has exceptions next to it, or the line sits inside a multi-line string).
 * - `patch_ambiguous_spacing`: find was located by ignoring spacing inside lines, and replace keeps a line
 *   whose spacing differs from the file's (the file's or replace's spacing: which is meant is unknown).
 * - `patch_elision_unanchored` / `patch_elision_unpaired`: `...` lines that cannot anchor a span, or
 *   markers in replace that do not repeat find's.
 * - Plans only: `patch_file_missing` (non-empty find on a file not given), `patch_overlap` (a patch
 *   changes text an earlier patch of the plan wrote), `plan_too_large` (the plan would grow its files by
 *   more than MAX_PLAN_GROWTH_CHARS in all, utils/patch/plan-apply.ts).
 * - Rules only: `rewrite_no_match` (the pattern matched nothing in any file of the pathspec),
 *   `rewrite_bad_pattern` (ast-grep cannot read find as one pattern), `rewrite_no_files` (the pathspec
 *   names no file the rule can edit).
 */
export type PatchErrorCode =
  | 'patch_no_match'
  | 'patch_ambiguous_find'
  | 'patch_empty_find'
  | 'patch_noop'
  | 'patch_invalid_options'
  | 'patch_occurrence_out_of_range'
  | 'patch_overlapping_matches'
  | 'patch_ambiguous_blank_edge'
  | 'patch_ambiguous_indent'
  | 'patch_ambiguous_spacing'
  | 'patch_elision_unanchored'
  | 'patch_elision_unpaired'
  | 'patch_file_missing'
  | 'patch_overlap'
  | 'rewrite_no_match'
  | 'rewrite_bad_pattern'
  | 'rewrite_no_files'
  | 'plan_too_large';

/** How many locations a patch may change. Default: exactly one location must match. */
export interface PatchOptions {
  /** Replace every location found by the deciding pass (locations must not overlap). */
  replaceAll?: boolean;
  /** 1-based location to replace when the find matches more than once (document order). */
  occurrence?: number;
}

/**
 * The outcome of one patch. Line numbers are 1-based and inclusive, in the content before the patch.
 * On refusal `applied` is false, `code` and a one-line `error` say why, and where known `closest`
 * ("did you mean lines 40–52?") or `matchLines` (every location of an ambiguous find) say where.
 */
export interface PatchResult {
  applied: boolean;
  /** The whole new content (only when applied). */
  newContent?: string;
  /** One line for a person, e.g. `find matches 3 places (lines 12, 40, 88); add context or set occurrence`. */
  error?: string;
  code?: PatchErrorCode;
  /** The pass that located the find (also set on an ambiguous refusal: the pass that found several). */
  strategy?: MatchStrategy;
  /** First and last line of the (first) replaced span. */
  startLine?: number;
  endLine?: number;
  /** Number of spans replaced (1 unless replaceAll). */
  replacements?: number;
  /** Locations the deciding pass found. */
  matchCount?: number;
  /** Start line of every location the deciding pass found (at most 20), for ambiguity reports. */
  matchLines?: number[];
  /** No match: the region that looks most like find, for "did you mean lines A–B?". */
  closest?: { startLine: number; endLine: number };
  /** What the model or person can do next, one line. */
  hint?: string;
  /** The spans replaced, ascending (only when applied). */
  edits?: PatchEdit[];
}

/**
 * Apply one find/replace to `content`.
 *
 * @param content  the file's current text (may have a BOM and CRLF endings; both are kept)
 * @param find     text to locate; `""` only fills a new or empty file
 * @param replace  text to write in its place (LF or CRLF; written with the file's line endings)
 * @param options  `replaceAll` or a 1-based `occurrence` for finds that match several places
 * @returns a `PatchResult`; never throws for a patch that does not apply (that is `applied: false`)
 */
export function applyPatch(content: string, find: string, replace: string, options: PatchOptions = {}): PatchResult {
  const optionError = checkOptions(options);
  if (optionError) return optionError;
  const model = cachedModel(content);
  if (find === '') return fillEmptyFile(model, content, replace);
  const prepared = preparePatch(find.replace(/^\uFEFF/, ''), replace.replace(/^\uFEFF/, ''));
  const outcome = locate(model, prepared);
  // A patch that changes nothing is still located: one whose find is not in the file (or is ambiguous)
  // shows the model is wrong about the file, and is refused as such, not dropped as harmless.
  if (!outcome) return noMatch(model, prepared.core, prepared.rcore);
  if ('refusal' in outcome) {
    return refuse(outcome.refusal.code, outcome.refusal.message, { strategy: outcome.strategy });
  }
  const strategy = outcome.strategy;
  const found = [...outcome.candidates].sort((a, b) => a.start - b.start || a.end - b.end);
  const lines = found.slice(0, 20).map((c) => c.firstLine + 1);
  const counted = { strategy, matchCount: found.length, matchLines: lines };
  const chosen = chooseLocations(found, outcome.truncated, options, counted);
  if (!Array.isArray(chosen)) return chosen;
  if (prepared.find === prepared.replace) {
    return refuse('patch_noop', 'find and replace are the same text; nothing to change', counted);
  }
  const uncertain = chosen.find((c) => c.uncertain !== undefined || c.uncertainLine !== undefined);
  if (uncertain) return uncertainRefusal(uncertain, counted);
  if (chosen.length === 1 && blankEdgeConflict(model, chosen[0]!))
    chosen[0] = widenToBlankRun(model, chosen[0]!) ?? chosen[0]!;
  const edge = chosen.find((c) => blankEdgeConflict(model, c));
  if (edge) {
    return refuse(
      'patch_ambiguous_blank_edge',
      `find starts or ends inside a run of blank lines (line ${edge.firstLine + 1}) and the patch changes how many there are`,
      {
        ...counted,
        hint: 'quote the whole run of blank lines in find, or leave blank lines out of both find and replace',
      },
    );
  }
  const edits = chosen.map((c) => toRawEdit(model, c));
  return {
    applied: true,
    newContent: splice(content, edits),
    strategy,
    startLine: chosen[0]!.firstLine + 1,
    endLine: chosen[0]!.lastLine + 1,
    replacements: chosen.length,
    matchCount: found.length,
    matchLines: lines,
    edits,
  };
}

/** `find: ""`: fill a new or empty file (its BOM kept) with `replace`, or refuse on a non-empty one. */
function fillEmptyFile(model: TextModel, content: string, replace: string): PatchResult {
  if (model.w.length > 0) {
    return refuse('patch_empty_find', 'find is empty but the file is not; quote the text to replace', {
      hint: 'an empty find only creates a new file or fills an empty one',
    });
  }
  const text = model.bom + replace;
  return {
    applied: true,
    newContent: text,
    strategy: 'empty_file',
    startLine: 1,
    endLine: 1,
    replacements: 1,
    edits: [{ start: 0, end: content.length, text }],
  };
}

/**
 * The locations to replace among those the deciding pass found (sorted, document order): all of them
 * with `replaceAll` (when none overlap), the `occurrence`-th, or the only one; else a refusal.
 * `truncated` says the pass stopped counting; `counted` goes into every refusal.
 */
function chooseLocations(
  found: Candidate[],
  truncated: boolean | undefined,
  options: PatchOptions,
  counted: Partial<PatchResult>,
): Candidate[] | PatchResult {
  const where = describeSpans(found);
  const count = truncated ? `more than ${found.length}` : String(found.length);
  if (options.replaceAll) {
    for (let i = 1; i < found.length; i++) {
      if (found[i]!.start < found[i - 1]!.end) {
        return refuse(
          'patch_overlapping_matches',
          `find matches ${count} places that overlap (${where}); replace_all cannot apply`,
          counted,
        );
      }
    }
    return found;
  }
  if (options.occurrence !== undefined) {
    const pick = found[options.occurrence - 1];
    if (!pick) {
      return refuse(
        'patch_occurrence_out_of_range',
        `occurrence ${options.occurrence} asked for, but find matches ${count} place(s) (${where})`,
        counted,
      );
    }
    return [pick];
  }
  if (found.length > 1) {
    return refuse('patch_ambiguous_find', `find matches ${count} places (${where}); nothing was changed`, {
      ...counted,
      hint: 'add surrounding lines to make find unique, or set occurrence (1-based) or replace_all',
    });
  }
  return found;
}

function checkOptions(options: PatchOptions): PatchResult | undefined {
  const { occurrence, replaceAll } = options;
  if (occurrence !== undefined && (!Number.isInteger(occurrence) || occurrence < 1)) {
    return refuse('patch_invalid_options', `occurrence must be a whole number from 1, got ${String(occurrence)}`);
  }
  if (occurrence !== undefined && replaceAll) {
    return refuse('patch_invalid_options', 'occurrence and replace_all cannot both be set');
  }
  return undefined;
}

function noMatch(model: TextModel, core: string, rcore: string): PatchResult {
  const closest = closestRegion(model, core);
  const where = closest ? `; did you mean lines ${closest.startLine}–${closest.endLine}?` : '';
  const already = rcore.trim() !== '' && model.w.includes(rcore);
  return refuse('patch_no_match', `find text not found${where}`, {
    closest,
    hint: already
      ? 'the replace text is already in the file; this patch may have been applied already'
      : 'copy find exactly from the current file, with a few unchanged lines around the change',
  });
}

function refuse(code: PatchErrorCode, error: string, extra: Partial<PatchResult> = {}): PatchResult {
  return { applied: false, code, error, ...extra };
}

/** "lines 3, 9–12, 40" for up to 8 spans (1-based, inclusive), then "…". */
function describeSpans(spans: readonly Candidate[]): string {
  const text = spans
    .slice(0, 8)
    .map((c) => (c.lastLine > c.firstLine ? `${c.firstLine + 1}–${c.lastLine + 1}` : `${c.firstLine + 1}`));
  return `lines ${text.join(', ')}${spans.length > 8 ? ', …' : ''}`;
}

/** Why a located patch cannot be written with certainty, as a refusal. */
function uncertainRefusal(c: Candidate, counted: Partial<PatchResult>): PatchResult {
  const line = c.uncertainLine ?? 1;
  if (c.uncertain === 'literal') {
    return refuse(
      'patch_ambiguous_indent',
      `line ${line} of replace would be re-indented inside a multi-line string, where indentation is content`,
      {
        ...counted,
        hint: 'copy find with the exact indentation of the file',
      },
    );
  }
  if (c.uncertain === 'spacing') {
    return refuse(
      'patch_ambiguous_spacing',
      `line ${line} of replace keeps a line whose spacing inside differs from the file's; which spacing is meant is unknown`,
      { ...counted, hint: 'copy find exactly from the file, spaces inside lines included' },
    );
  }
  if (c.uncertain === 'blank') {
    return refuse(
      'patch_ambiguous_blank_edge',
      `find leaves out blank lines of the file next to line ${line} of replace, and replace does not say what becomes of them`,
      {
        ...counted,
        hint: 'quote the blank lines in find as they are in the file',
      },
    );
  }
  return refuse('patch_ambiguous_indent', `cannot tell how line ${line} of replace is indented in this file's style`, {
    ...counted,
    hint: "write find and replace with the file's own indentation",
  });
}

// One-entry cache: a plan's patches and a benchmark's cases hit the same content many times in a row,
// and building line keys is the costly part of a match.
let lastModel: TextModel | undefined;
function cachedModel(content: string): TextModel {
  if (lastModel?.raw !== content) lastModel = makeTextModel(content);
  return lastModel;
}
