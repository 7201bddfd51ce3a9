/**
 * The matcher cascade of the patch engine: passes from strict to loose, each returning every location where
 * the `find` text fits, with the replacement text already adjusted for that location. The caller stops at
 * the first pass that finds anything and counts locations (Gemini CLI counts at every tier, Aider re-indents,
 * Codex folds punctuation). Line passes return where each find line landed; the replacement is then rendered
 * under the invariant of utils/patch/render.ts.
 */
import { buildIndentMap, stringShiftFits } from './indent.js';
import { locateElision } from './elision.js';
import { renderCandidate, type LineMatch } from './render.js';
import { inlineSubstring, linesWithWord, substringCandidates, trimmedWhole } from './substring.js';
import { tokenStream } from './tokens.js';
import { fileLiterals } from './literal.js';
import { withDroppedBreaks } from './edges.js';
import { ESCAPE, stripFences, stripLineNumbers, unescapedReplace, unescapeQuotes, unescapeText } from './views.js';
import {
  contentKey,
  foldedKey,
  indentOf,
  lineKeys,
  nonWsLength,
  rstrip,
  SHORT_FIND_CHARS,
  squashKey,
  type Candidate,
  type TextModel,
} from './text.js';

export type { Candidate } from './text.js';

/**
 * Name of the pass that located a patch, strict to loose:
 * - `exact`: the find text as given.
 * - `trimmed_blank_edges`: blank lines at the start/end of find (and as many of replace) dropped.
 * - `trimmed_whole`: spaces or tabs around the whole find (and the same around replace) dropped.
 * - `trailing_whitespace`: whole lines equal once trailing spaces, tabs and `\r` are ignored.
 * - `unicode_folded`: also curly quotes, dashes and odd spaces folded to ASCII.
 * - `indent_relative`: the block is uniformly shifted (or tabs vs spaces); the replacement is re-indented.
 * - `trimmed_lines`: each line equal once trimmed; the replacement is re-indented.
 * - `blank_lines_ignored`: the non-blank lines equal once trimmed, blank lines between them ignored.
 * - `inline_whitespace`: whitespace inside lines differs where it cannot change meaning (`a=b` vs `a = b`,
 *   tabs vs spaces between tokens).
 * - `line_numbers`: every find line carried a line-number prefix copied from a numbered view; stripped.
 * - `fences_stripped`: find (and replace) had markdown fence lines (```` ``` ````) at its edges; stripped.
 * - `unescaped`: find (and replace) were written with escaped newlines, tabs, quotes or backslashes; unescaped.
 * - `token_stream`: find's tokens in order with whitespace that cannot change meaning ignored, across lines.
 * - `elision`: find holds `...` lines; the parts around them anchor both ends of the span.
 * - `empty_file`: `find` was `""` and the file was new or empty.
 */
export type MatchStrategy =
  | 'exact'
  | 'trimmed_blank_edges'
  | 'trimmed_whole'
  | 'trailing_whitespace'
  | 'unicode_folded'
  | 'indent_relative'
  | 'trimmed_lines'
  | 'blank_lines_ignored'
  | 'inline_whitespace'
  | 'line_numbers'
  | 'fences_stripped'
  | 'unescaped'
  | 'token_stream'
  | 'elision'
  | 'empty_file';

/** What a pass found: its locations, or a refusal that must stop the cascade. */
export type PassOutcome =
  | {
      strategy: MatchStrategy;
      candidates: Candidate[];
      /** More locations exist than were listed. */ truncated?: boolean;
    }
  | {
      strategy: MatchStrategy;
      refusal: { code: 'patch_elision_unanchored' | 'patch_elision_unpaired'; message: string };
    };

export { SHORT_FIND_CHARS } from './text.js';
/** Per-line trimming needs 2 non-blank lines or this many non-whitespace characters (a shorter single line is too easily found by trimming). */
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
  /** Line breaks at the start / end of find, and how many of them replace does not write again. */
  leadBreaks: number;
  leadDropped: number;
  trailBreaks: number;
  trailDropped: number;
}

