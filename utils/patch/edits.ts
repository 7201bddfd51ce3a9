/**
 * Turning a located patch into edits of the raw content: the blank-line edge check, line endings per
 * line, and the splice itself.
 */
import type { Candidate } from './text.js';
import { eolForSpan, lineAt, lineEnding, mixedEndings, rawOffset, type TextModel } from './text.js';
import { lineSteps } from './steps.js';

/** One replaced span in raw offsets (UTF-16 code units) of the content given to `applyPatch`. */
export interface PatchEdit {
  start: number;
  end: number;
  /** The text written in place of `content.slice(start, end)`, with the file's line endings. */
  text: string;
}

/**
 * A patch whose matched text begins (or ends) with blank lines of a longer run of blank lines in the file,
 * and whose replacement has a different number of line breaks there: the find does not say which of the
 * file's blank lines it meant, so the resulting count of blank lines would be a guess. The line break that
 * ends the line before the span belongs to that line: a find that begins at a line boundary after a line
 * with text quotes no blank line there.
 */
export function blankEdgeConflict(model: TextModel, c: Candidate): boolean {
  const w = model.w;
  const matched = w.slice(c.start, c.end);
  const newlines = (s: string) => s.split('\n').length - 1;
  if (matched.trim() === '' || c.text.trim() === '') return false;
  const mLead = newlines(leadingWs(matched));
  if (mLead > 0 && newlines(leadingWs(c.text)) !== mLead && (c.start === 0 || w[c.start - 1] === '\n')) {
    const beforeWs = trailingWs(w.slice(Math.max(0, c.start - 200), c.start));
    // Blank lines before the span: the line breaks before it, less the one that ends a line with text.
    const blankBefore = newlines(beforeWs) - (c.start - beforeWs.length > 0 ? 1 : 0);
    if (blankBefore > 0) return true;
  }
  // At the end a find that stops at its last line's break next to a run is unsure too: a replacement that
  // writes more breaks there may add blank lines or restate the run (both were measured).
  const mTrail = newlines(trailingWs(matched));
  if (mTrail > 0 && newlines(trailingWs(c.text)) !== mTrail) {
    const after = newlines(leadingWs(w.slice(c.end, c.end + 200)));
    if (after > 0 && after + mTrail >= 2) return true;
  }
  return false;
}

/**
 * Settles a `blankEdgeConflict` on evidence from the replacement: when the find's edge sits inside a longer
 * run of blank lines and the replacement's own edge restates that whole run byte for byte (the model quoted
 * fewer blank lines than the file has but wrote them all back), the span is widened to the whole run, so
 * the run keeps its count. Takes the located candidate; returns the widened candidate, or `undefined` when
 * the replacement does not restate the run (the conflict stands and the patch is refused) or the file mixes
 * line endings. Offsets are UTF-16 code units of the normalised text (`model.w`).
 */
export function widenToBlankRun(model: TextModel, c: Candidate): Candidate | undefined {
  const w = model.w;
  if (mixedEndings(model)) return undefined;
  const matched = w.slice(c.start, c.end);
  let start = c.start;
  let end = c.end;
  // Likewise a find that begins with the line break before its first line quotes no blank line there.
  if (leadingWs(matched).split('\n').length > 2) {
    // The run begins after the first line break of the whitespace before the match.
    const before = wsRunStart(w, c.start);
    const nl = w.slice(before, c.start).indexOf('\n');
    const runStart = nl < 0 ? before : before + nl + 1;
    const lead = leadingWs(w.slice(runStart, c.end));
    if (lead.includes('\n') && upToLastBreak(lead) === upToLastBreak(leadingWs(c.text))) start = runStart;
  }
  // A find that ends with its last line's own line break quotes no blank line there: it ends before the
  // run, not inside it, so a replacement that writes more line breaks adds blank lines (unsure: refused).
  if (trailingWs(matched).split('\n').length > 2) {
    // The run ends at the last line break of the whitespace after the match (or at the end of the file).
    const after = wsRunEnd(w, c.end);
    const nl = w.slice(c.end, after).lastIndexOf('\n');
    const runEnd = after === w.length ? w.length : nl < 0 ? c.end : c.end + nl + 1;
    const trail = trailingWs(w.slice(c.start, runEnd));
    if (trail.includes('\n') && fromFirstBreak(trail) === fromFirstBreak(trailingWs(c.text))) end = runEnd;
  }
  if (start === c.start && end === c.end) return undefined;
  const widened = { ...c, start, end, firstLine: lineAt(model, start), lastLine: lineAt(model, end) };
  return blankEdgeConflict(model, widened) ? undefined : widened;
}

