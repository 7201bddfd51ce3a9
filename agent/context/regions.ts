import { splitIdentifier } from './tokenize.js';

/**
 * Regions of a large file (hybrid packing: whole small files, verbatim regions of large ones): split
 * a file into whole blocks (top-level functions, classes, methods; at most MAX_CHUNK_LINES lines)
 * along indentation, score each block against the task, and keep the best ones as verbatim line ranges.
 */

/** Chunks longer than this are split again inside. */
export const MAX_CHUNK_LINES = 80;
const MIN_CHUNK_LINES = 3;

/** A 1-based inclusive line range of a file. */
export type LineRange = [number, number];

const CONTINUATION = /^(\}|\)|\]|else\b|elif\b|except\b|finally\b|catch\b|case\b|default\b|\.|\?|:|&&|\|\||\+|,)/;

/** A decorator or annotation line (`@property`, `@app.route("/")`, `@Override`), from its indentation on. */
const DECORATOR = /^@[A-Za-z_$][\w$.]*/;

function indentOf(line: string): number {
  let i = 0;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
  return i === line.length ? -1 : i;
}

/** Split lines[from..to] (0-based inclusive) into block ranges at the shallowest indentation. */
function splitBlock(lines: readonly string[], from: number, to: number, out: LineRange[]): void {
  if (to - from + 1 <= MAX_CHUNK_LINES) {
    out.push([from + 1, to + 1]);
    return;
  }
  // The shallowest indentation among the body decides where blocks start.
  let min = Infinity;
  for (let i = from + 1; i <= to; i++) {
    const ind = indentOf(lines[i] ?? '');
    if (ind >= 0 && ind < min) min = ind;
  }
  const starts: number[] = [from];
  for (let i = from + 1; i <= to; i++) {
    const line = lines[i] ?? '';
    if (indentOf(line) !== min || CONTINUATION.test(line.slice(min))) continue;
    // A decorator right above a line of its own indentation (the definition, or one more decorator)
    // starts no block: the definition below takes it in. Otherwise a one-line `@property` became
    // a piece of its own and was merged into the block above, away from the method it decorates.
    if (DECORATOR.test(line.slice(min)) && i < to && indentOf(lines[i + 1] ?? '') === min) continue;
    // Leading comments and decorators belong to the block below them.
    let s = i;
    while (
      s - 1 > starts[starts.length - 1]! &&
      /^\s*(\/\/|#|\*|\/\*|@)/.test(lines[s - 1] ?? '') &&
      indentOf(lines[s - 1] ?? '') === min
    )
      s--;
    if (s > starts[starts.length - 1]!) starts.push(s);
  }
  // Merge tiny pieces into their neighbours so a chunk is a meaningful unit.
  const pieces: LineRange[] = [];
  for (let k = 0; k < starts.length; k++) {
    const s = starts[k]!;
    const e = k + 1 < starts.length ? starts[k + 1]! - 1 : to;
    const last = pieces[pieces.length - 1];
    if (
      last &&
      e - last[0] + 1 <= MAX_CHUNK_LINES &&
      (e - s + 1 < MIN_CHUNK_LINES || last[1] - last[0] + 1 < MIN_CHUNK_LINES)
    )
      last[1] = e;
    else pieces.push([s, e]);
  }
  if (pieces.length === 1) {
    // No structure to follow (one huge statement or literal): cut at blank lines near the limit.
    for (let s = from; s <= to;) {
      let e = Math.min(to, s + MAX_CHUNK_LINES - 1);
      if (e < to)
        for (let j = e; j > s + MAX_CHUNK_LINES / 2; j--)
          if ((lines[j] ?? '').trim() === '') {
            e = j;
            break;
          }
      out.push([s + 1, e + 1]);
      s = e + 1;
    }
    return;
  }
  for (const [s, e] of pieces) {
    if (e - s + 1 <= MAX_CHUNK_LINES) out.push([s + 1, e + 1]);
    else splitBlock(lines, s, e, out);
  }
}

/**
 * Split a file into whole blocks of at most MAX_CHUNK_LINES lines, in file order, covering every line.
 * @param lines  the file split on '\n'
 */
export function chunkLines(lines: readonly string[]): LineRange[] {
  const out: LineRange[] = [];
  if (lines.length > 0) splitBlock(lines, 0, lines.length - 1, out);
  return out;
}

function isLower(c: number): boolean {
  return c >= 97 && c <= 122;
}
function isUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}
function isAlnum(c: number): boolean {
  return isLower(c) || isUpper(c) || (c >= 48 && c <= 57);
}

