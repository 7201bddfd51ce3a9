/**
 * The matcher cascade of the patch engine: passes from strict to loose, each returning every location where
 * the `find` text fits, with the replacement text already adjusted for that location. The caller stops at
 * the first pass that finds anything and counts locations (research edit-matching.md §6.3–§6.4; Gemini CLI
 * counts at every tier, Aider re-indents, Codex folds punctuation).
 */
import { diffArrays } from 'diff';
import { buildIndentMap, reindentLine, type IndentMap } from './patch-indent.js';
import { locateElision } from './patch-elision.js';
import {
  contentKey,
  foldedKey,
  indentOf,
  lineAt,
  lineKeys,
  nonWsLength,
  rstrip,
  spanCandidate,
  type Candidate,
  type TextModel,
} from './patch-text.js';

export type { Candidate } from './patch-text.js';

/**
 * Name of the pass that located a patch, strict to loose:
 * - `exact`: the find text as given.
 * - `trimmed_blank_edges`: blank lines at the start/end of find (and as many of replace) dropped.
 * - `trailing_whitespace`: whole lines equal once trailing spaces, tabs and `\r` are ignored.
 * - `unicode_folded`: also curly quotes, dashes and odd spaces folded to ASCII.
 * - `indent_relative`: the block is uniformly shifted (or tabs vs spaces); the replacement is re-indented.
 * - `trimmed_lines`: each line equal once trimmed; the replacement is re-indented.
 * - `blank_lines_ignored`: the non-blank lines equal once trimmed, blank lines between them ignored.
 * - `elision`: find holds `...` lines; the parts around them anchor both ends of the span.
 * - `empty_file`: `find` was `""` and the file was new or empty.
 */
export type MatchStrategy =
  | 'exact'
  | 'trimmed_blank_edges'
  | 'trailing_whitespace'
  | 'unicode_folded'
  | 'indent_relative'
  | 'trimmed_lines'
  | 'blank_lines_ignored'
  | 'elision'
  | 'empty_file';

/** What a pass found: its locations, or a refusal that must stop the cascade. */
export type PassOutcome =
  | { strategy: MatchStrategy; candidates: Candidate[]; /** More locations exist than were listed. */ truncated?: boolean }
  | { strategy: MatchStrategy; refusal: { code: 'patch_elision_unanchored' | 'patch_elision_unpaired'; message: string } };

/** Fewer non-whitespace characters than this and only the exact passes run (Gemini CLI and Aider use 10). */
export const SHORT_FIND_CHARS = 10;
/** Per-line trimming needs 2 non-blank lines or this many non-whitespace characters (research §6.3 P6). */
const TRIM_PASS_MIN_CHARS = 20;

/** The find and replace texts cut down to what the line passes compare. */
export interface PreparedPatch {
  /** find and replace with `\r\n` → `\n`. */
  find: string;
  replace: string;
  /** find without blank lines at its edges; replace trimmed symmetrically. */
  core: string;
  rcore: string;
  /** Whether blank lines were dropped at the start / end of find. */
  leadTrimmed: boolean;
  trailTrimmed: boolean;
}

/** Normalise line endings and cut blank edge lines off find (and as many off replace). */
export function preparePatch(find: string, replace: string): PreparedPatch {
  const f = find.replace(/\r\n/g, '\n');
  const r = replace.replace(/\r\n/g, '\n');
  const lead = /^(?:[ \t]*\n)+/.exec(f)?.[0] ?? '';
  const trail = /(?:\n[ \t]*)+$/.exec(f.slice(lead.length))?.[0] ?? '';
  const core = f.slice(lead.length, f.length - trail.length);
  let rcore = r;
  for (let k = countNewlines(lead); k > 0; k--) {
    const m = /^[ \t]*\n/.exec(rcore);
    if (!m) break;
    rcore = rcore.slice(m[0].length);
  }
  for (let k = countNewlines(trail); k > 0; k--) {
    const m = /\n[ \t]*$/.exec(rcore);
    if (!m) break;
    rcore = rcore.slice(0, rcore.length - m[0].length);
  }
  return { find: f, replace: r, core, rcore, leadTrimmed: lead.length > 0, trailTrimmed: trail.length > 0 };
}

