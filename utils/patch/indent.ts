/**
 * Re-indentation of a replacement for the indentation-tolerant passes. The model's `find` and `replace`
 * share one indentation frame (shifted, dedented, or tabs where the file has spaces); the file has another.
 * An `IndentMap` learns the find→file relation from the matched lines — a constant shift in columns, with
 * the width of a tab on the side that uses tabs solved for — and moves every replacement line into the
 * file's frame (Aider's `replace_part_with_missing_leading_whitespace`, Gemini CLI's `applyIndentation`;
 * the two indentation passes).
 */
import { lineKeys, type TextModel } from './text.js';

/** Find-indent → file-indent relation. */
export interface IndentMap {
  /** Exact find-indent strings seen on matched lines, mapped to the file's indent string. */
  readonly pairs: ReadonlyMap<string, string>;
  /** Moves any other indent string into the file's frame. */
  readonly convert: (indent: string) => string;
  /** The chosen relation applied to an indent seen on a matched line (undefined: it has no image). */
  readonly relate: (indent: string) => string | undefined;
  /** Whether the file indents with tabs more often than with spaces. */
  readonly fileTabs: boolean;
  /** Find indents seen on matched lines at two or more file indents (a clamped dedent, a drifted line). */
  readonly conflicted: ReadonlySet<string>;
}

/** Returned by a relation that cannot tell how the file would write an indent. */
const AMBIGUOUS_INDENT = '\u0000';

/** Tab widths tried, most likely first (2 is how 2-space files are usually tab-converted). */
const TAB_WIDTHS = [2, 4, 8, 3] as const;

/**
 * Build the map from matched (find indent, file indent) pairs of non-blank lines. Relations tried in order,
 * each kept only as exact as the evidence: a common prefix added or removed (keeps odd tab/space mixes),
 * leading tabs ↔ runs of N spaces, then a shift in columns with a tab width solved for.
 * @param strict  true (indent_relative pass): every pair must fit one relation, else `undefined` (no match).
 *                false (trimmed_lines, blank_lines_ignored): the relation most pairs fit wins.
 * @param replaceIndents  indents of the replacement lines (they tell whether the model's frame uses tabs)
 */
export function buildIndentMap(
  model: TextModel,
  matched: readonly (readonly [string, string])[],
  replaceIndents: readonly string[],
  strict: boolean,
): IndentMap | undefined {
  const pairs = new Map<string, string>();
  const conflicted = new Set<string>();
  for (const [f, g] of matched) {
    const known = pairs.get(f);
    if (known === undefined) pairs.set(f, g);
    else if (known !== g) {
      if (strict) return undefined;
      conflicted.add(f);
    }
  }
  // One find indent seen at two file indents (a clamped dedent, a drifted line): a new line written with
  // it has no certain place.
  for (const f of conflicted) pairs.set(f, AMBIGUOUS_INDENT);
  const shift = columnShift(model, matched, replaceIndents, strict);
  // A relation maps a find-frame indent to the file's; `fresh` is set for indents no matched line had.
  const relations: ((indent: string, fresh: boolean) => string | undefined)[] = [];
  let strip: ((indent: string) => string | undefined) | undefined;
  const first = matched[0];
  if (first) {
    const [f0, g0] = first;
    if (f0.endsWith(g0)) {
      const extra = f0.slice(0, f0.length - g0.length);
      strip = (r) => (r.startsWith(extra) ? r.slice(extra.length) : undefined);
      relations.push(strip);
    }
    if (g0.endsWith(f0)) {
      const missing = g0.slice(0, g0.length - f0.length);
      relations.push((r) => missing + r);
    }
  }
  for (const u of TAB_WIDTHS)
    relations.push(
      (r) => tabsToSpaces(r, u),
      (r, fresh) => spacesToTabs(r, u, fresh),
    );
  if (shift) relations.push(shift);
  let best: ((indent: string, fresh: boolean) => string | undefined) | undefined;
  let bestFit = -1;
  for (const rel of relations) {
    let fit = 0;
    for (const [f, g] of matched) if (rel(f, false) === g) fit++;
    if (strict && fit < matched.length) continue;
    if (fit > bestFit) [best, bestFit] = [rel, fit];
  }
  const fileTabs = fileUsesTabs(model);
  if (!best)
    return matched.length === 0 ? { pairs, convert: (r) => r, relate: (r) => r, fileTabs, conflicted } : undefined;
  const chosen = best;
  // Unless the model's extra prefix is simply taken off, a new indent with a tab in it, in a frame that
  // used spaces and never a tab, has no known meaning.
  const frameHasTabs = [...pairs.keys()].some((f) => f.includes('\t'));
  const frameHasSpaces = [...pairs.keys()].some((f) => f.includes(' '));
  const convert = (r: string): string => {
    const stripped = chosen === strip ? strip?.(r) : undefined;
    if (stripped !== undefined) return stripped;
    if (!frameHasTabs && frameHasSpaces && r.includes('\t')) return AMBIGUOUS_INDENT;
    return chosen(r, true) ?? shift?.(r, true) ?? r;
  };
  return { pairs, convert, relate: (r) => chosen(r, false), fileTabs, conflicted };
}

