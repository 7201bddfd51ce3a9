/**
 * The line passes of the matcher cascade (match.ts), strict to loose: find located line by line, each pass
 * returning where every find line landed (`LineMatch`) and the find → file indentation relation learned from
 * the lines it quoted (code lines only where it also quotes string lines, whose indentation is content).
 */
import { buildIndentMap, stringShiftFits } from './indent.js';
import { fileLiterals } from './literal.js';
import type { MatchStrategy } from './match.js';
import type { LineMatch } from './render.js';
import { linesWithWord } from './substring.js';
import { contentKey, foldedKey, indentOf, lineKeys, nonWsLength, rstrip, squashKey, type TextModel } from './text.js';

/** Per-line trimming needs 2 non-blank lines or this many non-whitespace characters (a shorter single line is too easily found by trimming). */
const TRIM_PASS_MIN_CHARS = 20;

export interface LinePass {
  strategy: MatchStrategy;
  eligible?: (findLines: readonly string[]) => boolean;
  /** Lines where find's first line could start. */
  starts: (model: TextModel, findLines: readonly string[]) => readonly number[];
  match: (
    model: TextModel,
    findLines: readonly string[],
    replLines: readonly string[],
    start: number,
  ) => LineMatch | undefined;
}

/** A window of consecutive lines whose keys equal find's keys, mapped one to one. */
function windowMatch(keys: readonly string[], want: readonly string[], i: number): LineMatch | undefined {
  if (i + want.length > keys.length) return undefined;
  for (let j = 0; j < want.length; j++) if (keys[i + j] !== want[j]) return undefined;
  return { first: i, last: i + want.length - 1, map: want.map((_, j) => i + j) };
}

const byContentStart = (model: TextModel, fl: readonly string[]): readonly number[] => startLines(model, fl);

export const LINE_PASSES: readonly LinePass[] = [
  {
    strategy: 'trailing_whitespace',
    starts: byContentStart,
    match: (model, fl, _rl, i) => windowMatch(lineKeys(model).rstrip, fl.map(rstrip), i),
  },
  {
    strategy: 'unicode_folded',
    starts: byContentStart,
    match: (model, fl, _rl, i) => windowMatch(lineKeys(model).folded, fl.map(foldedKey), i),
  },
  {
    strategy: 'indent_relative',
    starts: byContentStart,
    match: (model, fl, rl, i) => reindented(model, fl, rl, i, true),
  },
  {
    strategy: 'trimmed_lines',
    starts: byContentStart,
    eligible: (fl) => fl.filter((l) => l.trim() !== '').length >= 2 || nonWsLength(fl.join('')) >= TRIM_PASS_MIN_CHARS,
    match: (model, fl, rl, i) => reindented(model, fl, rl, i, false),
  },
  {
    strategy: 'blank_lines_ignored',
    starts: byContentStart,
    eligible: (fl) => fl.filter((l) => l.trim() !== '').length >= 2,
    match: (model, fl, rl, i) => blankTolerant(model, fl, rl, i),
  },
  {
    strategy: 'inline_whitespace',
    starts: (model, fl) => linesWithWord(model, fl[0]!).filter((i) => squashKey(model.lines[i]!) === squashKey(fl[0]!)),
    eligible: (fl) => fl.length >= 2,
    match: (model, fl, rl, i) => {
      const keys = lineKeys(model);
      if (i + fl.length > model.lines.length) return undefined;
      const window = model.lines.slice(i, i + fl.length).map(squashKey);
      const m = windowMatch(window, fl.map(squashKey), 0);
      if (m) Object.assign(m, { first: i, last: i + fl.length - 1, map: fl.map((_, j) => i + j) });
      if (!m) return undefined;
      const seen = fl.flatMap((l, j): [string, string, number][] =>
        l.trim() === '' ? [] : [[indentOf(l), keys.indent[i + j]!, i + j]],
      );
      const pairs = codePairs(model, seen);
      if (!pairs) return undefined;
      const indent = buildIndentMap(model, pairs, rl.map(indentOf), false);
      // Wide or tab runs inside lines that differ from the file's: new lines may carry the same drift.
      const drift = fl.some(
        (l, j) =>
          l.trim() !== model.lines[i + j]!.trim() && WIDE_RUN.test(`${l.trim()}\n${model.lines[i + j]!.trim()}`),
      );
      if (!indent) return undefined;
      const unsureFrame = identity(seen) ? undefined : (frameUnsure(seen, rl) ?? inFileFrame(model, fl, rl, m.map));
      return { ...m, indent: identity(seen) ? undefined : indent, inlineDrift: drift, inlinePass: true, unsureFrame };
    },
  },
];

