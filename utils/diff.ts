import { createTwoFilesPatch, diffArrays, formatPatch, structuredPatch, type StructuredPatchHunk } from 'diff';

/**
 * Line diffs of a file change, as unified diffs (the preview) and as hunks (the review). The `diff` package's
 * Myers diff costs O(N·D) for N lines and D edits, so a plan of thousands of patches to one file made it
 * quadratic before any prompt. It runs with an edit bound; past it, a linear fallback builds the diff: common
 * prefix and suffix, then lines unique in both sides as anchors (patience diff), the bounded Myers diff
 * between them, and a plain replacement where neither finds anything. Ordinary diffs stay the package's.
 */

/** Most edits a Myers diff may take; a change of more lines than this gets the fallback. */
const MAX_EDIT_LENGTH = 500;

/**
 * A unified diff of one file change (git style `a/` and `b/` headers, 3 lines of context). A created file
 * diffs against `/dev/null`.
 *
 * @param path    project-relative path
 * @param before  previous content, or null when the file is new
 * @param after   new content
 * @returns the unified diff text; `""` when nothing changed
 */
export function makeUnifiedDiff(path: string, before: string | null, after: string): string {
  if (before === after) return '';
  const oldFileName = before === null ? '/dev/null' : `a/${path}`;
  const newFileName = `b/${path}`;
  const patch =
    createTwoFilesPatch(oldFileName, newFileName, before ?? '', after, '', '', {
      context: 3,
      maxEditLength: MAX_EDIT_LENGTH,
    }) ??
    formatPatch({
      oldFileName,
      newFileName,
      oldHeader: '',
      newHeader: '',
      hunks: fallbackHunks(before ?? '', after, 3),
    });
  // Drop the "Index:"/"====" preamble the package writes; keep from the "---" header on.
  const start = patch.indexOf('--- ');
  return start > 0 ? patch.slice(start) : patch;
}

/**
 * The hunks of a file change as the `diff` package's `structuredPatch` gives them (1-based starts; lines
 * prefixed `' '`, `-`, `+`, without their line ends, `\ No newline at end of file` where one is missing).
 *
 * @param context  unchanged lines around each change
 */
export function lineHunks(before: string, after: string, context: number): StructuredPatchHunk[] {
  const patch = structuredPatch('', '', before, after, '', '', { context, maxEditLength: MAX_EDIT_LENGTH });
  return patch?.hunks ?? fallbackHunks(before, after, context);
}

/** Lines added and removed in a unified diff (header lines excluded). */
export function diffStats(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++') || line.startsWith('---')) continue;
    if (line.startsWith('+')) added++;
    else if (line.startsWith('-')) removed++;
  }
  return { added, removed };
}