/** Normalise line endings and cut blank edge lines off find (and as many off replace). */
export function preparePatch(find: string, replace: string): PreparedPatch {
  const f = find.replace(/\r\n/g, '\n');
  const r = replace.replace(/\r\n/g, '\n');
  const lead = /^(?:[ \t]*\n)+/.exec(f)?.[0] ?? '';
  const trail = /(?:\n[ \t]*)+$/.exec(f.slice(lead.length))?.[0] ?? '';
  const core = f.slice(lead.length, f.length - trail.length);
  let rcore = r;
  const [leadBreaks, trailBreaks] = [countNewlines(lead), countNewlines(trail)];
  let leadDropped = leadBreaks;
  for (; leadDropped > 0; leadDropped--) {
    const m = /^[ \t]*\n/.exec(rcore);
    if (!m) break;
    rcore = rcore.slice(m[0].length);
  }
  let trailDropped = trailBreaks;
  for (; trailDropped > 0; trailDropped--) {
    const m = /\n[ \t]*$/.exec(rcore);
    if (!m) break;
    rcore = rcore.slice(0, rcore.length - m[0].length);
  }
  return {
    find: f,
    replace: r,
    core,
    rcore,
    leadTrimmed: lead.length > 0,
    trailTrimmed: trail.length > 0,
    leadBreaks,
    leadDropped,
    trailBreaks,
    trailDropped,
  };
}

/**
 * Run the cascade and return the first pass that found at least one location (or refused), or
 * `undefined` when nothing matched. Never looks at a looser pass once a stricter one found something.
 * When nothing matched and every line of find carries a line-number prefix copied from a numbered view,
 * the cascade runs once more on find (and replace) without the prefixes; else, when find holds escapes
 * (`\\n`, `\\"`), once more on find unescaped (see `locateUnescaped`).
 */
export function locate(model: TextModel, patch: PreparedPatch): PassOutcome | undefined {
  const found = locatePrepared(model, patch);
  if (found) return found;
  const stripped = stripLineNumbers(patch.find, patch.replace);
  if (stripped) {
    // A numbered view quotes whole lines: with an empty replace, the lines go with their line ending.
    const whole =
      patch.replace === '' && !stripped.find.endsWith('\n')
        ? locatePrepared(model, preparePatch(`${stripped.find}\n`, ''))
        : undefined;
    const again = whole ?? locatePrepared(model, preparePatch(stripped.find, stripped.replace));
    if (!again || 'refusal' in again) return again;
    return { ...again, strategy: 'line_numbers' };
  }
  const fenced = stripFences(patch.find, patch.replace);
  if (fenced) {
    const again = locatePrepared(model, preparePatch(fenced.find, fenced.replace));
    if (again) return 'refusal' in again ? again : { ...again, strategy: 'fences_stripped' };
  }
  return locateUnescaped(model, patch);
}

/**
 * Find written with its newlines, tabs, quotes and backslashes escaped (`\\n`, `\\"`, `\\\\`), as a model
 * does when it double-encodes JSON: when the find as given matches nowhere, the cascade runs once more on
 * find unescaped, and replace as `unescapedReplace` reads it. Only when find has such an escape and its
 * unescaped form differs; a refusal of that run (ambiguous, say) is the outcome.
 */
function locateUnescaped(model: TextModel, patch: PreparedPatch): PassOutcome | undefined {
  if (!ESCAPE.test(patch.find)) return undefined;
  const find = unescapeText(patch.find);
  if (find === patch.find || find.trim() === '') return undefined;
  const replace = unescapedReplace(patch.find, patch.replace);
  if (replace === undefined) return locateQuotes(model, patch);
  const again = locatePrepared(model, preparePatch(find, replace));
  if (again) return 'refusal' in again ? again : { ...again, strategy: 'unescaped' };
  return locateQuotes(model, patch);
}

/** Find with its quote escapes read, the other escapes being code (`'it\\'s' + "\\n"`); see `unescapeQuotes`. */
function locateQuotes(model: TextModel, patch: PreparedPatch): PassOutcome | undefined {
  const quotes = unescapeQuotes(patch.find, patch.replace);
  const again = quotes && locatePrepared(model, preparePatch(quotes.find, quotes.replace));
  if (!again || 'refusal' in again) return again;
  return { ...again, strategy: 'unescaped' };
}

function locatePrepared(model: TextModel, patch: PreparedPatch): PassOutcome | undefined {
  const exact = substringCandidates(model, patch.find, patch.replace, false, false);
  if (exact.length > 0) return { strategy: 'exact', candidates: exact };
  const found = locateRelaxed(model, patch);
  return found && withDroppedBreaks(model, found, patch);
}

