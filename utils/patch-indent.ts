/**
 * Re-indentation of a replacement for the indentation-tolerant passes: the model's `find` and `replace`
 * share one indentation frame (shifted, dedented, or tabs where the file has spaces); the file has another.
 * An `IndentMap` learns the find→file correspondence from the matched lines and moves every replacement
 * line into the file's frame (Aider's `replace_part_with_missing_leading_whitespace`, Gemini CLI's
 * `applyIndentation`; research edit-matching.md §6.3 P5/P6).
 */
import { indentWidth, type TextModel, lineKeys } from './patch-text.js';

/** Find-indent → file-indent correspondence plus a linear fit for indents the find never used. */
export interface IndentMap {
  /** Exact find-indent strings seen on matched lines, mapped to the file's indent string. */
  readonly pairs: ReadonlyMap<string, string>;
  /** file width = offset + scale × find width (columns, tab = 4). */
  readonly scale: number;
  readonly offset: number;
  /** Write new indentation with tabs (the file's style around the match). */
  readonly tabs: boolean;
}

/**
 * Build the map from matched (find indent, file indent) pairs.
 * @param strict  true (indent_relative pass): every pair must agree with one function that is one-to-one and
 *                linear with a positive scale, else `undefined` (no match). false (trimmed_lines pass): the
 *                first pair of each find indent wins and the fit comes from the first pair alone.
 */
export function buildIndentMap(
  model: TextModel,
  matched: readonly (readonly [string, string])[],
  replaceIndents: readonly string[],
  strict: boolean,
): IndentMap | undefined {
  const pairs = new Map<string, string>();
  const reverse = new Map<string, string>();
  for (const [f, g] of matched) {
    const known = pairs.get(f);
    if (known === undefined) {
      if (strict && reverse.has(g) && reverse.get(g) !== f) return undefined;
      pairs.set(f, g);
      reverse.set(g, f);
    } else if (known !== g && strict) {
      return undefined;
    }
  }
  const entries = [...pairs].map(([f, g]) => [indentWidth(f), indentWidth(g)] as const).sort((a, b) => a[0] - b[0]);
  if (entries.length === 0) return { pairs, scale: 1, offset: 0, tabs: fileUsesTabs(model, []) };
  const first = entries[0]!;
  const last = entries[entries.length - 1]!;
  let scale: number;
  if (strict && last[0] > first[0]) {
    scale = (last[1] - first[1]) / (last[0] - first[0]);
    if (!(scale > 0)) return undefined;
    for (const [fw, gw] of entries) if (Math.abs(first[1] + scale * (fw - first[0]) - gw) > 1e-9) return undefined;
  } else {
    scale = unitRatio(model, [...pairs.keys(), ...replaceIndents], [...pairs.values()]);
  }
  const anchor = strict ? first : ([indentWidth(matched[0]![0]), indentWidth(matched[0]![1])] as const);
  return { pairs, scale, offset: anchor[1] - scale * anchor[0], tabs: fileUsesTabs(model, [...pairs.values()]) };
}

/** Re-indent one replacement line into the file's frame. Blank lines are kept as written. */
export function reindentLine(map: IndentMap, line: string): string {
  if (line.trim() === '') return line;
  let i = 0;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
  const indent = line.slice(0, i);
  const known = map.pairs.get(indent);
  if (known !== undefined) return known + line.slice(i);
  const width = Math.max(0, Math.round(map.offset + map.scale * indentWidth(indent)));
  const text = map.tabs ? '\t'.repeat(Math.floor(width / 4)) + ' '.repeat(width % 4) : ' '.repeat(width);
  return text + line.slice(i);
}

/** Ratio of the file's indent unit to the find's when only one level was matched (tabs vs spaces). */
function unitRatio(model: TextModel, findIndents: readonly string[], fileIndents: readonly string[]): number {
  const findTabs = findIndents.some((s) => s.includes('\t'));
  const fileTabs = fileIndents.some((s) => s.includes('\t')) || (fileIndents.every((s) => s === '') && fileUsesTabs(model, []));
  if (findTabs === fileTabs) return 1;
  if (findTabs) {
    const keys = lineKeys(model);
    return spaceUnit(keys.indent.filter((_, i) => keys.content[i] !== '')) / 4;
  }
  return 4 / spaceUnit(findIndents);
}

/** The most common positive step between successive space indents (2, 4, ...), default 4. */
function spaceUnit(indents: readonly string[]): number {
  const counts = new Map<number, number>();
  let prev = -1;
  for (const s of indents) {
    if (s.includes('\t')) continue;
    const w = s.length;
    if (prev >= 0 && w > prev && w - prev <= 8) counts.set(w - prev, (counts.get(w - prev) ?? 0) + 1);
    prev = w;
  }
  let best = 4;
  let bestCount = 0;
  for (const [step, count] of counts) if (count > bestCount || (count === bestCount && step < best)) [best, bestCount] = [step, count];
  return best;
}

/** Whether new indentation near the match should use tabs: the matched file indents say so, else the file does. */
function fileUsesTabs(model: TextModel, fileIndents: readonly string[]): boolean {
  if (fileIndents.some((s) => s.includes('\t'))) return true;
  if (fileIndents.some((s) => s.length > 0)) return false;
  let tabs = 0;
  let spaces = 0;
  for (const s of lineKeys(model).indent) {
    if (s.startsWith('\t')) tabs++;
    else if (s.startsWith(' ')) spaces++;
  }
  return tabs > spaces;
}
