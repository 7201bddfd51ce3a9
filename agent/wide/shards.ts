import { closeGaps, mergeRanges, rangesText, wholeFileText } from '../context/pack-text.js';
import type { LineRange } from '../context/regions.js';

/**
 * Shards for wide changes: the footprint of a task (every file it must cover) packed into groups
 * whose prompt text fits one context budget, so each group can get its own plan request.
 *
 * Files are taken in path order, so files of one folder sit next to each other and land in the same
 * shard unless the shard is full (next-fit packing: predictable, and a shard never mixes far-apart
 * folders while a near one still has room). A file whose text does not fit a shard goes as the
 * regions around its matched lines when there are any, else as consecutive line windows; those
 * pieces may spread over several shards, each showing a disjoint part of the file.
 */

/** One file of a footprint. */
export interface FootprintFile {
  /** project-relative, '/' separators */
  path: string;
  /** the text that may be sent (already redacted) */
  text: string;
  /** 1-based lines that matched the footprint's patterns; empty or absent = the whole file is in scope */
  matchLines?: readonly number[];
}

/** One file (or one part of a file) as shown in a shard request. */
export interface ShardFile {
  path: string;
  /** 1-based inclusive line ranges shown, or null for the whole file */
  ranges: LineRange[] | null;
  /** exactly what the request shows for this file: a header line, then verbatim file text */
  text: string;
  /** characters of `text` */
  chars: number;
}

/** One shard: the files one plan request shows. */
export interface Shard {
  /** 0-based position in the shard list */
  index: number;
  files: ShardFile[];
  /** Σ files[].chars, ≤ the content budget the shards were packed for */
  chars: number;
}

/** Options of `packShards`. */
export interface PackShardsOptions {
  /** characters of file text one shard may hold, > 0 */
  contentBudgetChars: number;
  /** lines of context kept on each side of a matched line when a file goes as regions @default 8 */
  contextLines?: number;
}

const DEFAULT_CONTEXT_LINES = 8;
/** Regions of one file closer than this many lines are joined, so a model sees one block instead of two. */
const JOIN_GAP_LINES = 6;

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Where to end a window that could run to line `last`: at the latest top-level boundary (a blank
 * line followed by a line starting in column 0) in the window's last third, else at its latest blank
 * line, so that one function or block is rarely split between two requests; `last` when neither.
 */
function boundaryBefore(lines: readonly string[], first: number, last: number): number {
  const floor = first + Math.floor(((last - first) * 2) / 3);
  let blank = last;
  for (let n = last; n > floor; n--) {
    if ((lines[n - 1] ?? '').trim() !== '') continue;
    const next = lines[n] ?? '';
    if (next !== '' && !/^\s/.test(next)) return n;
    if (blank === last) blank = n;
  }
  return blank;
}

/**
 * Cut a list of ranges into groups whose `rangesText` fits `limit` characters; a single range that
 * alone is larger is cut into line windows. Returns the groups in file order.
 */
function fitRanges(path: string, lines: readonly string[], ranges: readonly LineRange[], limit: number): LineRange[][] {
  const pieces: LineRange[] = [];
  for (const [a, b] of ranges) {
    if (rangesText(path, lines, [[a, b]]).length <= limit) {
      pieces.push([a, b]);
      continue;
    }
    // One range too large for a shard: windows of as many whole lines as fit.
    // Binary search for the last end line that still fits; a window holds at least one line.
    let start = a;
    while (start <= b) {
      let lo = start;
      let hi = b;
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if (rangesText(path, lines, [[start, mid]]).length <= limit) lo = mid;
        else hi = mid - 1;
      }
      const end = lo < b ? boundaryBefore(lines, start, lo) : lo;
      pieces.push([start, end]);
      start = end + 1;
    }
  }
  const groups: LineRange[][] = [];
  let current: LineRange[] = [];
  for (const piece of pieces) {
    const next = [...current, piece];
    if (current.length > 0 && rangesText(path, lines, next).length > limit) {
      groups.push(current);
      current = [piece];
    } else current = next;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/**
 * What one footprint file contributes: the whole file when it fits a shard, else the regions
 * around its matched lines (or line windows), split into parts that each fit.
 */
export function filePieces(file: FootprintFile, options: PackShardsOptions): ShardFile[] {
  const limit = Math.max(1, Math.floor(options.contentBudgetChars));
  const whole = wholeFileText(file.path, file.text);
  if (whole.length <= limit) return [{ path: file.path, ranges: null, text: whole, chars: whole.length }];
  const lines = splitLines(file.text);
  const context = options.contextLines ?? DEFAULT_CONTEXT_LINES;
  const matched = (file.matchLines ?? []).filter((n) => n >= 1 && n <= lines.length);
  const ranges: LineRange[] =
    matched.length > 0
      ? closeGaps(
          mergeRanges(matched.map((n) => [Math.max(1, n - context), Math.min(lines.length, n + context)] as LineRange)),
          JOIN_GAP_LINES,
        )
      : [[1, Math.max(1, lines.length)]];
  return fitRanges(file.path, lines, ranges, limit).map((group) => {
    const text = rangesText(file.path, lines, group);
    return { path: file.path, ranges: group, text, chars: text.length };
  });
}

/**
 * Pack a footprint into shards under a content budget.
 *
 * @param files    the footprint; order does not matter (files are taken in path order)
 * @returns shards in order, each with `chars ≤ contentBudgetChars`, every file (or every part of a
 *          large file) in exactly one shard; [] for an empty footprint
 * @throws never
 */
export function packShards(files: readonly FootprintFile[], options: PackShardsOptions): Shard[] {
  const limit = Math.max(1, Math.floor(options.contentBudgetChars));
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const shards: Shard[] = [];
  let current: Shard | undefined;
  for (const file of sorted) {
    for (const piece of filePieces(file, options)) {
      if (!current || current.chars + piece.chars > limit) {
        current = { index: shards.length, files: [], chars: 0 };
        shards.push(current);
      }
      current.files.push(piece);
      current.chars += piece.chars;
    }
  }
  return shards;
}

/**
 * The list of every footprint path that each shard request carries, so the model knows the whole
 * scope and leaves other shards' files alone. When the full list is longer than `maxChars`, files
 * are folded into one line per folder with a count.
 *
 * @returns plain text, ≤ maxChars unless even the folded form is longer (then the folded form)
 */
export function footprintList(paths: readonly string[], maxChars: number): string {
  const sorted = [...new Set(paths)].sort();
  const full = sorted.join('\n');
  if (full.length <= maxChars) return full;
  const byFolder = new Map<string, number>();
  for (const p of sorted) {
    const folder = p.includes('/') ? p.slice(0, p.lastIndexOf('/') + 1) : './';
    byFolder.set(folder, (byFolder.get(folder) ?? 0) + 1);
  }
  return [...byFolder].map(([folder, n]) => `${folder} (${n} file${n === 1 ? '' : 's'})`).join('\n');
}
