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
    // a piece of its own and was merged into the block above, away from the method it decorates
    // (hunk recall @60k: held-out commits 0.857 → 0.859, issue reports 0.674 → 0.678; @18k equal).
    // Comment lines, measured the same way, still start blocks: held-out commits +0.005 @18k but
    // -0.004 @60k, issue reports -0.008 @18k and -0.012 @60k.
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
 * For a short request, a term's count in a block saturates as in BM25 (k1 1.2, the value file
 * ranking uses): a block scores Σ idf·tf·(k1 + 1)/(tf + k1) over the task's terms. With
 * Σ idf·(1 + ln tf) the score kept growing with the count, so one common word repeated through a
 * long block (in fzf's 87,000-character `terminal.go`, one 80-line block says `preview` 43 times)
 * outscored a block holding two of the request's words once each. Block length is not normalised:
 * blocks are at most MAX_CHUNK_LINES lines, and the packer already prices each unit by its size.
 *
 * A long issue report keeps 1 + ln tf. Its many words spread over many blocks, and a word the report
 * repeats, counted again and again in one block, marks the code that handles the object the report
 * is about; saturated, blocks that pick up many of the report's incidental words overtake it.
 *
 * Measured, hunk recall @18k / @60k, on two commit sets mined with `npm run bench:mine` and never
 * tuned on (180 commits each; A: aider, httpx, gitleaks, click, fd, cobra; B: typer, starlette,
 * fzf, yargs, axios, ripgrep) and on the 240 public commits: A 0.715 / 0.851 → 0.718 / 0.850,
 * B 0.604 / 0.829 → 0.619 / 0.829, public 0.702 / 0.877 → 0.707 / 0.878. k1 0.8 and 2 gave
 * 0.715 and 0.717 on A, 0.610 and 0.613 on B @18k. Saturation for long reports too cost the 125
 * held-out issue reports (SWE-bench Lite: sympy, pytest, sphinx, pylint, xarray, seaborn)
 * 0.564 → 0.544 @18k (0.683 → 0.685 @60k). Not kept: BM25's length normalisation on top (b 0.75:
 * A 0.719 / 0.852, B 0.619 / 0.829, public 0.694 / 0.871; b 0.3: 0.722 / 0.850, 0.617 / 0.831,
 * 0.696 / 0.878); blocks of 40, 60 or 120 lines instead of 80 (A 0.711 to 0.723, B 0.580 to
 * 0.588 @18k); the share of the task's terms a block holds as a factor (to the power 0.5: A 0.706,
 * B 0.600 @18k; 1: 0.690, 0.583).
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
 * empty for a one-part name, whose match the whole-name bonus already counts.
 *
 * Why the parts count (`scoreChunks` with `longReport`): in a long issue report, a definition whose name holds a report word as a part is
 * scored as if it were named by it: reports name the objects involved (`Product(1, (n, 1, oo))`,
 * `MatrixSymbol`), and the code that handles them is often a method named after them (`_print_Product`,
 * `visit_Call`, `_eval_rewrite_as_Heaviside`). Measured on 125 held-out issue reports (SWE-bench
 * Lite: sympy 77, pytest, sphinx, pylint, xarray, seaborn), file / hunk recall @18k 0.856 / 0.483 →
 * 0.848 / 0.545, @60k 0.840 / 0.648 → 0.840 / 0.665 (half the bonus 0.499 @18k, 1.5× the bonus 0.543);
 * public reports unchanged. Not for short requests: on 270 held-out real commits it cost 0.008 hunk
 * recall @18k (a subject's few words match many names in passing).
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
 * nested `if`. Measured on real commits, hunk recall @18k/@60k: held-out projects 0.674/0.841 →
 * 0.6745/0.841, public set 0.699/0.862 → 0.700/0.863, held-out issue reports unchanged.
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