/**
 * Run the cascade and return the first pass that found at least one location (or refused), or
 * `undefined` when nothing matched. Never looks at a looser pass once a stricter one found something.
 */
export function locate(model: TextModel, patch: PreparedPatch): PassOutcome | undefined {
  const exact = substringCandidates(model, patch.find, patch.replace, false, false);
  if (exact.length > 0) return { strategy: 'exact', candidates: exact };
  if ((patch.leadTrimmed || patch.trailTrimmed) && patch.core.trim() !== '') {
    const trimmed = substringCandidates(model, patch.core, patch.rcore, patch.leadTrimmed, patch.trailTrimmed);
    if (trimmed.length > 0) return { strategy: 'trimmed_blank_edges', candidates: trimmed };
  }
  const findLines = patch.core.split('\n');
  const replLines = patch.rcore === '' ? [] : patch.rcore.split('\n');
  // Short finds match exactly or not at all; elision has its own anchoring rules.
  if (nonWsLength(patch.core) < SHORT_FIND_CHARS) return locateElision(model, findLines, replLines);
  const verbatim = (first: number, last: number): Candidate => spanCandidate(model, first, last, patch.rcore);
  for (const pass of LINE_PASSES) {
    if (pass.eligible && !pass.eligible(findLines)) continue;
    const found: Candidate[] = [];
    for (const i of startLines(model, findLines)) {
      const c = pass.match(model, findLines, replLines, i, verbatim);
      if (c) found.push(c);
    }
    if (found.length > 0) return { strategy: pass.strategy, candidates: found };
  }
  return locateElision(model, findLines, replLines);
}

interface LinePass {
  strategy: MatchStrategy;
  eligible?: (findLines: readonly string[]) => boolean;
  match: (
    model: TextModel,
    findLines: readonly string[],
    replLines: readonly string[],
    start: number,
    verbatim: (first: number, last: number) => Candidate,
  ) => Candidate | undefined;
}

const LINE_PASSES: readonly LinePass[] = [
  {
    strategy: 'trailing_whitespace',
    match: (model, fl, _rl, i, verbatim) => {
      const keys = lineKeys(model).rstrip;
      if (i + fl.length > keys.length) return undefined;
      for (let j = 0; j < fl.length; j++) if (keys[i + j] !== rstrip(fl[j]!)) return undefined;
      return verbatim(i, i + fl.length - 1);
    },
  },
  {
    strategy: 'unicode_folded',
    match: (model, fl, rl, i) => {
      const keys = lineKeys(model).folded;
      if (i + fl.length > keys.length) return undefined;
      for (let j = 0; j < fl.length; j++) if (keys[i + j] !== foldedKey(fl[j]!)) return undefined;
      return spanCandidate(model, i, i + fl.length - 1, keepFileSpelling(model, i, fl, rl));
    },
  },
  {
    strategy: 'indent_relative',
    match: (model, fl, rl, i) => reindented(model, fl, rl, i, true),
  },
  {
    strategy: 'trimmed_lines',
    eligible: (fl) => fl.filter((l) => l.trim() !== '').length >= 2 || nonWsLength(fl.join('')) >= TRIM_PASS_MIN_CHARS,
    match: (model, fl, rl, i) => reindented(model, fl, rl, i, false),
  },
  {
    strategy: 'blank_lines_ignored',
    eligible: (fl) => fl.filter((l) => l.trim() !== '').length >= 2,
    match: (model, fl, rl, i) => blankTolerant(model, fl, rl, i),
  },
];

/**
 * The replacement, with every line it keeps from find (equal once folded) written as the file spells it:
 * the file's curly quotes, dashes and odd spaces survive on lines the patch does not change (Claude Code
 * "preserve quote style"; research §6.3 P4). Lines are paired by a line diff of find and replace.
 */
