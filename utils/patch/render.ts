/**
 * The replacement text of a relaxed match, built so that it cannot touch what the patch does not change.
 *
 * THE INVARIANT every relaxed pass relies on: a pass that found `find` by loosening the comparison maps the
 * region it found back to `find` line by line (`LineMatch.map`, one-to-one and in order). The replacement is
 * then the line diff of find → replace applied to that region: every line the replacement leaves unchanged
 * is written with the file's own bytes (indentation, trailing spaces, typographic characters, line ending),
 * and only added or changed lines come from `replace`, moved into the file's indentation frame. (A blank
 * line that find quotes byte for byte and replace writes with other whitespace counts as changed: its
 * whitespace is all it has, and the model spelled both versions.) Where the indentation relation has
 * exceptions next to a new line (an unevenly indented find), the line takes the file indentation of the
 * line it edits, or of the lines around it, when those agree. When the frame of a new line cannot be
 * known (no such line, the line sits inside a multi-line string it did not open itself, or the file has
 * blank lines the find left out next to a changed line), or which of two equal find lines a hunk removes
 * changes the bytes, the patch is refused rather than guessed.
 */
import { reindentLine, type IndentMap } from './indent.js';
import { FrameCheck } from './frame.js';
import { spanCandidate, type Candidate, type TextModel } from './text.js';
import { lineSteps, sameKey, slideToKeep, type Step } from './steps.js';

/** A relaxed match: the span and where each find line landed. */
export interface LineMatch {
  /** First and last file line of the span (0-based, inclusive). */
  first: number;
  last: number;
  /**
   * File line of each find line, strictly increasing; `-1` for a blank find line with no counterpart in the
   * file. File lines of the span that no find line maps to are blank lines the find left out.
   */
  map: readonly number[];
  /** Find-frame → file-frame indentation; undefined when the frames are the same. */
  indent?: IndentMap;
  /**
   * Find as the model meant it, when it differs from the find given: blank lines the find left out are put
   * back (listed in `fileOnly`) so that the diff sees them. Such a line may be kept, or removed between two
   * lines the patch removes, never removed at the edge of a change: the find did not quote it, so whether
   * it goes with the change is unknown.
   */
  lines?: readonly string[];
  fileOnly?: ReadonlySet<number>;
  /** Whitespace inside find's lines was drifted (wide or tab runs): a new line with such a run is unsure. */
  inlineDrift?: boolean;
  /** Found by ignoring whitespace inside lines: a line replace keeps must have the file's spacing. */
  inlinePass?: boolean;
  /** Lines inside multi-line strings were quoted at other indentation than the file's. */
  stringMoved?: boolean;
  /** 1-based replace line whose indentation frame is unsure before any rendering (see line-passes.ts `frameUnsure`). */
  unsureFrame?: number;
}

/** The rendered replacement, or why it cannot be written with certainty. */
export type Rendered =
  | {
      /** Replacement in working text (LF). */
      text: string;
      /** For each line of `text`: the file line it was copied from verbatim, or undefined for a new line. */
      sources: (number | undefined)[];
    }
  | { uncertain: 'indent' | 'literal' | 'blank' | 'spacing'; line: number };

/**
 * Render the replacement of a relaxed match (see the invariant above).
 *
 * @param model      the file
 * @param findLines  find, split on `\n` (blank edge lines already trimmed)
 * @param replLines  replace, split on `\n` (trimmed symmetrically)
 * @param match      where the find landed
 * @returns the text with per-line sources, or a refusal reason with the 1-based replace line it concerns
 */
