import type { LineRange } from './regions.js';

/**
 * The prompt text of packed files and the line-range arithmetic behind it: a whole file, or a file's
 * excerpts, each in a code fence no line of the file can close.
 */

/** A backtick fence longer than any backtick run inside `text` (CommonMark), at least three. */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`{3,}/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** `text` inside a fence that cannot occur in it, ending with a newline. */
function fenced(text: string): string {
  const body = text.endsWith('\n') ? text : `${text}\n`;
  const fence = fenceFor(body);
  return `${fence}\n${body}${fence}\n`;
}

/**
 * The prompt block of a whole file: one `## <path> (whole file)` header line, then the verbatim
 * text in a code fence. This is exactly what is sent (and counted against the budget) for the file.
 */
export function wholeFileText(path: string, text: string): string {
  return `## ${path} (whole file)\n${fenced(text)}`;
}

/** The header line of a file sent as excerpts (`## path (excerpts: lines a-b, … of N)`). */
export function rangesHeader(path: string, ranges: readonly LineRange[], lineCount: number): string {
  return `## ${path} (excerpts: lines ${ranges.map(([a, b]) => `${a}-${b}`).join(', ')} of ${lineCount})\n`;
}

/**
 * The prompt block of a file sent in parts: one `## <path> (excerpts: …)` header line, then per
 * range a `[lines a-b]` marker line outside the fence and the raw lines inside it (no per-line
 * numbers, so a model can copy code exactly as it is on disk).
 */
export function rangesText(path: string, lines: readonly string[], ranges: readonly LineRange[]): string {
  let out = rangesHeader(path, ranges, lines.length);
  // Every line keeps its own newline: a range ending on a blank line must not lose it.
  for (const [a, b] of ranges) out += `[lines ${a}-${b}]\n${fenced(`${lines.slice(a - 1, b).join('\n')}\n`)}`;
  return out;
}

/** Merge overlapping and touching ranges, sorted. */
export function mergeRanges(ranges: readonly LineRange[]): LineRange[] {
  const sorted = [...ranges].sort((x, y) => x[0] - y[0]);
  const out: LineRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}

/** Join sorted, disjoint ranges separated by at most `gap` lines (1-based inclusive line ranges). */
export function closeGaps(ranges: readonly LineRange[], gap: number): LineRange[] {
  const out: LineRange[] = [];
  for (const r of ranges) {
    const last = out[out.length - 1];
    if (last && r[0] - last[1] - 1 <= gap) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}
