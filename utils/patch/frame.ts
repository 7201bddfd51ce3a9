/**
 * Moving a hunk's new lines into the file's indentation frame (see the invariant in render.ts), and the checks
 * that say when that frame is unsure: an indentation relation with exceptions next to the hunk, a line inside
 * a multi-line string (whose bytes follow the string's own quoted lines, never the code's), a string the model
 * wrote whole, a dedent that stopped at the margin.
 */
import { buildIndentMap, fitsIndent, reindentLine, type IndentMap } from './indent.js';
import { fileLiterals, literalLines } from './literal.js';
import type { LineMatch } from './render.js';
import { similarLines, type Step } from './steps.js';
import { contentKey, indentOf, type TextModel } from './text.js';

/**
 * Moving new lines into the file's indentation frame, and the checks that say when that frame is
 * unsure. The multi-line-string maps are computed on first need and kept for the rest of one render.
 */
export class FrameCheck {
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
          // Where replace reads otherwise than the file, the line moves only when both relations agree.
          const own = this.literalRelation();
          const moved = own ? reindentLine(own, added[a]!) : own === null && agrees ? line : undefined;
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
