/**
 * Settling a two-piece elided find (`head ... tail`, no markers in replace) whose pieces fit several
 * placements, by its replacement. Without markers, replace is the new text of the whole span, so its lines
 * show which text its author saw between the pieces.
 */
import { similarLines } from './steps.js';
import { contentKey, foldedKey, lineKeys, nonWsLength, type TextModel } from './text.js';

/** A line of replace counts as evidence only with at least this many non-whitespace characters (not `}`, `);`). */
const EVIDENCE_CHARS = 4;

/** Line pairs compared for similarity at most, per elided find (more: no edited line is looked for). */
export const MAX_SIMILAR_PAIRS = 4000;

/** Characters of elided text times characters of replace compared for similarity at most, per find. */
const MAX_SIMILAR_CELLS = 1_000_000;

/** Whether a line key is informative enough to count as evidence (EVIDENCE_CHARS non-whitespace or more). */
export function isInformative(key: string): boolean {
  return nonWsLength(key) >= EVIDENCE_CHARS;
}

/**
 * replace's lines as content keys when it begins with the head piece and ends with the tail piece (compared
 * trimmed and folded): then it is the new text of the whole span, anchors included. Else undefined.
 */
export function framedReplace(
  replLines: readonly string[],
  head: readonly string[],
  tail: readonly string[],
): string[] | undefined {
  const repl = replLines.map(contentKey);
  const n = repl.length;
  if (n < head.length + tail.length) return undefined;
  if (head.some((l, j) => repl[j] !== contentKey(l))) return undefined;
  if (tail.some((l, j) => repl[n - tail.length + j] !== contentKey(l))) return undefined;
  return repl;
}

/**
 * Whether the span of content keys `h..end` (exclusive) already reads as `repl`: an edit that would change
 * nothing is not what its author meant, so that reading is wrong.
 */
export function readsAsReplace(content: readonly string[], h: number, end: number, repl: readonly string[]): boolean {
  return end - h === repl.length && repl.every((k, j) => content[h + j] === k);
}

/**
 * The one placement `[h, t]` (first line of the head piece, of the tail piece) the replacement settles,
 * or `undefined` to refuse. `occurrences` are the start lines of each piece (ascending). All must hold:
 * 1. Nearest copies: each placement considered pairs a head copy with the first tail copy after it that
 *    leaves non-blank text between them, and no other head copy lies in that text. A copy of a piece inside
 *    the elided text would have anchored the find as well; its author quoted the piece next to the text.
 * 2. replace begins with the head piece and ends with the tail piece (trimmed and folded): it is the new
 *    text of the whole span, anchors included.
 * 3. Exactly one such placement has evidence: replace keeps an informative line of its elided text, or
 *    edits one (`similarLines`). Evidence by edited lines alone must point at one place: those lines of
 *    replace resemble no informative line of the file outside the span.
 * 4. Replace keeps no line that the file has once, outside the span, nor a line found only where a farther
 *    placement would reach (between the chosen copies and the next copies of a repeated piece), and holds no
 *    line of a repeated piece between its ends (the span may then reach past a copy in the file, kept with a
 *    line added inside it). With only edited lines as evidence, no line of replace it did not keep from the
 *    span is similar to a line where a farther placement would reach.
 * 5. The span does not already read as replace (an edit that changes nothing is not what was meant).
 * Lines compare by their trimmed, folded content. O(file lines + compared characters, bounded).
 */
