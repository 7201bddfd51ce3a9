/**
 * The matcher cascade of the patch engine: passes from strict to loose, each returning every location where
 * the `find` text fits, with the replacement text already adjusted for that location. The caller stops at
 * the first pass that finds anything and counts locations (Gemini CLI counts at every tier, Aider re-indents,
 * Codex folds punctuation). Line passes return where each find line landed; the replacement is then rendered
 * under the invariant of utils/patch/render.ts.
 */
import { locateElision } from './elision.js';
import { withDroppedBreaks } from './edges.js';
import { LINE_PASSES } from './line-passes.js';
import { renderCandidate } from './render.js';
import { inlineSubstring, substringCandidates, trimmedWhole } from './substring.js';
import { tokenStream } from './tokens.js';
import { ESCAPE, stripFences, stripLineNumbers, unescapedReplace, unescapeQuotes, unescapeText } from './views.js';
import { nonWsLength, SHORT_FIND_CHARS, type Candidate, type TextModel } from './text.js';

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
    return (
      trimmedWhole(model, patch.core, patch.rcore, true) ??
      whole ??
      (around ? wholeLineFolded(model, findLines, replLines) : undefined) ??
      locateElision(model, findLines, replLines)
    );
  }
  for (const [p, pass] of LINE_PASSES.entries()) {
    if (pass.eligible && !pass.eligible(findLines)) continue;
    const { found, stringMoved } = passCandidates(pass, model, findLines, replLines);
    if (found.length === 0) continue;
    // String lines quoted at other indentation: a rewrite of a string's whitespace can make it read like
    // another of its copies, so a place the next (looser) pass finds is as likely; several are ambiguous.
    const looser = LINE_PASSES[p + 1];
    if (stringMoved && looser && (!looser.eligible || looser.eligible(findLines))) {
      const taken = new Set(found.map((c) => c.firstLine));
      found.push(...passCandidates(looser, model, findLines, replLines, taken).found);
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

/**
 * A short one-line find written as a whole line (blank edges or its line break said where the line starts
 * or ends): a file line equal to it once trailing whitespace is dropped and typographic quotes and dashes
 * are folded, indentation and everything else as written. Nothing relaxed finds such a line elsewhere.
 */
function wholeLineFolded(
  model: TextModel,
  findLines: readonly string[],
  replLines: readonly string[],
): PassOutcome | undefined {
  for (const pass of LINE_PASSES.slice(0, 2)) {
    const { found } = passCandidates(pass, model, findLines, replLines);
    if (found.length > 0) return { strategy: pass.strategy, candidates: found };
  }
  return undefined;
}

/**
 * The places one line pass finds, rendered, skipping start lines in `skip`; `stringMoved` when a match
 * moved string lines to another indentation.
 */
function passCandidates(
  pass: (typeof LINE_PASSES)[number],
  model: TextModel,
  findLines: readonly string[],
  replLines: readonly string[],
  skip?: ReadonlySet<number>,
): { found: Candidate[]; stringMoved: boolean } {
  const found: Candidate[] = [];
  let stringMoved = false;
  for (const i of pass.starts(model, findLines)) {
    if (skip?.has(i)) continue;
    const m = pass.match(model, findLines, replLines, i);
    if (m) found.push(renderCandidate(model, findLines, replLines, m));
    stringMoved ||= m?.stringMoved === true;
  }
  return { found, stringMoved };
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
}