/** The relaxed passes, on find without its blank edges (see `withDroppedBreaks` for what they dropped). */
function locateRelaxed(model: TextModel, patch: PreparedPatch): PassOutcome | undefined {
  if ((patch.leadTrimmed || patch.trailTrimmed) && patch.core.trim() !== '') {
    const trimmed = substringCandidates(model, patch.core, patch.rcore, patch.leadTrimmed, patch.trailTrimmed);
    if (trimmed.length > 0) return { strategy: 'trimmed_blank_edges', candidates: trimmed };
  }
  const findLines = patch.core.split('\n');
  const replLines = patch.rcore === '' ? [] : patch.rcore.split('\n');
  // A short one-line find matches exactly or not at all (too easily found elsewhere once relaxed); a short
  // find of several lines may still be located by whole lines. Elision has its own anchoring rules.
  const short = nonWsLength(patch.core) < SHORT_FIND_CHARS;
  if (short && findLines.filter((l) => l.trim() !== '').length < 2) {
    // Short: whitespace drift inside a whole line, or whitespace around the whole find, not both.
    const around = patch.leadTrimmed || patch.trailTrimmed || patch.core.trim() !== patch.core;
    const whole = around ? undefined : inlineSubstring(model, patch.core, patch.rcore, true);
    return trimmedWhole(model, patch.core, patch.rcore, true) ?? whole ?? locateElision(model, findLines, replLines);
  }
  for (const [p, pass] of LINE_PASSES.entries()) {
    if (pass.eligible && !pass.eligible(findLines)) continue;
    const found: Candidate[] = [];
    let stringMoved = false;
    for (const i of pass.starts(model, findLines)) {
      const m = pass.match(model, findLines, replLines, i);
      if (m) found.push(renderCandidate(model, findLines, replLines, m));
      stringMoved ||= m?.stringMoved === true;
    }
    if (found.length === 0) continue;
    // String lines quoted at other indentation: a rewrite of a string's whitespace can make it read like
    // another of its copies, so a place the next (looser) pass finds is as likely; several are ambiguous.
    const looser = LINE_PASSES[p + 1];
    if (stringMoved && looser && (!looser.eligible || looser.eligible(findLines))) {
      for (const i of looser.starts(model, findLines)) {
        if (found.some((c) => c.firstLine === i)) continue;
        const m = looser.match(model, findLines, replLines, i);
        if (m) found.push(renderCandidate(model, findLines, replLines, m));
      }
    }
    return { strategy: pass.strategy, candidates: found };
  }
  if (short) return trimmedWhole(model, patch.core, patch.rcore, true) ?? locateElision(model, findLines, replLines);
  const whole = trimmedWhole(model, patch.core, patch.rcore);
  if (whole) return whole;
  // Blank edge lines said find begins or ends a line: a substring anywhere inside a line is not that.
  const inline = patch.leadTrimmed || patch.trailTrimmed ? undefined : inlineSubstring(model, patch.core, patch.rcore);
  if (inline) return inline;
  const stream = patch.leadTrimmed || patch.trailTrimmed ? undefined : tokenStream(model, patch.core, patch.rcore);
  if (stream) return stream;
  return locateElision(model, findLines, replLines);
}

interface LinePass {
  strategy: MatchStrategy;
  eligible?: (findLines: readonly string[]) => boolean;
  /** Lines where find's first line could start. */
  starts: (model: TextModel, findLines: readonly string[]) => readonly number[];
  match: (
    model: TextModel,
    findLines: readonly string[],
    replLines: readonly string[],
    start: number,
  ) => LineMatch | undefined;
}

/** A window of consecutive lines whose keys equal find's keys, mapped one to one. */
function windowMatch(keys: readonly string[], want: readonly string[], i: number): LineMatch | undefined {
  if (i + want.length > keys.length) return undefined;
  for (let j = 0; j < want.length; j++) if (keys[i + j] !== want[j]) return undefined;
  return { first: i, last: i + want.length - 1, map: want.map((_, j) => i + j) };
}

const byContentStart = (model: TextModel, fl: readonly string[]): readonly number[] => startLines(model, fl);