export function settleNearest(
  model: TextModel,
  head: readonly string[],
  tail: readonly string[],
  occurrences: readonly (readonly number[])[],
  replLines: readonly string[],
): number[] | undefined {
  const [heads, tails] = [occurrences[0]!, occurrences[1]!];
  const repl = framedReplace(replLines, head, tail);
  if (!repl) return undefined;
  const n = repl.length;
  const content = lineKeys(model).content;
  const mid = repl.slice(head.length, n - tail.length).filter(isInformative);
  const hasText = (from: number, to: number) => content.slice(from, to).some((k) => k !== '');
  const readings: [number, number][] = [];
  let ti = 0;
  for (let k = 0; k < heads.length; k++) {
    const h = heads[k]!;
    while (ti < tails.length && tails[ti]! < h + head.length) ti++;
    if (ti === tails.length) break;
    const t = tails[ti]!;
    if ((heads[k + 1] ?? Infinity) + head.length <= t || !hasText(h + head.length, t)) continue;
    readings.push([h, t]);
  }
  const midSet = new Set(mid);
  const elided = readings.map(([h, t]) => content.slice(h + head.length, t).filter(isInformative));
  // Kept lines first (cheap): two placements with one are ambiguous without comparing any line.
  const keeping = readings.flatMap((_, r) => (elided[r]!.some((k) => midSet.has(k)) ? [r] : []));
  if (keeping.length > 1) return undefined;
  // Bounded: comparing two lines costs up to the product of their lengths.
  const chars = (lines: readonly string[]) => lines.reduce((s, l) => s + l.length, 0);
  if (elided.reduce((s, e) => s + chars(e), 0) * chars(mid) > MAX_SIMILAR_CELLS) return undefined;
  // Any other placement with an edited line makes two with evidence.
  const edits = (r: number) => elided[r]!.some((e) => mid.some((k) => similarLines(e, k)));
  let pick = keeping[0];
  for (let r = 0; r < readings.length; r++) {
    if (r === keeping[0] || !edits(r)) continue;
    if (pick !== undefined) return undefined;
    pick = r;
  }
  if (pick === undefined) return undefined;
  const level = keeping.length === 1 ? 1 : 2;
  const chosen = [readings[pick]!];
  const [h, t] = chosen[0]!;
  const end = t + tail.length;
  if (level === 2 && !editsOnlyHere(content, h, end, elided[pick]!, mid)) return undefined;
  if (readsAsReplace(content, h, end, repl)) return undefined;
  const spanKeys = content.slice(h, end);
  // The text a farther placement would add: before this head copy back to the previous one, after this tail
  // copy up to the end of the next one; only where the piece repeats.
  const k = heads.indexOf(h);
  const left: [number, number] = heads.length > 1 ? [k > 0 ? heads[k - 1]! : 0, h] : [h, h];
  const m = tails.indexOf(t);
  const right: [number, number] =
    tails.length > 1 ? [end, m + 1 < tails.length ? tails[m + 1]! + tail.length : content.length] : [end, end];
  // Copies of a piece that overlap (`};` `};` `};` for the piece `};` `};`) do not fix where the span ends.
  if (overlapsCopy(heads, h, head.length) || overlapsCopy(tails, t, tail.length)) return undefined;
  const span = new Set(spanKeys);
  const near = [...content.slice(left[0], left[1]), ...content.slice(right[0], right[1])].filter(isInformative);
  const outside = near.filter((x) => !span.has(x));
  const elsewhere = new Set([
    ...content.slice(0, left[0]),
    ...content.slice(left[1], right[0]),
    ...content.slice(right[1]),
  ]);
  if (mid.some((x) => outside.includes(x) && !elsewhere.has(x))) return undefined;
  // A line of replace that the file has once, outside the span, says replace is about that text too.
  const once = lineCounts(content);
  if (mid.some((x) => once.get(x) === 1 && !span.has(x))) return undefined;
  // A line of a repeated piece in replace's new text: the span may reach past a copy of it in the file too.
  const body = replLines.slice(head.length, n - tail.length).map(foldedKey);
  const holds = (piece: readonly string[]) => piece.some((l) => body.includes(foldedKey(l)));
  if ((heads.length > 1 && holds(head)) || (tails.length > 1 && holds(tail))) return undefined;
  if (level === 2) {
    const fresh = mid.filter((x) => !span.has(x));
    if (fresh.length * near.length > MAX_SIMILAR_PAIRS) return undefined;
    if (fresh.some((x) => near.some((o) => similarLines(o, x)))) return undefined;
  }
  return [h, t];
}

/** How many times each line key occurs. */
function lineCounts(keys: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const k of keys) out.set(k, (out.get(k) ?? 0) + 1);
  return out;
}

/**
 * Whether the lines of replace that edit a line of the elided text (`similarLines`) resemble no informative
 * line of the file outside the span, lines `h` to `end` (exclusive): evidence that points at one place.
 */
function editsOnlyHere(
  content: readonly string[],
  h: number,
  end: number,
  elided: readonly string[],
  mid: readonly string[],
): boolean {
  const edited = mid.filter((k) => elided.some((e) => similarLines(e, k)));
  const others = [...content.slice(0, h), ...content.slice(end)].filter(isInformative);
  if (edited.length * others.length > MAX_SIMILAR_PAIRS) return false;
  return !edited.some((k) => others.some((o) => similarLines(o, k)));
}

/** Whether another of `starts` (a piece's copies, `length` lines each) overlaps the copy at `at`. */
export function overlapsCopy(starts: readonly number[], at: number, length: number): boolean {
  return starts.some((s) => s !== at && s < at + length && at < s + length);
}
