/**
 * Find → replace as a line diff: kept find lines and hunks of removed and added lines, the unit the
 * relaxed renderer (render.ts) and the line-ending choice (edits.ts) work in.
 */
import { diffArrays } from 'diff';
import { foldUnicode } from './text.js';

/** Key under which a find line and a replace line count as the same line: blank, or equal once folded. */
export function sameKey(line: string): string {
  return line.trim() === '' ? '' : foldUnicode(line);
}

/** One step of find → replace: a find line kept (at replace line `at`), or a hunk of removed and added lines. */
export type Step = { keep: number; at: number } | { removed: number[]; added: number[] };

/** Find → replace as a list of kept find lines and hunks (runs of removed and added lines). */
export function lineSteps(findLines: readonly string[], replLines: readonly string[]): Step[] {
  const steps: Step[] = [];
  let f = 0;
  let r = 0;
  let hunk: { removed: number[]; added: number[] } | undefined;
  // Lines are aligned ignoring trailing whitespace (a drift there must not pair a line with a different
  // one); a pair that differs in trailing whitespace is then a changed line, written as replace has it.
  const fk = findLines.map((l) => sameKey(l).trimEnd());
  const rk = replLines.map((l) => sameKey(l).trimEnd());
  // Common head and tail lines are kept without asking the diff (most edits change a few middle lines).
  let head = 0;
  while (head < fk.length && head < rk.length && fk[head] === rk[head]) head++;
  let tail = 0;
  while (tail < fk.length - head && tail < rk.length - head && fk[fk.length - 1 - tail] === rk[rk.length - 1 - tail])
    tail++;
  const parts = [
    ...(head > 0 ? [{ count: head, value: fk.slice(0, head) }] : []),
    ...diffArrays(fk.slice(head, fk.length - tail), rk.slice(head, rk.length - tail)),
    ...(tail > 0 ? [{ count: tail, value: fk.slice(fk.length - tail) }] : []),
  ] as { count?: number; value: string[]; added?: boolean; removed?: boolean }[];
  for (const part of parts) {
    const n = part.count ?? part.value.length;
    if (!part.added && !part.removed) {
      for (let k = 0; k < n; k++) {
        // Kept only when replace writes the line as find does: a line whose characters the model changed
        // (a space for a no-break space, quotes) is changed, however alike the two fold.
        if (findLines[f] === replLines[r] || (findLines[f]!.trim() === '' && replLines[r]!.trim() === '')) {
          hunk = undefined;
          steps.push({ keep: f++, at: r++ });
          continue;
        }
        if (!hunk) {
          hunk = { removed: [], added: [] };
          steps.push(hunk);
        }
        hunk.removed.push(f++);
        hunk.added.push(r++);
      }
      continue;
    }
    if (!hunk) {
      hunk = { removed: [], added: [] };
      steps.push(hunk);
    }
    for (let k = 0; k < n; k++) {
      if (part.added) hunk.added.push(r++);
      else hunk.removed.push(f++);
    }
  }
  return steps;
}

/**
 * A deletion next to a blank line can be read two ways (delete "x, blank" or "blank, x"): the diff may pick
 * the reading that removes a blank line find left out. Slide such a pure deletion over an equal blank line
 * it quoted, so that the file's own blank line is the one kept (same result text, no refusal).
 */
export function slideToKeep(steps: Step[], findLines: readonly string[], fileOnly: ReadonlySet<number>): Step[] {
  const blank = (j: number) => findLines[j]!.trim() === '';
  for (let s = 0; s < steps.length; s++) {
    const h = steps[s]!;
    if ('keep' in h || h.added.length > 0) continue;
    for (;;) {
      const before = steps[s - 1];
      const last = h.removed[h.removed.length - 1];
      if (
        last === undefined ||
        !fileOnly.has(last) ||
        !before ||
        !('keep' in before) ||
        !blank(before.keep) ||
        fileOnly.has(before.keep)
      )
        break;
      // keep(b), remove(x…, f)  ⇒  remove(b, x…), keep(f)
      steps[s - 1] = { removed: [before.keep, ...h.removed.slice(0, -1)], added: [] };
      steps[s] = { keep: last, at: before.at };
      s--;
      break;
    }
  }
  for (let s = steps.length - 1; s >= 0; s--) {
    const h = steps[s]!;
    if ('keep' in h || h.added.length > 0) continue;
    const after = steps[s + 1];
    const first = h.removed[0];
    if (
      first === undefined ||
      !fileOnly.has(first) ||
      !after ||
      !('keep' in after) ||
      !blank(after.keep) ||
      fileOnly.has(after.keep)
    )
      continue;
    // remove(f, x…), keep(b)  ⇒  keep(f), remove(x…, b)
    steps[s] = { keep: first, at: after.at };
    steps[s + 1] = { removed: [...h.removed.slice(1), after.keep], added: [] };
  }
  return steps;
}

/** Lines longer than this (trimmed) are not compared by `similarLines` (they count as not similar). */
const SIMILAR_MAX_CHARS = 400;

/**
 * Whether two lines read as one line edited rather than one line swapped for another: the edit distance
 * of their trimmed text (Levenshtein, in UTF-16 units) is at most half the longer one's length.
 */
export function similarLines(a: string, b: string): boolean {
  const x = a.trim();
  const y = b.trim();
  const longer = Math.max(x.length, y.length);
  // The distance is at least the difference in length.
  if (longer === 0 || longer > SIMILAR_MAX_CHARS || Math.abs(x.length - y.length) * 2 > longer) return false;
  // And at least the longer length less the characters the two share (counted with repeats): a cheap bound
  // that settles most unlike pairs before the quadratic count.
  if ((longer - sharedChars(x, y)) * 2 > longer) return false;
  let row = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const next = [i];
    let least = i;
    for (let j = 1; j <= y.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
      least = Math.min(least, next[j]!);
    }
    // Distances never shrink from one row to the next's minimum: past the limit, no path comes back.
    if (least * 2 > longer) return false;
    row = next;
  }
  return row[y.length]! * 2 <= longer;
}

/** How many characters two strings share, each counted as often as it occurs in both (UTF-16 units). */
function sharedChars(x: string, y: string): number {
  const counts = new Map<number, number>();
  for (let i = 0; i < x.length; i++) counts.set(x.charCodeAt(i), (counts.get(x.charCodeAt(i)) ?? 0) + 1);
  let shared = 0;
  for (let i = 0; i < y.length; i++) {
    const c = counts.get(y.charCodeAt(i)) ?? 0;
    if (c > 0) {
      counts.set(y.charCodeAt(i), c - 1);
      shared++;
    }
  }
  return shared;
}
