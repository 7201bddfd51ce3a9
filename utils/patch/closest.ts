/**
 * "Did you mean lines 40–52?": the region of a file that looks most like a `find` that matched nowhere.
 * Suggest-only; never used to apply (like Aider's "did you mean" lines). Lines of find vote for the
 * window start they imply wherever their trimmed text occurs; a one-line find falls back to word overlap.
 */
import { contentKey, lineKeys, type TextModel } from './text.js';

/** A line that occurs more often than this says little about where find belongs. */
const COMMON_LINE = 50;

/**
 * The most likely region for `find` in the file, 1-based inclusive lines, or `undefined` when nothing
 * resembles it. Cost: O(find lines × occurrences) plus O(file lines) for a one-line find.
 */
export function closestRegion(model: TextModel, find: string): { startLine: number; endLine: number } | undefined {
  const keys = lineKeys(model);
  const findLines = find.split('\n');
  const votes = new Map<number, number>();
  findLines.forEach((line, j) => {
    const key = contentKey(line);
    if (key.length < 2) return;
    const at = keys.byContent.get(key);
    if (!at || at.length > COMMON_LINE) return;
    for (const i of at) votes.set(i - j, (votes.get(i - j) ?? 0) + 1);
  });
  let best: number | undefined;
  let bestVotes = 0;
  for (const [start, n] of votes)
    if (n > bestVotes || (n === bestVotes && best !== undefined && start < best)) [best, bestVotes] = [start, n];
  if (best === undefined) best = byWords(model, findLines);
  if (best === undefined) return undefined;
  const last = model.lines.length;
  const startLine = Math.min(Math.max(best, 0), last - 1) + 1;
  return { startLine, endLine: Math.min(startLine + findLines.length - 1, last) };
}

/** Start line of the file line sharing the most words with find's first non-blank line (≥ half of them). */
function byWords(model: TextModel, findLines: readonly string[]): number | undefined {
  const j = findLines.findIndex((l) => l.trim() !== '');
  if (j < 0) return undefined;
  const words = new Set(findLines[j]!.match(/\w+/g) ?? []);
  if (words.size === 0) return undefined;
  let best: number | undefined;
  let bestScore = 0.5;
  model.lines.forEach((line, i) => {
    const seen = new Set(line.match(/\w+/g) ?? []);
    let shared = 0;
    for (const w of words) if (seen.has(w)) shared++;
    const score = shared / Math.max(words.size, seen.size);
    if (score > bestScore) [best, bestScore] = [i - j, score];
  });
  return best;
}