/** The whitespace a string begins with. */
function leadingWs(s: string): string {
  return /^\s*/.exec(s)![0];
}

/** The whitespace a string ends with. */
function trailingWs(s: string): string {
  return /\s*$/.exec(s)![0];
}

/** Offset where the run of whitespace that ends at offset `at` of `s` begins (`at` when there is none). */
function wsRunStart(s: string, at: number): number {
  let i = at;
  while (i > 0 && /\s/.test(s[i - 1]!)) i--;
  return i;
}

/** Offset where the run of whitespace that begins at offset `at` of `s` ends (`at` when there is none). */
function wsRunEnd(s: string, at: number): number {
  let i = at;
  while (i < s.length && /\s/.test(s[i]!)) i++;
  return i;
}

/** Whitespace up to and including its last line break ('' when it has none). */
function upToLastBreak(ws: string): string {
  return ws.slice(0, ws.lastIndexOf('\n') + 1);
}

/** Whitespace from its first line break on ('' when it has none). */
function fromFirstBreak(ws: string): string {
  const at = ws.indexOf('\n');
  return at < 0 ? '' : ws.slice(at);
}

/**
 * The edit in raw offsets, with the file's line endings: a line copied from the file keeps its own ending
 * (a file with mixed endings stays mixed); new lines get the span's ending (see `eolForSpan`).
 *
 * @param model  the file's text model (offsets in `c` are in its LF-normalised text `w`)
 * @param c      the chosen candidate; `c.text` is the replacement with LF endings
 * @returns the span in offsets of the raw content and the text to write there
 */
export function toRawEdit(model: TextModel, c: Candidate): PatchEdit {
  const eol = eolForSpan(model, c.start, c.end);
  const start = rawOffset(model, c.start);
  const end = rawOffset(model, c.end);
  if (!mixedEndings(model)) {
    return { start, end, text: eol === '\n' ? c.text : c.text.replace(/\n/g, '\r\n') };
  }
  const lines = c.text.split('\n');
  const sources = c.sources ?? keptLines(model, c, lines);
  let text = lines[0]!;
  for (let k = 1; k < lines.length; k++) {
    const from = sources[k - 1];
    text += (from !== undefined ? lineEnding(model, from) : eol) + lines[k]!;
  }
  return { start, end, text };
}

/** For a candidate from a substring pass: which replacement lines are find lines kept as they are. */
function keptLines(model: TextModel, c: Candidate, replLines: readonly string[]): (number | undefined)[] {
  const sources: (number | undefined)[] = replLines.map(() => undefined);
  for (const step of lineSteps(model.w.slice(c.start, c.end).split('\n'), replLines)) {
    if ('keep' in step) sources[step.at] = c.firstLine + step.keep;
  }
  return sources;
}

/**
 * Splice ascending, non-overlapping edits into `content` by index (never `String.replace`: `$` is literal).
 *
 * @returns the new content
 */
export function splice(content: string, edits: readonly PatchEdit[]): string {
  const parts: string[] = [];
  let at = 0;
  for (const e of edits) {
    parts.push(content.slice(at, e.start), e.text);
    at = e.end;
  }
  parts.push(content.slice(at));
  return parts.join('');
}