function renderMatch(
  model: TextModel,
  findLines: readonly string[],
  replLines: readonly string[],
  match: LineMatch,
): Rendered {
  const steps = match.fileOnly?.size
    ? slideToKeep(lineSteps(findLines, replLines), findLines, match.fileOnly)
    : lineSteps(findLines, replLines);
  const out: string[] = [];
  const sources: (number | undefined)[] = [];
  const emitFile = (from: number, to: number): void => {
    for (let i = from; i <= to; i++) {
      out.push(model.lines[i]!);
      sources.push(i);
    }
  };
  const { trimLast, outerTrail } = surroundingWhitespace(model, findLines, replLines, match);
  const frame = new FrameCheck(model, findLines, replLines, match);
  const addsBlank = steps.some((h) => !('keep' in h) && h.added.some((k) => replLines[k]!.trim() === ''));
  let prev = match.first - 1;
  for (let s = 0; s < steps.length; s++) {
    const step = steps[s]!;
    if ('keep' in step) {
      const at = match.map[step.keep]!;
      if (at < 0) continue;
      emitFile(prev + 1, at - 1);
      // A blank line that find and replace write with different whitespace was rewritten by the model: written
      // as replace has it (the whitespace of a blank line is all it has to change).
      const [f, r] = [findLines[step.keep]!, replLines[step.at]!];
      // A kept line whose spacing inside differs from the file's (`if  x` vs `if x`): the model wrote the
      // line as it believed the file had it; the file's spacing or its own, which is meant is unknown.
      if (match.inlinePass && f.trim() !== model.lines[at]!.trim()) return { uncertain: 'spacing', line: step.at + 1 };
      // A blank line find left out, written by replace with other whitespace than the file's: which the
      // model meant is unknown.
      if (match.fileOnly?.has(step.keep) && r !== model.lines[at]) return { uncertain: 'blank', line: step.at + 1 };
      if (f.trim() === '' && r !== f && !match.fileOnly?.has(step.keep)) {
        const moved = r !== '' && match.indent ? reindentLine(match.indent, r) : r;
        if (moved === undefined) return { uncertain: 'indent', line: step.at + 1 };
        pushNew(out, sources, [moved]);
      } else emitFile(at, at);
      prev = at;
      continue;
    }
    if (slidesOverDrift(model, steps, s, findLines, match))
      return { uncertain: 'indent', line: (step.added[0] ?? 0) + 1 };
    const next = hunkEnd(steps, s, match);
    const given = step.added.map((k) =>
      k === trimLast ? replLines[k]!.slice(0, replLines[k]!.length - outerTrail.length) : replLines[k]!,
    );
    const added = match.indent ? frame.moveIntoFrame(match.indent, steps, s, given, prev, next) : given;
    if (!Array.isArray(added)) return added;
    const drifted = match.inlineDrift ? added.findIndex((l) => /\S(?:\t| {2,})\S/.test(l.trim())) : -1;
    if (drifted >= 0) return { uncertain: 'indent', line: step.added[drifted]! + 1 };
    // Only blank lines find left out, and nothing added: the patch says nothing about them; they stay,
    // unless replace adds blank lines elsewhere (then it may have moved them: unsure, refused below).
    if (step.added.length === 0 && step.removed.every((j) => match.fileOnly?.has(j)) && !addsBlank) {
      for (const j of step.removed) emitFile(match.map[j]!, match.map[j]!);
      prev = next - 1;
      continue;
    }
    if (dropsLeftOutBlank(steps, s, findLines, replLines, match))
      return { uncertain: 'blank', line: (step.added[0] ?? 0) + 1 };
    pushNew(out, sources, added);
    prev = next - 1;
  }
  emitFile(prev + 1, match.last);
  return { text: out.join('\n'), sources };
}

/**
 * A one-line find with whitespace after it that the file does not have there, and the same whitespace
 * after the whole replace: it surrounds the patch rather than belonging to it (trimmed symmetrically).
 * Returns the replace line to trim (`-1` for none) and the whitespace.
 */
function surroundingWhitespace(
  model: TextModel,
  findLines: readonly string[],
  replLines: readonly string[],
  match: LineMatch,
): { trimLast: number; outerTrail: string } {
  const lastFind = findLines[findLines.length - 1]!;
  const lastAt = match.map[findLines.length - 1]!;
  const outerTrail = /[ \t]+$/.exec(lastFind)?.[0] ?? '';
  const trimLast =
    findLines.length === 1 &&
    outerTrail !== '' &&
    lastAt >= 0 &&
    !model.lines[lastAt]!.endsWith(outerTrail) &&
    (replLines[replLines.length - 1] ?? '').endsWith(outerTrail)
      ? replLines.length - 1
      : -1;
  return { trimLast, outerTrail };
}