/**
 * Whether a matched pair of lines fits the map's relation: the find line's indentation, moved into the
 * file's frame, is the file line's indentation. A pair that does not fit is a drifted line; new lines next
 * to it have no certain frame.
 */
export function fitsIndent(map: IndentMap, findLine: string, fileLine: string): boolean {
  return map.relate(leading(findLine)) === leading(fileLine);
}

function leading(line: string): string {
  let i = 0;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
  return line.slice(0, i);
}

/**
 * Re-indent one replacement line into the file's frame. An empty line stays empty; a line of only spaces and
 * tabs stays only where the relation maps it to itself. `undefined` when the line's indentation has no certain
 * spelling in the file's style (the patch is then refused).
 */
export function reindentLine(map: IndentMap, line: string): string | undefined {
  if (line === '') return line;
  // A line of only whitespace: whether the model moved it with the block is unknown. It stays as written
  // unless written in the other style than the file's (tabs in a space-indented file): then it is moved.
  if (line.trim() === '') {
    if (!line.includes(map.fileTabs ? ' ' : '\t')) return line;
    const moved = map.pairs.get(line) ?? map.convert(line);
    return moved === AMBIGUOUS_INDENT || moved.includes(map.fileTabs ? ' ' : '\t') ? undefined : moved;
  }
  let i = 0;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
  const indent = line.slice(0, i);
  const mapped = map.pairs.get(indent) ?? map.convert(indent);
  return mapped === AMBIGUOUS_INDENT ? undefined : mapped + line.slice(i);
}

/** Leading tabs written as `u` spaces each (the rest of the indent kept). */
function tabsToSpaces(indent: string, u: number): string | undefined {
  let i = 0;
  while (indent[i] === '\t') i++;
  return ' '.repeat(i * u) + indent.slice(i);
}

/**
 * Leading spaces written as tabs, `u` spaces a tab. A remainder is left as spaces, but how the file writes
 * such an alignment (tab then spaces, or spaces around a tab) cannot be known: `AMBIGUOUS_INDENT`.
 */
function spacesToTabs(indent: string, u: number, fresh: boolean): string | undefined {
  let i = 0;
  while (indent[i] === ' ') i++;
  if (fresh && i % u !== 0) return AMBIGUOUS_INDENT;
  return '\t'.repeat(Math.floor(i / u)) + ' '.repeat(i % u) + indent.slice(i);
}

/**
 * A constant shift in columns, with the width of a tab solved for on the side that uses tabs; new
 * indentation is written in the file's style. `undefined` when no shift fits (strict) or nothing matched.
 */