const LINE_PASSES: readonly LinePass[] = [
  {
    strategy: 'trailing_whitespace',
    starts: byContentStart,
    match: (model, fl, _rl, i) => windowMatch(lineKeys(model).rstrip, fl.map(rstrip), i),
  },
  {
    strategy: 'unicode_folded',
    starts: byContentStart,
    match: (model, fl, _rl, i) => windowMatch(lineKeys(model).folded, fl.map(foldedKey), i),
  },
  {
    strategy: 'indent_relative',
    starts: byContentStart,
    match: (model, fl, rl, i) => reindented(model, fl, rl, i, true),
  },
  {
    strategy: 'trimmed_lines',
    starts: byContentStart,
    eligible: (fl) => fl.filter((l) => l.trim() !== '').length >= 2 || nonWsLength(fl.join('')) >= TRIM_PASS_MIN_CHARS,
    match: (model, fl, rl, i) => reindented(model, fl, rl, i, false),
  },
  {
    strategy: 'blank_lines_ignored',
    starts: byContentStart,
    eligible: (fl) => fl.filter((l) => l.trim() !== '').length >= 2,
    match: (model, fl, rl, i) => blankTolerant(model, fl, rl, i),
  },
  {
    strategy: 'inline_whitespace',
    starts: (model, fl) => linesWithWord(model, fl[0]!).filter((i) => squashKey(model.lines[i]!) === squashKey(fl[0]!)),
    eligible: (fl) => fl.length >= 2,
    match: (model, fl, rl, i) => {
      const keys = lineKeys(model);
      if (i + fl.length > model.lines.length) return undefined;
      const window = model.lines.slice(i, i + fl.length).map(squashKey);
      const m = windowMatch(window, fl.map(squashKey), 0);
      if (m) Object.assign(m, { first: i, last: i + fl.length - 1, map: fl.map((_, j) => i + j) });
      if (!m) return undefined;
      const seen = fl.flatMap((l, j): [string, string, number][] =>
        l.trim() === '' ? [] : [[indentOf(l), keys.indent[i + j]!, i + j]],
      );
      const pairs = codePairs(model, seen);
      if (!pairs) return undefined;
      const indent = buildIndentMap(model, pairs, rl.map(indentOf), false);
      // Wide or tab runs inside lines that differ from the file's: new lines may carry the same drift.
      const drift = fl.some(
        (l, j) =>
          l.trim() !== model.lines[i + j]!.trim() && WIDE_RUN.test(`${l.trim()}\n${model.lines[i + j]!.trim()}`),
      );
      if (!indent) return undefined;
      const unsureFrame = identity(seen) ? undefined : (frameUnsure(pairs, rl) ?? inFileFrame(model, fl, rl, m.map));
      return { ...m, indent: identity(seen) ? undefined : indent, inlineDrift: drift, inlinePass: true, unsureFrame };
    },
  },
];

/** Lines where the first line of find could start: same content key (a superset for the trim passes). */
function startLines(model: TextModel, findLines: readonly string[]): readonly number[] {
  return lineKeys(model).byContent.get(contentKey(findLines[0]!)) ?? [];
}

/**
 * The (find indent, file indent) pairs the code's indentation relation is learned from: those of lines that
 * begin in code (a string's lines keep their own indentation, which need not follow the code's), or all of
 * them when every matched line begins inside a string. Takes (find indent, file indent, file line) triples.
 */
function codePairs(
  model: TextModel,
  seen: readonly (readonly [string, string, number])[],
): [string, string][] | undefined {
  // Lines the find quotes at the file's own indentation say the same in code and in strings.
  if (seen.every(([f, g]) => f === g)) return seen.map(([f, g]) => [f, g]);
  const literal = fileLiterals(model);
  const code = seen.filter(([, , at]) => !literal[at]);
  // A string's lines are its content: quoted at other indentation, they must differ by one added or removed
  // prefix, or one tab width, throughout (else they are other text, however alike once trimmed).
  if (!stringShiftFits(seen.filter(([, , at]) => literal[at]))) return undefined;
  return (code.length > 0 ? code : seen).map(([f, g]) => [f, g]);
}

function identity(pairs: readonly (readonly [string, string, ...unknown[]])[]): boolean {
  return pairs.every(([f, g]) => f === g);
}

/** Same-length line window with equal content; indentation mapped strictly (P5) or loosely (P6). */
function reindented(
  model: TextModel,
  fl: readonly string[],
  rl: readonly string[],
  i: number,
  strict: boolean,
): LineMatch | undefined {
  const keys = lineKeys(model);
  if (i + fl.length > keys.content.length) return undefined;
  const seen: [string, string, number][] = [];
  for (let j = 0; j < fl.length; j++) {
    if (keys.content[i + j] !== contentKey(fl[j]!)) return undefined;
    if (keys.content[i + j] !== '') seen.push([indentOf(fl[j]!), keys.indent[i + j]!, i + j]);
  }
  const pairs = codePairs(model, seen);
  if (!pairs) return undefined;
  const stringMoved = !identity(seen) && seen.some(([f, g, at]) => f !== g && fileLiterals(model)[at]);
  const indent = buildIndentMap(model, pairs, rl.map(indentOf), strict);
  if (!indent) return undefined;
  return {
    first: i,
    last: i + fl.length - 1,
    map: fl.map((_, j) => i + j),
    stringMoved,
    indent: identity(seen) ? undefined : indent,
    unsureFrame: identity(seen)
      ? undefined
      : (frameUnsure(pairs, rl) ??
        inFileFrame(
          model,
          fl,
          rl,
          fl.map((_, j) => i + j),
        )),
  };
}