function keepFileSpelling(model: TextModel, first: number, fl: readonly string[], rl: readonly string[]): string {
  const out: string[] = [];
  let f = 0;
  let r = 0;
  for (const part of diffArrays(fl.map(foldedKey), rl.map(foldedKey))) {
    const n = part.count ?? part.value.length;
    if (part.added) {
      out.push(...rl.slice(r, r + n));
      r += n;
    } else if (part.removed) {
      f += n;
    } else {
      for (let k = 0; k < n; k++) out.push(model.lines[first + f + k]!);
      f += n;
      r += n;
    }
  }
  return out.join('\n');
}

/** Lines where the first line of find could start: same content key (a superset for every line pass). */
function startLines(model: TextModel, findLines: readonly string[]): readonly number[] {
  return lineKeys(model).byContent.get(contentKey(findLines[0]!)) ?? [];
}

/** Same-length line window with equal content; indentation mapped strictly (P5) or loosely (P6). */
function reindented(
  model: TextModel,
  fl: readonly string[],
  rl: readonly string[],
  i: number,
  strict: boolean,
): Candidate | undefined {
  const keys = lineKeys(model);
  if (i + fl.length > keys.content.length) return undefined;
  const pairs: [string, string][] = [];
  for (let j = 0; j < fl.length; j++) {
    if (keys.content[i + j] !== contentKey(fl[j]!)) return undefined;
    if (keys.content[i + j] !== '') pairs.push([indentOf(fl[j]!), keys.indent[i + j]!]);
  }
  const map = buildIndentMap(model, pairs, rl.map(indentOf), strict);
  if (!map) return undefined;
  return reindentedCandidate(model, i, i + fl.length - 1, rl, map);
}

/** A span whose replacement is re-indented line by line; marks the first line that had no certain indent. */
function reindentedCandidate(model: TextModel, first: number, last: number, rl: readonly string[], map: IndentMap): Candidate {
  let uncertainLine: number | undefined;
  const lines = rl.map((l, j) => {
    const out = reindentLine(map, l);
    if (out === undefined) uncertainLine ??= j + 1;
    return out ?? l;
  });
  const c = spanCandidate(model, first, last, lines.join('\n'));
  return uncertainLine === undefined ? c : { ...c, uncertainLine };
}

/** Non-blank lines equal in order, any blank lines between them in the file or in find. */
function blankTolerant(model: TextModel, fl: readonly string[], rl: readonly string[], i: number): Candidate | undefined {
  const keys = lineKeys(model);
  const pairs: [string, string][] = [];
  let k = i;
  let last = i;
  for (const line of fl) {
    const key = contentKey(line);
    if (key === '') continue;
    while (k < keys.content.length && keys.content[k] === '') k++;
    if (k >= keys.content.length || keys.content[k] !== key) return undefined;
    pairs.push([indentOf(line), keys.indent[k]!]);
    last = k;
    k++;
  }
  const map = buildIndentMap(model, pairs, rl.map(indentOf), false);
  if (!map) return undefined;
  return reindentedCandidate(model, i, last, rl, map);
}

/**
 * Every occurrence of `needle` in the working text, overlapping ones included (they are distinct locations).
 * `atLineStart` / `atLineEnd` demand that the occurrence starts / ends at a line boundary (used after blank
 * edge lines were trimmed, which said the text began or ended a line).
 */
function substringCandidates(
  model: TextModel,
  needle: string,
  text: string,
  atLineStart: boolean,
  atLineEnd: boolean,
): Candidate[] {
  const w = model.w;
  const out: Candidate[] = [];
  if (needle === '') return out;
  for (let at = w.indexOf(needle); at !== -1; at = w.indexOf(needle, at + 1)) {
    const end = at + needle.length;
    if (atLineStart && at > 0 && w[at - 1] !== '\n') continue;
    if (atLineEnd && end < w.length && w[end] !== '\n') continue;
    out.push({ start: at, end, firstLine: lineAt(model, at), lastLine: lineAt(model, Math.max(at, end - 1)), text });
  }
  return out;
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
}