function columnShift(
  model: TextModel,
  matched: readonly (readonly [string, string])[],
  replaceIndents: readonly string[],
  strict: boolean,
): ((indent: string, fresh: boolean) => string) | undefined {
  const findTabs = matched.some(([f]) => f.includes('\t')) || replaceIndents.some((r) => r.includes('\t'));
  const fileIndents = matched.map(([, g]) => g);
  const fileTabs =
    fileIndents.some((g) => g.includes('\t')) || (fileIndents.every((g) => g === '') && fileUsesTabs(model));
  const combos: [number, number][] = [];
  if (findTabs && !fileTabs) for (const u of TAB_WIDTHS) combos.push([u, 1]);
  else if (!findTabs && fileTabs) for (const u of TAB_WIDTHS) combos.push([1, u]);
  else combos.push([4, 4]);
  let best: { findTab: number; fileTab: number; shift: number; votes: number } | undefined;
  for (const [findTab, fileTab] of combos) {
    const votes = new Map<number, number>();
    for (const [f, g] of matched) {
      const d = columns(g, fileTab) - columns(f, findTab);
      votes.set(d, (votes.get(d) ?? 0) + 1);
    }
    if (strict && votes.size > 1) continue;
    for (const [shift, n] of votes) {
      // More agreeing lines first; then a pure conversion (no shift); then the earlier (likelier) tab width.
      if (!best || n > best.votes || (n === best.votes && shift === 0 && best.shift !== 0)) {
        best = { findTab, fileTab, shift, votes: n };
      }
    }
  }
  if (!best) return undefined;
  const { findTab, fileTab, shift } = best;
  return (indent, fresh) => {
    const width = Math.max(0, columns(indent, findTab) + shift);
    if (fresh && fileTabs && width % fileTab !== 0) return AMBIGUOUS_INDENT;
    return fileTabs ? '\t'.repeat(Math.floor(width / fileTab)) + ' '.repeat(width % fileTab) : ' '.repeat(width);
  };
}

/** Width of an indentation string in columns, a tab counting `tab` columns. */
function columns(indent: string, tab: number): number {
  let w = 0;
  for (let i = 0; i < indent.length; i++) w += indent.charCodeAt(i) === 9 ? tab : 1;
  return w;
}

/** Whether the file indents with tabs more often than with spaces. */
const TABS = new WeakMap<TextModel, boolean>();

function fileUsesTabs(model: TextModel): boolean {
  const known = TABS.get(model);
  if (known !== undefined) return known;
  let tabs = 0;
  let spaces = 0;
  for (const s of lineKeys(model).indent) {
    if (s.startsWith('\t')) tabs++;
    else if (s.startsWith(' ')) spaces++;
  }
  TABS.set(model, tabs > spaces);
  return tabs > spaces;
}

/**
 * Whether (find indent, file indent) pairs of string lines differ in one way throughout: one prefix added
 * (or taken off) on every line, or tabs written as one width of spaces (or back) with no shift. A string's
 * indentation is its content, so only a copy of it moved whole, or its tabs expanded, is the same text.
 */
export function stringShiftFits(pairs: readonly (readonly [string, string, ...unknown[]])[]): boolean {
  const moved = pairs.filter(([f, g]) => f !== g);
  if (moved.length === 0) return true;
  const [f0, g0] = moved[0]!;
  const prefix = (f: string, g: string) =>
    g.endsWith(f)
      ? `+${g.slice(0, g.length - f.length)}`
      : f.endsWith(g)
        ? `-${f.slice(0, f.length - g.length)}`
        : undefined;
  const p0 = prefix(f0, g0);
  if (p0 !== undefined && pairs.every(([f, g]) => f === g || prefix(f, g) === p0)) return true;
  return TAB_WIDTHS.some((u) => pairs.every(([f, g]) => columns(f, u) === columns(g, u)));
}
