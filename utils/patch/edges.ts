/**
 * The line breaks at the edges of a find that its replace does not write again. Relaxed passes locate the
 * find without its blank edge lines (`PreparedPatch.core`); when replace keeps fewer of those line breaks
 * than find had (`find: "x()\n"`, `replace: "y()"`), the located span takes them in so that the result is
 * the one the exact pass gives: the line breaks are removed with the text they follow or precede. A file
 * that lacks the blank lines the find's edge claims makes the count a guess: refused.
 */
import type { PassOutcome } from './match.js';
import { lineAt, type Candidate, type TextModel } from './text.js';

/**
 * Each located span of a relaxed pass extended over the line breaks replace dropped: `leadDropped` before
 * the span (the last ones of find's leading run) and `trailDropped` after it (the first ones of the trailing
 * run). A span whose file lacks them where the find's edge claims them (`leadBreaks`/`trailBreaks` in all,
 * blank lines between) is marked uncertain, unless the file starts or ends there.
 *
 * @returns the outcome with extended spans (offsets in the model's working text)
 */
export function withDroppedBreaks(
  model: TextModel,
  found: PassOutcome,
  edges: { leadBreaks: number; leadDropped: number; trailBreaks: number; trailDropped: number },
): PassOutcome {
  if ('refusal' in found || (edges.leadDropped === 0 && edges.trailDropped === 0)) return found;
  const candidates = found.candidates.map((c): Candidate => {
    if (c.uncertain !== undefined) return c;
    const start = edges.leadDropped > 0 ? breaksBefore(model.w, c.start, edges.leadBreaks, edges.leadDropped) : c.start;
    const end = edges.trailDropped > 0 ? breaksAfter(model.w, c.end, edges.trailBreaks, edges.trailDropped) : c.end;
    if (start === undefined || end === undefined) return { ...c, uncertain: 'blank', uncertainLine: 1 };
    return { ...c, start, end, firstLine: lineAt(model, start), lastLine: lineAt(model, Math.max(start, end - 1)) };
  });
  return { ...found, candidates };
}

/**
 * Offset past the first `take` of the `claimed` line breaks that follow offset `at` (spaces and tabs of
 * blank lines between them included), or undefined when a line with text comes before all `claimed` are
 * seen. At the end of the text, what there is suffices.
 */
function breaksAfter(w: string, at: number, claimed: number, take: number): number | undefined {
  let pos = at;
  let end = at;
  for (let n = 0; n < claimed; n++) {
    while (n > 0 && (w[pos] === ' ' || w[pos] === '\t')) pos++;
    if (pos >= w.length) return n < take ? pos : end;
    if (w[pos] !== '\n') return undefined;
    pos++;
    if (n < take) end = pos;
  }
  return end;
}

/** The mirror of `breaksAfter`: offset of the last `take` of the `claimed` line breaks before `at`. */
function breaksBefore(w: string, at: number, claimed: number, take: number): number | undefined {
  let pos = at;
  let start = at;
  for (let n = 0; n < claimed; n++) {
    while (n > 0 && (w[pos - 1] === ' ' || w[pos - 1] === '\t')) pos--;
    if (pos <= 0) return n < take ? 0 : start;
    if (w[pos - 1] !== '\n') return undefined;
    pos--;
    if (n < take) start = pos;
  }
  return start;
}