/**
 * Replace's first non-blank line written exactly as the first matched file line, whose find counterpart is
 * indented otherwise (and whose indentation the relation would move): replace was written in the file's
 * frame, not find's, so moving its new lines by the find → file relation would indent them twice. Returns
 * that 1-based replace line, or undefined.
 */
function inFileFrame(
  model: TextModel,
  fl: readonly string[],
  rl: readonly string[],
  map: readonly number[],
): number | undefined {
  const j = fl.findIndex((l, n) => l.trim() !== '' && map[n]! >= 0);
  const k = rl.findIndex((l) => l.trim() !== '');
  if (j < 0 || k < 0) return undefined;
  const line = model.lines[map[j]!]!;
  if (rl[k] !== line || indentOf(line) === indentOf(fl[j]!)) return undefined;
  const pairs: [string, string][] = [];
  map.forEach((at, n) => {
    if (at >= 0 && fl[n]!.trim() !== '') pairs.push([indentOf(fl[n]!), indentOf(model.lines[at]!)]);
  });
  return staysPut(pairs, indentOf(line)) ? undefined : k + 1;
}

/**
 * A find of one non-blank line that sits at another indentation in the file says nothing about which frame
 * replace was written in: when replace's first non-blank line (the counterpart of find's line) is indented
 * like the file's line and not like find's, replace may already be in the file's frame, and moving it by the
 * find → file shift would indent it twice. Returns that 1-based replace line, or undefined. `pairs`: (find
 * indentation, file indentation) of find's non-blank lines.
 */
function frameUnsure(pairs: readonly (readonly [string, string])[], rl: readonly string[]): number | undefined {
  if (pairs.length !== 1 || pairs[0]![0] === pairs[0]![1]) return undefined;
  const [findIndent, fileIndent] = pairs[0]!;
  const k = rl.findIndex((l) => l.trim() !== '');
  if (k < 0 || indentOf(rl[k]!) !== fileIndent || fileIndent === findIndent) return undefined;
  return staysPut(pairs, fileIndent) ? undefined : k + 1;
}

/** Whether the relation keeps indentation `indent` as it is (a pair maps it to itself): moving cannot harm. */
function staysPut(pairs: readonly (readonly [string, string])[], indent: string): boolean {
  return pairs.some(([f, g]) => f === indent && g === indent);
}

/**
 * Non-blank lines equal in order, any blank lines between them in the file or in find. Blank file lines the
 * find left out are put back into the find the renderer sees (they may be kept, never removed).
 */
function blankTolerant(
  model: TextModel,
  fl: readonly string[],
  rl: readonly string[],
  i: number,
): LineMatch | undefined {
  const keys = lineKeys(model);
  const seen: [string, string, number][] = [];
  const lines: string[] = [];
  const map: number[] = [];
  const fileOnly = new Set<number>();
  let k = i;
  for (const line of fl) {
    const key = contentKey(line);
    if (key === '') {
      // A blank find line stands for a blank file line right here, or for nothing.
      if (k < keys.content.length && keys.content[k] === '' && k > i) {
        lines.push(line);
        map.push(k++);
      } else {
        lines.push(line);
        map.push(-1);
      }
      continue;
    }
    while (k < keys.content.length && keys.content[k] === '') {
      fileOnly.add(lines.length);
      lines.push(model.lines[k]!);
      map.push(k++);
    }
    if (k >= keys.content.length || keys.content[k] !== key) return undefined;
    seen.push([indentOf(line), keys.indent[k]!, k]);
    lines.push(line);
    map.push(k++);
  }
  const pairs = codePairs(model, seen);
  if (!pairs) return undefined;
  const indent = buildIndentMap(model, pairs, rl.map(indentOf), false);
  if (!indent) return undefined;
  const unsureFrame = identity(seen) ? undefined : (frameUnsure(pairs, rl) ?? inFileFrame(model, lines, rl, map));
  return { first: i, last: k - 1, map, lines, fileOnly, indent: identity(seen) ? undefined : indent, unsureFrame };
}

const WIDE_RUN = /\S(?:\t| {2,})\S/;

function countNewlines(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
}