/** `text` split into lines that keep their line ends (the last may have none), as the package tokenizes. */
export function splitLinesKeepEnds(text: string): string[] {
  if (text === '') return [];
  const lines: string[] = [];
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', start)) {
    lines.push(text.slice(start, i + 1));
    start = i + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

type Kind = 'same' | 'removed' | 'added';
interface Run {
  kind: Kind;
  lines: string[];
}

/** The fallback's line changes, as runs of equal, removed and added lines in order. */
function lineRuns(a: readonly string[], b: readonly string[]): Run[] {
  const runs: Run[] = [];
  const push = (kind: Kind, lines: readonly string[]): void => {
    if (lines.length === 0) return;
    const last = runs[runs.length - 1];
    if (last?.kind === kind) for (const line of lines) last.lines.push(line);
    else runs.push({ kind, lines: [...lines] });
  };
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  push('same', a.slice(0, head));
  middle(a.slice(head, a.length - tail), b.slice(head, b.length - tail), push);
  push('same', a.slice(a.length - tail));
  return runs;
}

/** Between two equal stretches: the bounded Myers diff, else anchors on unique lines, else a replacement. */
function middle(a: string[], b: string[], push: (kind: Kind, lines: readonly string[]) => void): void {
  if (a.length === 0 || b.length === 0) {
    push('removed', a);
    push('added', b);
    return;
  }
  const myers = diffArrays(a, b, { maxEditLength: MAX_EDIT_LENGTH });
  if (myers) {
    for (const c of myers) push(c.added ? 'added' : c.removed ? 'removed' : 'same', c.value);
    return;
  }
  const anchors = uniqueAnchors(a, b);
  if (anchors.length === 0) {
    push('removed', a);
    push('added', b);
    return;
  }
  let i0 = 0;
  let j0 = 0;
  for (const [i, j] of anchors) {
    middle(a.slice(i0, i), b.slice(j0, j), push);
    push('same', [a[i]!]);
    i0 = i + 1;
    j0 = j + 1;
  }
  middle(a.slice(i0), b.slice(j0), push);
}

/**
 * Lines that occur exactly once in each side, paired, keeping the longest chain that is in order in both
 * (patience sorting for the longest increasing subsequence, O(n log n)).
 */
function uniqueAnchors(a: readonly string[], b: readonly string[]): [number, number][] {
  const count = (lines: readonly string[]): Map<string, number> => {
    const seen = new Map<string, number>();
    lines.forEach((line, i) => seen.set(line, seen.has(line) ? -1 : i));
    return seen;
  };
  const inA = count(a);
  const inB = count(b);
  const pairs: [number, number][] = [];
  for (const [line, i] of inA) {
    const j = inB.get(line);
    if (i >= 0 && j !== undefined && j >= 0) pairs.push([i, j]);
  }
  pairs.sort((x, y) => x[0] - y[0]);
  const tops: number[] = []; // index into pairs of the smallest tail of each pile
  const back: number[] = [];
  for (const [k, [, j]] of pairs.entries()) {
    let lo = 0;
    let hi = tops.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[tops[mid]!]![1] < j) lo = mid + 1;
      else hi = mid;
    }
    back[k] = lo > 0 ? tops[lo - 1]! : -1;
    tops[lo] = k;
  }
  const chain: [number, number][] = [];
  for (let k = tops.length > 0 ? tops[tops.length - 1]! : -1; k >= 0; k = back[k]!) chain.push(pairs[k]!);
  return chain.reverse();
}

/** Hunks from line runs, exactly as the package builds them from its own changes (`structuredPatch`). */
function fallbackHunks(before: string, after: string, context: number): StructuredPatchHunk[] {
  const runs = lineRuns(splitLinesKeepEnds(before), splitLinesKeepEnds(after));
  runs.push({ kind: 'same', lines: [] });
  const hunks: StructuredPatchHunk[] = [];
  let oldStart = 0;
  let newStart = 0;
  let range: string[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const [i, run] of runs.entries()) {
    if (run.kind !== 'same') {
      if (!oldStart) {
        const previous = runs[i - 1];
        oldStart = oldLine;
        newStart = newLine;
        if (previous) {
          range = context > 0 ? previous.lines.slice(-context).map((l) => ` ${l}`) : [];
          oldStart -= range.length;
          newStart -= range.length;
        }
      }
      for (const line of run.lines) range.push(`${run.kind === 'added' ? '+' : '-'}${line}`);
      if (run.kind === 'added') newLine += run.lines.length;
      else oldLine += run.lines.length;
      continue;
    }
    if (oldStart) {
      if (run.lines.length <= context * 2 && i < runs.length - 2) {
        for (const line of run.lines) range.push(` ${line}`);
      } else {
        const size = Math.min(run.lines.length, context);
        for (const line of run.lines.slice(0, size)) range.push(` ${line}`);
        hunks.push({
          oldStart,
          oldLines: oldLine - oldStart + size,
          newStart,
          newLines: newLine - newStart + size,
          lines: range,
        });
        oldStart = 0;
        newStart = 0;
        range = [];
      }
    }
    oldLine += run.lines.length;
    newLine += run.lines.length;
  }
  for (const hunk of hunks) {
    const lines: string[] = [];
    for (const line of hunk.lines) {
      if (line.endsWith('\n')) lines.push(line.slice(0, -1));
      else lines.push(line, '\\ No newline at end of file');
    }
    hunk.lines = lines;
  }
  return hunks;
}
