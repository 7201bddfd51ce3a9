import { lineHunks, splitLinesKeepEnds } from './diff.js';
import { PatchApplyError } from './errors.js';

/**
 * One contiguous changed region of a file change, as shown at review hunk by hunk (docs/interactive-surfaces.md).
 *
 * Line numbers are 1-based. `oldStart`/`oldLines` locate the region in `before`, `newStart`/`newLines` in
 * `after`, both including the context lines around the change. `oldText`/`newText` are the exact
 * characters of those regions, line terminators (`\n` or `\r\n`) and a missing final newline included,
 * so rebuilding from them is byte-exact.
 */
export interface Hunk {
  /** Unique across a review: `<path>#<n>`, n 1-based in file order. */
  id: string;
  /** Project-relative path of the file this hunk belongs to. */
  path: string;
  /** 0-based position of the hunk within its file. */
  index: number;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** The `diff` package's display lines: ' ' context, '-' removed, '+' added, '\' no-newline markers. */
  lines: string[];
  /** Exact text of lines oldStart..oldStart+oldLines-1 of `before`. */
  oldText: string;
  /** Exact text the region becomes; replaced by the person's text when a hunk is edited at review. */
  newText: string;
}

/** Options for {@link splitHunks}. */
export interface SplitHunksOptions {
  /** Unchanged lines kept around each change; hunks closer than twice this merge. Default 3 (as git). */
  context?: number;
}

/**
 * Split one file change into hunks, with the hunk boundaries of utils/diff.ts `lineHunks` (the `diff`
 * package's Myers line diff, or its linear fallback for a change of very many lines).
 *
 * @param path    project-relative path, used for ids and display only
 * @param before  old content; `''` for a new file
 * @param after   new content
 * @returns hunks in file order, non-overlapping; `[]` when before === after
 * @throws never
 */
export function splitHunks(path: string, before: string, after: string, options: SplitHunksOptions = {}): Hunk[] {
  if (before === after) return [];
  const context = options.context ?? 3;
  const hunks = lineHunks(before, after, context);
  const oldLines = splitLinesKeepEnds(before);
  const newLines = splitLinesKeepEnds(after);
  return hunks.map((h, index) => {
    // structuredPatch's raw starts are 1-based, and with a zero-length side the start is the line the
    // region sits before, so `start - 1` is always the 0-based slice index (checked for context 0 and 3).
    const oldFrom = h.oldStart - 1;
    const newFrom = h.newStart - 1;
    return {
      id: `${path}#${index + 1}`,
      path,
      index,
      oldStart: h.oldStart,
      oldLines: h.oldLines,
      newStart: h.newStart,
      newLines: h.newLines,
      lines: [...h.lines],
      oldText: oldLines.slice(oldFrom, oldFrom + h.oldLines).join(''),
      newText: newLines.slice(newFrom, newFrom + h.newLines).join(''),
    };
  });
}

/**
 * Rebuild a file's content keeping only the accepted hunks: accepted hunks contribute their `newText`,
 * the others leave `before` as it was. Hunks must come from one `splitHunks(path, before, …)` call (an
 * edited hunk may carry a different `newText`). Accepting every hunk yields `after` exactly; accepting
 * none yields `before`; line endings and the final newline are the ones of the chosen text.
 *
 * @param before       the old content the hunks were computed against
 * @param hunks        that file's hunks, any order
 * @param acceptedIds  ids of the hunks to apply
 * @returns the new content
 * @throws PatchApplyError (code `hunk_mismatch`) when a hunk's `oldText` no longer matches `before`
 */
export function applyAcceptedHunks(
  before: string,
  hunks: readonly Hunk[],
  acceptedIds: ReadonlySet<string> | readonly string[],
): string {
  const accepted = acceptedIds instanceof Set ? acceptedIds : new Set(acceptedIds as readonly string[]);
  const lines = splitLinesKeepEnds(before);
  const chosen = hunks.filter((h) => accepted.has(h.id)).sort((a, b) => a.oldStart - b.oldStart);
  const out: string[] = [];
  let cursor = 0;
  for (const h of chosen) {
    const from = h.oldStart - 1;
    const region = lines.slice(from, from + h.oldLines).join('');
    if (from < cursor || region !== h.oldText) {
      throw new PatchApplyError(`Hunk ${h.id} does not match the content it is applied to`, { code: 'hunk_mismatch' });
    }
    out.push(...lines.slice(cursor, from), h.newText);
    cursor = from + h.oldLines;
  }
  out.push(...lines.slice(cursor));
  return out.join('');
}
