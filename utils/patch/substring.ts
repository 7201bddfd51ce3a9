/**
 * The substring passes of the matcher cascade (utils/patch/match.ts): the find text as given or with its
 * blank edges trimmed, the find without whitespace around it as a whole, and a one-line find inside a line
 * with insignificant whitespace ignored.
 */
import { foldUnicode, lineAt, lineKeys, type Candidate, type TextModel } from './text.js';
import type { PassOutcome } from './match.js';

/**
 * Every occurrence of `needle` in the working text, overlapping ones included (they are distinct locations).
 * `atLineStart` / `atLineEnd` demand that the occurrence starts / ends at a line boundary (used after blank
 * edge lines were trimmed, which said the text began or ended a line).
 *
 * @returns candidates in document order, each replaced by `text`
 */
export function substringCandidates(
  model: TextModel,
  needle: string,
  text: string,
  atLineStart: boolean,
  atLineEnd: boolean,
): Candidate[] {
  const w = model.w;
  const out: Candidate[] = [];
  if (needle === '') return out;
  const multiLine = needle.includes('\n');
  for (let at = w.indexOf(needle); at !== -1; at = w.indexOf(needle, at + 1)) {
    const end = at + needle.length;
    if (atLineStart && at > 0 && w[at - 1] !== '\n') continue;
    if (atLineEnd && end < w.length && w[end] !== '\n') continue;
    // A find of whole lines (several lines, or one whose line breaks were trimmed) that starts with part
    // of a line's indentation is a re-indented block, not text: the line passes decide.
    if (
      (multiLine || atLineStart || atLineEnd) &&
      (needle[0] === ' ' || needle[0] === '\t') &&
      at > 0 &&
      w[at - 1] !== '\n' &&
      /^[ \t]*$/.test(w.slice(model.lineStarts[lineAt(model, at)]!, at))
    )
      continue;
    out.push({ start: at, end, firstLine: lineAt(model, at), lastLine: lineAt(model, Math.max(at, end - 1)), text });
  }
  return out;
}

/**
 * Find with whitespace around it as a whole (a leading space, a trailing tab) that is not in the file: the
 * trimmed find as a substring, when replace carries the same surrounding whitespace (it is then trimmed too)
 * or none at all (an empty replace included). `wholeTokens`: only places that do not start or end inside a word
 * count (for a short find, which is easily found inside other text).
 *
 * @returns the `trimmed_whole` outcome, or undefined when the pass does not apply or finds nothing
 */
export function trimmedWhole(
  model: TextModel,
  core: string,
  rcore: string,
  wholeTokens = false,
): PassOutcome | undefined {
  const lead = /^\s*/.exec(core)![0];
  const trail = /\s*$/.exec(core.slice(lead.length))![0];
  if (lead === '' && trail === '') return undefined;
  const inner = core.slice(lead.length, core.length - trail.length);
  // Replace with the same whitespace around it loses it too; replace with none around it stays as it is;
  // other whitespace around replace leaves what it means unknown (refused).
  let text = rcore;
  // A short find (wholeTokens) takes only the same whitespace around replace, or an empty replace.
  const bare = wholeTokens ? rcore === '' : true;
  if (lead !== '' && text.startsWith(lead)) text = text.slice(lead.length);
  else if (lead !== '' && (!bare || /^\s/.test(text))) return undefined;
  if (trail !== '' && text.endsWith(trail)) text = text.slice(0, text.length - trail.length);
  else if (trail !== '' && (!bare || /\s$/.test(text))) return undefined;
  // A one-line find says nothing about the indentation of new lines in replace.
  if (!inner.includes('\n') && text.includes('\n')) return undefined;
  let found = substringCandidates(model, inner, text, false, false);
  // A short find (see SHORT_FIND_CHARS) counts only where it does not start or end inside a word.
  const w = model.w;
  if (wholeTokens)
    found = found.filter(
      (c) =>
        !(isWord(w[c.start - 1] ?? '') && isWord(w[c.start]!)) && !(isWord(w[c.end] ?? '') && isWord(w[c.end - 1]!)),
    );
  // Deleted with nothing written back, the whitespace find had around it is the line's own: the
  // indentation before it and the spaces after it on that line go too (as the find's own would have).
  if (text === '') found = found.map((c) => spreadToLineEdges(model, c, lead !== '', trail !== ''));
  return found.length > 0 ? { strategy: 'trimmed_whole', candidates: found } : undefined;
}

/** The span widened over the spaces and tabs before it (`before`) / after it (`after`) up to its line's edge. */
function spreadToLineEdges(model: TextModel, c: Candidate, before: boolean, after: boolean): Candidate {
  const w = model.w;
  let { start, end } = c;
  if (before) {
    while (start > 0 && (w[start - 1] === ' ' || w[start - 1] === '\t')) start--;
    if (start > 0 && w[start - 1] !== '\n') start = c.start;
  }
  if (after) {
    while (end < w.length && (w[end] === ' ' || w[end] === '\t')) end++;
    if (end < w.length && w[end] !== '\n') end = c.end;
  }
  return { ...c, start, end };
}

