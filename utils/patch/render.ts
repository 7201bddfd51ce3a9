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
import { buildIndentMap, fitsIndent, reindentLine, type IndentMap } from './indent.js';
import { fileLiterals, literalLines } from './literal.js';
import { contentKey, indentOf, spanCandidate, type Candidate, type TextModel } from './text.js';
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
  /** 1-based replace line whose indentation frame is unsure before any rendering (see match.ts `frameUnsure`). */
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
export function renderMatch(
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

/**
 * Moving new lines into the file's indentation frame, and the checks that say when that frame is
 * unsure. The multi-line-string maps are computed on first need and kept for the rest of one render.
 */
class FrameCheck {
  private literal: readonly boolean[] | undefined;
  private replLiteral: boolean[] | undefined;
  private ownRelation: IndentMap | null | undefined | false = false;
  private marginSeen = false;

  constructor(
    private readonly model: TextModel,
    private readonly findLines: readonly string[],
    private readonly replLines: readonly string[],
    private readonly match: LineMatch,
  ) {}

  /**
   * The hunk `steps[s]`'s new lines (`added`, one per `step.added`) moved into the file's frame, or why
   * one cannot be: a neighbouring anchor line does not fit the relation, a line has no certain spelling,
   * or it would be re-indented inside a multi-line string. `prev`..`next` bound the file lines it rewrites.
   */
  moveIntoFrame(
    indent: IndentMap,
    steps: readonly Step[],
    s: number,
    added: readonly string[],
    prev: number,
    next: number,
  ): string[] | { uncertain: 'indent' | 'literal'; line: number } {
    const { findLines, replLines } = this;
    const step = steps[s] as { removed: number[]; added: number[] };
    const addedIndex = step.added;
    const anchors = [
      ...step.removed.filter((j) => !step.added.some((k) => contentKey(replLines[k]!) === contentKey(findLines[j]!))),
    ];
    const before = steps[s - 1];
    const after = steps[s + 1];
    if (before && 'keep' in before) anchors.push(before.keep);
    if (after && 'keep' in after) anchors.push(after.keep);
    const hasText = added.some((l) => l.trim() !== '');
    let relation: (string | undefined)[] | undefined;
    if (!(hasText && anchors.some((j) => this.outlier(j)))) relation = added.map((l) => reindentLine(indent, l));
    // Where the relation has exceptions here, each new line may still take the indentation of the line it
    // replaces, or of the lines around it (see `fromReplaced`); else it is refused.
    if (!relation || relation.includes(undefined)) {
      const local = this.fromReplaced(steps, s, added);
      if (!local) {
        const bad = relation ? relation.indexOf(undefined) : 0;
        return { uncertain: 'indent', line: (addedIndex[bad] ?? 0) + 1 };
      }
      relation = local;
    }
    const moved: string[] = [];
    for (let a = 0; a < added.length; a++) {
      let line = relation[a]!;
      if (line !== added[a] || this.spanHasLiteral()) {
        // One extra line: whether the last line of replace closes the string it is in.
        // Read from the state the file is in where the span begins (a fragment may begin inside a comment).
        if (!this.replLiteral) {
          this.literalMap();
          this.replLiteral = literalLines([...replLines, ''], this.model.lexStates![this.match.first]);
        }
        // Where replace reads as the file does (`lexAgrees`), its own reading says whether a new line is in a
        // string; where not, a line is taken as in a string when the file's rewritten lines are.
        const k = addedIndex[a]!;
        const agrees = this.lexAgrees(steps);
        const inString = this.replLiteral[k] || (!agrees && this.touchesLiteral(prev + 1, next));
        if (inString && agrees && this.newLiteral(k, step, steps)) {
          // A string the hunk writes whole moves with the code around it, but never gains a tab.
          if (indentOf(line).includes('\t') || mixesAnew(added[a]!, line)) return { uncertain: 'literal', line: k + 1 };
        } else if (inString) {
          // Inside a string the line follows the string's own lines as the find quoted them, never the code.
          const own = agrees ? this.literalRelation() : undefined;
          const moved = own ? reindentLine(own, added[a]!) : own === null ? line : undefined;
          // A line at the margin where the string has lines at the margin in the file too: a dedent stopped
          // there, so whether the line moves with the code is unknown.
          const margin =
            this.marginSeen &&
            indentOf(added[a]!) === '' &&
            (own ? moved !== added[a] : own === null && indent.relate('') !== '');
          // The string's lines and the code's read the find's indentation differently: the model's frame
          // conflates the two (a tab and four spaces written alike), so which the line had is unknown.
          const conflated = own && moved !== line;
          if (
            moved === undefined ||
            margin ||
            conflated ||
            mixesAnew(added[a]!, moved) ||
            (own === null && !prefixMove(added[a]!, moved))
          )
            return { uncertain: 'literal', line: k + 1 };
          line = moved;
        }
      }
      moved.push(line);
    }
    return moved;
  }

  /**
   * The hunk `steps[s]`'s new lines, each moved into the file's frame by the lines it replaces rather than
   * by a relation over the whole find (which an unevenly indented find breaks). A new line indented like
   * removed lines of the hunk in find, and similar to them (`similarLines`), is one of them edited: it
   * takes their file indentation, when they all sit at one. A new line similar to none of them takes the
   * one file indentation of the removed lines and the kept lines on either side of the hunk indented like
   * it in find (all must agree: a new line written next to lines that the file indents differently has no
   * certain place). Which line was edited is never guessed by position.
   * Blank new lines are kept as written. `undefined` when any new line with text has no such indentation,
   * when replace keeps no line of find (nothing shows that it is written in find's frame), when the span
   * mixes tab- and space-indented lines, or when the hunk writes a removed line's text again indented
   * otherwise (find and replace disagree on that line's indentation).
   */
  private fromReplaced(steps: readonly Step[], s: number, added: readonly string[]): string[] | undefined {
    const { findLines, replLines, match, model } = this;
    const step = steps[s] as { removed: number[]; added: number[] };
    if (!steps.some((t) => 'keep' in t && findLines[t.keep]!.trim() !== '')) return undefined;
    const starts = new Set<string>();
    for (let i = match.first; i <= match.last; i++) {
      const line = model.lines[i]!;
      if (line.trim() !== '' && (line[0] === ' ' || line[0] === '\t')) starts.add(line[0]);
    }
    if (starts.size > 1) return undefined;
    if (step.removed.some((j) => step.added.some((k) => contentKey(replLines[k]!) === contentKey(findLines[j]!))))
      return undefined;
    const fileIndent = (j: number): string | undefined => {
      const at = match.map[j]!;
      return at < 0 || findLines[j]!.trim() === '' ? undefined : indentOf(model.lines[at]!);
    };
    const kept = [steps[s - 1], steps[s + 1]].flatMap((n) => (n && 'keep' in n ? [n.keep] : []));
    const out: string[] = [];
    for (let a = 0; a < added.length; a++) {
      const line = added[a]!;
      if (line === '') {
        out.push(line);
        continue;
      }
      // A line of only whitespace has no text to say which removed line it edits.
      if (line.trim() === '') return undefined;
      const want = indentOf(line);
      const alike = step.removed.filter((j) => fileIndent(j) !== undefined && indentOf(findLines[j]!) === want);
      const edited = alike.filter((j) => similarLines(findLines[j]!, line));
      // A line that edits none of them, written at an indent the find shows at two file indents (a dedent
      // that stopped at the margin), has no certain place whatever its neighbours say.
      if (edited.length === 0 && match.indent?.conflicted.has(want)) return undefined;
      const from =
        edited.length > 0
          ? edited
          : [...alike, ...kept.filter((j) => fileIndent(j) !== undefined && indentOf(findLines[j]!) === want)];
      const seen = new Set(from.map((j) => fileIndent(j)!));
      if (seen.size !== 1) return undefined;
      out.push([...seen][0]! + line.slice(want.length));
    }
    return out;
  }

  /**
   * Whether replace line `k` lies in a multi-line string that the hunk `step` writes whole: the line that
   * opens it and the line that closes it are new lines of the hunk, every line between is new or blank,
   * and replace reads as code or string on
   * every kept line exactly as the file does (so replace was read from the right state). Such a string is
   * the model's new text in the model's frame: it moves with the code around it (the caller allows that
   * only where the move writes no tab, tabs written as the file's spaces: a new docstring in a
   * space-indented file; spaces are never turned into tabs inside a string, which could break its content).
   */
  private newLiteral(k: number, step: { added: number[] }, steps: readonly Step[]): boolean {
    const lit = this.replLiteral!;
    if (!this.lexAgrees(steps)) return false;
    let open = k;
    while (open >= 0 && lit[open]) open--;
    let close = k;
    while (close + 1 < lit.length && lit[close + 1]) close++;
    if (open < 0 || close + 1 >= lit.length) return false;
    // Its opening and closing lines are new lines; a blank line inside it may be one replace keeps from
    // find (the diff pairs blank lines, splitting the string over two hunks), any other line is new.
    const isNew = (i: number) => steps.some((t) => 'added' in t && t.added.includes(i));
    if (!isNew(open) || !isNew(close)) return false;
    const kept = new Set<number>();
    for (const t of steps) if ('keep' in t && this.findLines[t.keep]!.trim() !== '') kept.add(t.at);
    for (let i = open; i <= close; i++) if (kept.has(i)) return false;
    return true;
  }

  /**
   * Whether replace, read as the file is read where the span begins, begins in code and reads as code or
   * string on every kept non-blank line exactly as the file does there.
   */
  private lexAgrees(steps: readonly Step[]): boolean {
    const lit = this.replLiteral!;
    const fileLit = this.literalMap();
    const { match } = this;
    // Replace must also leave the file where the span ends in the state the file is in there.
    if (lit[this.replLines.length] !== (fileLit[match.last + 1] ?? false)) return false;
    for (const t of steps) {
      // A blank line reads the same in code and in a string (the diff may pair one inside a new string).
      if (!('keep' in t) || this.findLines[t.keep]!.trim() === '') continue;
      const at = match.map[t.keep]!;
      if (at >= 0 && lit[t.at] !== fileLit[at]) return false;
    }
    return true;
  }

  /** Whether any line of the span begins inside a multi-line string (a new line there may have to move). */
  private spanHasLiteral(): boolean {
    return this.touchesLiteral(this.match.first, this.match.last + 1);
  }

  private literalMap(): readonly boolean[] {
    return (this.literal ??= fileLiterals(this.model));
  }

  /**
   * Whether any of file lines from..to (the region a hunk rewrites, and the line after it) begins inside a
   * multi-line string: a new line there would be re-indented inside text whose whitespace is content.
   */
  private touchesLiteral(from: number, to: number): boolean {
    const literal = this.literalMap();
    for (let i = from; i <= Math.min(to, literal.length - 1); i++) if (literal[i]) return true;
    return false;
  }

  /** A find line whose pair (find indent, file indent) does not fit the relation: the frame is unsure there. */
  private outlier(j: number): boolean {
    const { match, findLines, model } = this;
    const at = match.map[j]!;
    if (!match.indent || at < 0 || findLines[j]!.trim() === '') return false;
    return !fitsIndent(match.indent, findLines[j]!, model.lines[at]!);
  }

  /**
   * The indentation relation of the multi-line strings the find quotes, learned from their lines alone (the
   * code's relation says nothing about a string's bytes): `null` when the find quotes no such line with
   * text, `undefined` when the quoted lines fit no one relation.
   */
  private literalRelation(): IndentMap | null | undefined {
    if (this.ownRelation !== false) return this.ownRelation;
    const { match, findLines, model } = this;
    const literal = this.literalMap();
    const pairs: [string, string][] = [];
    match.map.forEach((at, j) => {
      if (at < 0 || !literal[at] || findLines[j]!.trim() === '') return;
      const [f, g] = [indentOf(findLines[j]!), indentOf(model.lines[at]!)];
      // A line at the left margin in both says nothing: a dedent stops at the margin whatever its size.
      if (f !== '' || g !== '') pairs.push([f, g]);
      else this.marginSeen = true;
    });
    this.ownRelation = pairs.length === 0 ? null : buildIndentMap(model, pairs, [], true);
    return this.ownRelation;
  }
}

/**
 * Whether `moved` only adds or takes off leading whitespace of `given`: the one move allowed in a string
 * no quoted line of which shows how its lines move.
 */
function prefixMove(given: string, moved: string): boolean {
  const [a, b] = [indentOf(given), indentOf(moved)];
  return (b.endsWith(a) || a.endsWith(b)) && !mixesAnew(given, moved);
}

/** Whether `moved`'s indentation mixes tabs and spaces where `given`'s did not. */
function mixesAnew(given: string, moved: string): boolean {
  const mixes = (x: string) => x.includes('\t') && x.includes(' ');
  return mixes(indentOf(moved)) && !mixes(indentOf(given));
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
  let row = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const next = [i];
    for (let j = 1; j <= y.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[y.length]! * 2 <= longer;
}