/**
 * Occurrences of a lowercase term as a code token in `text`: at an identifier start or a camelCase /
 * snake_case part boundary, and ending at one. Equivalent to counting `countTokens` matches for
 * ordinary identifiers, without tokenizing the file (this runs on every candidate file per task).
 */
function tokenOffsets(text: string, lower: string, term: string): number[] {
  const out: number[] = [];
  for (let p = lower.indexOf(term); p !== -1; p = lower.indexOf(term, p + 1)) {
    const before = p === 0 ? 32 : text.charCodeAt(p - 1);
    const first = text.charCodeAt(p);
    const startOk =
      !isAlnum(before) ||
      (isUpper(first) && !isUpper(before)) ||
      (isUpper(first) && isUpper(before) && isLower(text.charCodeAt(p + 1)));
    if (!startOk) continue;
    const after = text.charCodeAt(p + term.length);
    const last = text.charCodeAt(p + term.length - 1);
    const endOk =
      Number.isNaN(after) ||
      !isAlnum(after) ||
      (isUpper(after) && !isUpper(last)) ||
      (isUpper(after) && isLower(text.charCodeAt(p + term.length + 1)));
    if (endOk) out.push(p);
  }
  return out;
}

/**
 * For a short request, a term's count in a block saturates as in BM25 (k1 as in file ranking): one word
 * repeated through a block must not outscore a block holding two of the request's words. A long report
 * keeps 1 + ln tf: the word it repeats marks the code that handles the object it is about.
 */
const BLOCK_K1 = 1.2;

/**
 * Score each chunk against the task terms: Σ idf·tf·(k1 + 1)/(tf + k1) over terms present, or
 * Σ idf·(1 + ln tf) for a long report (see BLOCK_K1), plus a bonus for a chunk whose first lines
 * define a symbol the task names.
 *
 * @param idf        query term → inverse document frequency from the file ranking
 * @param longReport the task is a long issue report: counts grow as 1 + ln tf, and the bonus is also
 *                   given, per term, for a definition whose name holds the term as one
 *                   of its snake_case / camelCase parts (see `nameTerms`)
 */
export function scoreChunks(
  lines: readonly string[],
  chunks: readonly LineRange[],
  idf: ReadonlyMap<string, number>,
  defTerms: ReadonlySet<string>,
  longReport = false,
): number[] {
  const text = lines.join('\n');
  const lower = text.toLowerCase();
  const lineStart: number[] = [0];
  for (const l of lines) lineStart.push(lineStart[lineStart.length - 1]! + l.length + 1);
  // chunkOf(offset): chunks are in file order and cover every line, so binary search their start offsets.
  const starts = chunks.map(([s]) => lineStart[s - 1]!);
  const chunkOf = (offset: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const scores = chunks.map(() => 0);
  for (const [t, w] of idf) {
    const tf = new Map<number, number>();
    for (const off of tokenOffsets(text, lower, t)) {
      const c = chunkOf(off);
      tf.set(c, (tf.get(c) ?? 0) + 1);
    }
    for (const [c, n] of tf)
      scores[c]! += longReport ? w * (1 + Math.log(n)) : (w * n * (BLOCK_K1 + 1)) / (n + BLOCK_K1);
  }
  const defRes = [...defTerms].map((raw) => {
    const t = raw.replace(/\$/g, '\\$');
    return {
      raw,
      re: new RegExp(`(def|function|class|func|fn|type|interface)\\s+[^\\n]*?\\b${t}\\b|\\b${t}\\s*[=:(]`, 'i'),
    };
  });
  if (defRes.length > 0 || longReport) {
    chunks.forEach(([s, e], i) => {
      const head = lines.slice(s - 1, Math.min(e, s + 3)).join('\n');
      for (const { raw, re } of defRes) if (re.test(head)) scores[i]! += DEF_BONUS * (idf.get(raw) ?? 1);
      const name = longReport ? DEF_NAME.exec(head)?.[1] : undefined;
      for (const part of name ? nameTerms(name) : []) scores[i]! += DEF_BONUS * (idf.get(part) ?? 0);
    });
  }
  return scores;
}

/** A chunk whose first lines define a name the task says gets DEF_BONUS·idf of that term. */
const DEF_BONUS = 2;
/** The name a chunk's first lines define (Python, JS, Go, Rust, classes). */
const DEF_NAME = /(?:def|function|class|func|fn)\s+([\w$]+)/;

/**
 * The parts of a compound definition name, lowercased (`_print_MatrixElement` → print, matrix, element);
 * empty for a one-part name. In a long report they count as if the report named the definition: reports
 * name the objects involved, and the code handling them is often named after them (`_print_Product`).
 */
function nameTerms(name: string): string[] {
  const parts = new Set(splitIdentifier(name));
  return parts.size < 2 ? [] : [...parts];
}

/** A function header (Python, JS, Go, Rust, or a brace-opened signature); a class body is many units. */
const DEF_HEAD = /^\s*(?:async\s+)?(?:def|function|func|fn)\b|\)\s*(?::[^{]*)?\{\s*$/;

function firstCodeLine(lines: readonly string[], [a, b]: LineRange): number {
  for (let l = a; l <= b; l++) if ((lines[l - 1] ?? '').trim() !== '') return l;
  return a;
}

/**
 * Blocks that continue one definition: `cont[i]` is true when block i starts inside the body of a
 * definition that began in block i-1 or earlier (its first code line is indented deeper than that
 * definition's header), as happens when a long function is cut into several blocks. Headers are
 * kept on a stack, so a nested brace block (`if (…) {`, which matches a signature's shape) closing
 * does not close the function around it: before, most long JS and Go functions ended at their first
 * nested `if`.
 *
 * @param lines   the file split on '\n'
 * @param chunks  `chunkLines(lines)`
 * @returns one flag per chunk (the first is always false)
 */
export function continuations(lines: readonly string[], chunks: readonly LineRange[]): boolean[] {
  const out = chunks.map(() => false);
  // Indentations of the definition headers still open, outermost first, carried from block to block.
  const open: number[] = [];
  chunks.forEach((range, i) => {
    const first = firstCodeLine(lines, range);
    const indent = /^\s*/.exec(lines[first - 1] ?? '')![0].length;
    out[i] = i > 0 && open.length > 0 && indent > open[0]!;
    if (!out[i]) open.length = 0;
    for (let l = range[0]; l <= range[1]; l++) {
      const t = lines[l - 1] ?? '';
      if (t.trim() === '') continue;
      const ind = /^\s*/.exec(t)![0].length;
      // A closing bracket line ends nothing: the body's last line is still inside.
      if (!/^\s*[)\]}]/.test(t)) while (open.length > 0 && ind <= open[open.length - 1]!) open.pop();
      if (DEF_HEAD.test(t) && (open.length === 0 || ind > open[open.length - 1]!)) open.push(ind);
    }
  });
  return out;
}