/** Lines where the first line of find could start: same content key (a superset for the trim passes). */
function startLines(model: TextModel, findLines: readonly string[]): readonly number[] {
  return lineKeys(model).byContent.get(contentKey(findLines[0]!)) ?? [];
}

/**
 * The (find indent, file indent) pairs the code's indentation relation is learned from: those of lines that
 * begin in code (a string's lines keep their own indentation, which need not follow the code's), or all of
 * them when every matched line begins inside a string. Takes (find indent, file indent, file line) triples.
 */
function codePairs(
  model: TextModel,
  seen: readonly (readonly [string, string, number])[],
): [string, string][] | undefined {
  // Lines the find quotes at the file's own indentation say the same in code and in strings.
  if (seen.every(([f, g]) => f === g)) return seen.map(([f, g]) => [f, g]);
  const literal = fileLiterals(model);
  const code = seen.filter(([, , at]) => !literal[at]);
  // A string's lines are its content: quoted at other indentation, they must differ by one added or removed
  // prefix, or one tab width, throughout (else they are other text, however alike once trimmed).
  if (!stringShiftFits(seen.filter(([, , at]) => literal[at]))) return undefined;
  return (code.length > 0 ? code : seen).map(([f, g]) => [f, g]);
}

function identity(pairs: readonly (readonly [string, string, ...unknown[]])[]): boolean {
  return pairs.every(([f, g]) => f === g);
}

/** Same-length line window with equal content; indentation mapped strictly (P5) or loosely (P6). */
function reindented(
  model: TextModel,
  fl: readonly string[],
  rl: readonly string[],
  i: number,
  strict: boolean,
): LineMatch | undefined {
  const keys = lineKeys(model);
  if (i + fl.length > keys.content.length) return undefined;
  const seen: [string, string, number][] = [];
  for (let j = 0; j < fl.length; j++) {
    if (keys.content[i + j] !== contentKey(fl[j]!)) return undefined;
    if (keys.content[i + j] !== '') seen.push([indentOf(fl[j]!), keys.indent[i + j]!, i + j]);
  }
  const pairs = codePairs(model, seen);
  if (!pairs) return undefined;
  const stringMoved = !identity(seen) && seen.some(([f, g, at]) => f !== g && fileLiterals(model)[at]);
  const indent = buildIndentMap(model, pairs, rl.map(indentOf), strict);
  if (!indent) return undefined;
  return {
    first: i,
    last: i + fl.length - 1,
    map: fl.map((_, j) => i + j),
    stringMoved,
    indent: identity(seen) ? undefined : indent,
    unsureFrame: identity(seen)
      ? undefined
      : (frameUnsure(seen, rl) ??
        inFileFrame(
          model,
          fl,
          rl,
          fl.map((_, j) => i + j),
        )),
  };
}

/**
 * Replace's first non-blank line written exactly as the first matched file line, whose find counterpart is
 * indented otherwise (and whose indentation the relation would move): replace was written in the file's
 * frame, not find's, so moving its new lines by the find → file relation would indent them twice. Returns
 * that 1-based replace line, or undefined.
 */