/**
 * A one-line find located inside a line with whitespace ignored where it cannot change meaning: a run of
 * spaces and tabs between two word characters must be there (any width) in both; around punctuation it
 * may be missing on either side (`a=b` vs `a = b`). Typographic quotes and dashes are folded too.
 *
 * `wholeLine`: only places that are a whole line's text (indentation and trailing whitespace aside) count.
 *
 * @returns the `inline_whitespace` outcome, or undefined when the pass does not apply or finds nothing
 */
export function inlineSubstring(
  model: TextModel,
  core: string,
  rcore: string,
  wholeLine = false,
): PassOutcome | undefined {
  if (core.includes('\n') || rcore.includes('\n')) return undefined;
  const tokens = foldUnicode(core).trim();
  if (tokens === '') return undefined;
  let pattern = '';
  for (let i = 0; i < tokens.length; i++) {
    const c = tokens[i]!;
    if (c === ' ' || c === '\t') {
      const before = tokens[i - 1] ?? '';
      while (tokens[i + 1] === ' ' || tokens[i + 1] === '\t') i++;
      pattern += isWord(before) && isWord(tokens[i + 1] ?? '') ? '[ \\t]+' : '[ \\t]*';
      continue;
    }
    const prev = tokens[i - 1] ?? '';
    if (i > 0 && prev !== ' ' && prev !== '\t' && !(isWord(prev) && isWord(c))) pattern += '[ \\t]*';
    pattern += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  // Whitespace around the whole find is not part of the match; the same whitespace around replace goes too.
  // Other whitespace around replace (wider indentation, say) says nothing certain about where it belongs.
  const lead = /^[ \t]*/.exec(core)![0];
  const trail = /[ \t]*$/.exec(core)![0];
  const rlead = /^[ \t]*/.exec(rcore)![0];
  const rtrail = /[ \t]*$/.exec(rcore.slice(rlead.length))![0];
  if ((lead !== '' && rlead !== '' && rlead !== lead) || (trail !== '' && rtrail !== '' && rtrail !== trail))
    return undefined;
  let text = rcore;
  if (lead !== '' && text.startsWith(lead)) text = text.slice(lead.length);
  if (trail !== '' && text.endsWith(trail)) text = text.slice(0, text.length - trail.length);
  const re = new RegExp(pattern, 'g');
  const folded = lineKeys(model).foldedText();
  const out: Candidate[] = [];
  // Only lines holding find's longest word can match: look there instead of running the pattern over the file.
  const lines = linesWithWord(model, tokens);
  const matches: { index: number; length: number }[] = [];
  for (const i of lines) {
    const base = model.lineStarts[i]!;
    for (const m of folded.slice(base, base + model.lines[i]!.length).matchAll(re))
      matches.push({ index: base + m.index, length: m[0].length });
  }
  for (const m of matches) {
    const start = m.index;
    const end = start + m.length;
    // Whole tokens only: the match may not start or end inside a word.
    if (isWord(folded[start - 1] ?? '') && isWord(folded[start]!)) continue;
    if (isWord(folded[end] ?? '') && isWord(folded[end - 1]!)) continue;
    // A short find (see SHORT_FIND_CHARS) counts only as a whole line's text, indentation aside.
    if (wholeLine && !coversLine(model, start, end)) continue;
    out.push({ start, end, firstLine: lineAt(model, start), lastLine: lineAt(model, Math.max(start, end - 1)), text });
  }
  return out.length > 0 ? { strategy: 'inline_whitespace', candidates: out } : undefined;
}

/** Whether working offsets start..end hold all of one line's text but its leading and trailing whitespace. */
function coversLine(model: TextModel, start: number, end: number): boolean {
  const i = lineAt(model, start);
  const line = model.lines[i]!;
  const from = model.lineStarts[i]!;
  return line.slice(0, start - from).trim() === '' && end <= from + line.length && line.slice(end - from).trim() === '';
}

function isWord(c: string): boolean {
  return /[\p{L}\p{N}_$]/u.test(c);
}

/**
 * Lines holding the longest word of `line` (folded), ascending: where a whitespace-insensitive match can be.
 *
 * @returns 0-based line numbers, each once; none when `line` has no word
 */
export function linesWithWord(model: TextModel, line: string): number[] {
  const longest = (foldUnicode(line).match(/[\p{L}\p{N}_$]+/gu) ?? []).reduce(
    (a, b) => (b.length > a.length ? b : a),
    '',
  );
  if (longest === '') return [];
  const folded = lineKeys(model).foldedText();
  const out: number[] = [];
  for (let at = folded.indexOf(longest); at !== -1; at = folded.indexOf(longest, at + 1)) {
    const i = lineAt(model, at);
    if (out[out.length - 1] !== i) out.push(i);
  }
  return out;
}