const HEAD_MAX_LINES = 40;

/**
 * The leading block of imports, package clause and directives, as a 1-based inclusive line range;
 * null when there is none. It starts at the first import line, not at line 1 (a licence header or
 * module docstring above is neither where an edit goes nor what the imports mean), and holds the
 * comments between imports, lines continued after a backslash, and Rust's `mod x;` / `extern crate`.
 */
export function importHead(lines: readonly string[]): LineRange | null {
  let start = 0;
  let end = 0;
  let depth = 0;
  // A leading module docstring (Python `"""…"""`) is skipped whole: the imports follow it.
  let from = 0;
  while (from < lines.length && /^\s*(#.*)?$/.test(lines[from] ?? '')) from++;
  const doc = /^\s*[rRuUbB]?("{3}|'{3})/.exec(lines[from] ?? '');
  if (doc) {
    const quote = doc[1]!;
    const first = lines[from] ?? '';
    let close = first.slice(first.indexOf(quote) + 3).includes(quote) ? from : -1;
    for (let i = from + 1; close === -1 && i < Math.min(lines.length, from + HEAD_MAX_LINES); i++)
      if ((lines[i] ?? '').includes(quote)) close = i;
    if (close !== -1) from = close + 1;
  }
  for (let i = from; i < Math.min(lines.length, from + HEAD_MAX_LINES); i++) {
    const t = (lines[i] ?? '').trim();
    const isImport =
      /^(import\b|from\s+\S+\s+import\b|export\s+(\*|\{[^}]*\})\s+from\b|package\s+\w|(pub(\([\w:]+\))?\s+)?(use\s|mod\s+\w+\s*;)|extern\s+crate\s|require\(|const\s+\S+\s*=\s*require\(|var\s+\S+\s*=\s*require\(|#include|['"]use strict['"])/.test(
        t,
      );
    // A line ending in a backslash continues onto the next (`from ._compat import a, \` then `    b`).
    const continued = end === i && /\\\s*$/.test(lines[i - 1] ?? '');
    if (depth > 0 || isImport || continued) {
      for (const ch of t) depth += ch === '(' || ch === '{' ? 1 : ch === ')' || ch === '}' ? -1 : 0;
      depth = Math.max(0, depth);
      if (end === 0) start = i + 1;
      end = i + 1;
    } else if (t === '' || /^(\/\/|\/\*|\*|#|"""|''')/.test(t)) {
      continue;
    } else break;
  }
  return end === 0 ? null : [start, end];
}