/** The file line after the hunk `steps[s]`: that of the next kept find line that has one, else past the span. */
function hunkEnd(steps: readonly Step[], s: number, match: LineMatch): number {
  for (let t = s + 1; t < steps.length; t++) {
    const later = steps[t]!;
    if ('keep' in later && match.map[later.keep]! >= 0) return match.map[later.keep]!;
  }
  return match.last + 1;
}

/**
 * Whether the hunk `steps[s]` removes a line that find writes like a kept line next to it (through a run of
 * such kept lines) while the file writes the two differently (a drift made them equal): the line diff
 * chose which of the equal lines goes arbitrarily, and the other choice gives other bytes.
 */
function slidesOverDrift(
  model: TextModel,
  steps: readonly Step[],
  s: number,
  findLines: readonly string[],
  match: LineMatch,
): boolean {
  const step = steps[s] as { removed: number[] };
  for (const j of step.removed) {
    const at = match.map[j]!;
    if (at < 0 || findLines[j]!.trim() === '') continue;
    const key = sameKey(findLines[j]!);
    for (const dir of [-1, 1]) {
      for (let t = s + dir; t >= 0 && t < steps.length; t += dir) {
        const near = steps[t]!;
        if (!('keep' in near) || sameKey(findLines[near.keep]!) !== key) break;
        const other = match.map[near.keep]!;
        if (other >= 0 && model.lines[other] !== model.lines[at]) return true;
      }
    }
  }
  return false;
}

/**
 * Whether the hunk `steps[s]` removes a blank line find left out where that is unsure. A left-out blank
 * line between two lines the hunk removes goes with them; at the edge of a hunk it is unsure, and so it is
 * when the hunk could slide (it removes a line equal to a kept line next to it, so which of the equal lines
 * goes, and so where the blank line ends up, is not known).
 */
function dropsLeftOutBlank(
  steps: readonly Step[],
  s: number,
  findLines: readonly string[],
  replLines: readonly string[],
  match: LineMatch,
): boolean {
  const step = steps[s] as { removed: number[]; added: number[] };
  const removedSet = new Set(step.removed);
  const neighbours = [steps[s - 1], steps[s + 1]].flatMap((n) =>
    n && 'keep' in n ? [sameKey(findLines[n.keep]!)] : [],
  );
  // Also unsure when neither find nor replace has a blank line of its own: replace may leave blank lines out
  // as find did. Not so when find quotes blank lines itself: it does not leave them all out, and a replace
  // without any then removed the quoted ones on purpose.
  const slides = step.removed.some((j) => neighbours.includes(sameKey(findLines[j]!)));
  const findQuotesBlank = findLines.some((l, j) => l.trim() === '' && !match.fileOnly?.has(j));
  const unsure = slides || (!findQuotesBlank && !replLines.some((l) => l.trim() === ''));
  return step.removed.some(
    (j) => match.fileOnly?.has(j) && (unsure || !(removedSet.has(j - 1) && removedSet.has(j + 1))),
  );
}

function pushNew(out: string[], sources: (number | undefined)[], lines: readonly string[]): void {
  for (const l of lines) {
    out.push(l);
    sources.push(undefined);
  }
}

/** A line match as a candidate: the replacement rendered under the invariant, or marked uncertain. */
export function renderCandidate(
  model: TextModel,
  findLines: readonly string[],
  replLines: readonly string[],
  m: LineMatch,
): Candidate {
  if (m.unsureFrame !== undefined) {
    return { ...spanCandidate(model, m.first, m.last, ''), uncertain: 'indent', uncertainLine: m.unsureFrame };
  }
  const rendered = renderMatch(model, m.lines ?? findLines, replLines, m);
  if ('uncertain' in rendered) {
    return {
      ...spanCandidate(model, m.first, m.last, ''),
      uncertain: rendered.uncertain,
      uncertainLine: rendered.line,
    };
  }
  return { ...spanCandidate(model, m.first, m.last, rendered.text), sources: rendered.sources };
}