function inFileFrame(
  model: TextModel,
  fl: readonly string[],
  rl: readonly string[],
  map: readonly number[],
): number | undefined {
  const j = fl.findIndex((l, n) => l.trim() !== '' && map[n]! >= 0);
  const k = rl.findIndex((l) => l.trim() !== '');
  if (j < 0 || k < 0) return undefined;
  const line = model.lines[map[j]!]!;
  if (rl[k] !== line || indentOf(line) === indentOf(fl[j]!)) return undefined;
  const pairs: [string, string][] = [];
  map.forEach((at, n) => {
    if (at >= 0 && fl[n]!.trim() !== '') pairs.push([indentOf(fl[n]!), indentOf(model.lines[at]!)]);
  });
  return staysPut(pairs, indentOf(line)) ? undefined : k + 1;
}

/**
 * A find of one non-blank line that sits at another indentation in the file says nothing about which frame
 * replace was written in: when replace's first non-blank line (the counterpart of find's line) is indented
 * like the file's line and not like find's, replace may already be in the file's frame, and moving it by the
 * find → file shift would indent it twice. Returns that 1-based replace line, or undefined. `pairs`: (find
 * indentation, file indentation, ...) of all find's non-blank lines, string lines included (a find of one
 * code line among string lines says which frame replace is in through them).
 */
function frameUnsure(
  pairs: readonly (readonly [string, string, ...unknown[]])[],
  rl: readonly string[],
): number | undefined {
  if (pairs.length !== 1 || pairs[0]![0] === pairs[0]![1]) return undefined;
  const [findIndent, fileIndent] = pairs[0]!;
  const k = rl.findIndex((l) => l.trim() !== '');
  if (k < 0 || indentOf(rl[k]!) !== fileIndent || fileIndent === findIndent) return undefined;
  return staysPut(pairs, fileIndent) ? undefined : k + 1;
}

/** Whether the relation keeps indentation `indent` as it is (a pair maps it to itself): moving cannot harm. */
function staysPut(pairs: readonly (readonly [string, string, ...unknown[]])[], indent: string): boolean {
  return pairs.some(([f, g]) => f === indent && g === indent);
}

/**
 * Non-blank lines equal in order, any blank lines between them in the file or in find. Blank file lines the
 * find left out are put back into the find the renderer sees (they may be kept, never removed).
 */
function blankTolerant(
  model: TextModel,
  fl: readonly string[],
  rl: readonly string[],
  i: number,
): LineMatch | undefined {
  const keys = lineKeys(model);
  const seen: [string, string, number][] = [];
  const lines: string[] = [];
  const map: number[] = [];
  const fileOnly = new Set<number>();
  let k = i;
  for (const line of fl) {
    const key = contentKey(line);
    if (key === '') {
      // A blank find line stands for a blank file line right here, or for nothing.
      if (k < keys.content.length && keys.content[k] === '' && k > i) {
        lines.push(line);
        map.push(k++);
      } else {
        lines.push(line);
        map.push(-1);
      }
      continue;
    }
    while (k < keys.content.length && keys.content[k] === '') {
      fileOnly.add(lines.length);
      lines.push(model.lines[k]!);
      map.push(k++);
    }
    if (k >= keys.content.length || keys.content[k] !== key) return undefined;
    seen.push([indentOf(line), keys.indent[k]!, k]);
    lines.push(line);
    map.push(k++);
  }
  const pairs = codePairs(model, seen);
  if (!pairs) return undefined;
  const indent = buildIndentMap(model, pairs, rl.map(indentOf), false);
  if (!indent) return undefined;
  const unsureFrame = identity(seen) ? undefined : (frameUnsure(seen, rl) ?? inFileFrame(model, lines, rl, map));
  return { first: i, last: k - 1, map, lines, fileOnly, indent: identity(seen) ? undefined : indent, unsureFrame };
}

const WIDE_RUN = /\S(?:\t| {2,})\S/;
