import { chunkLines, continuations, scoreChunks, type LineRange } from './regions.js';

/**
 * Budget packing: turn a ranking into prompt text under a character budget.
 * Small files go whole; large files are offered as units (their import head and their blocks),
 * and all units of all candidate files compete in one greedy pass by value, so the best block of
 * the sixth file can beat the tenth block of the first. A unit's value is the file's score times
 * the block's relevance relative to the file's best block and a rank prior, divided by a mild cost
 * term (hybrid packing, made global and cost-aware). A file small enough to
 * go whole also offers its blocks as a fallback, and nearby excerpts of one file are joined. At large
 * budgets, and whenever the first-ranked file clearly leads the ranking, that file's excerpts grow
 * outwards into neighbouring blocks as they are taken.
 */

/** A ranked file offered to the packer. */
export interface PackCandidate {
  path: string;
  score: number;
  /** the text to send (already transformed, e.g. secrets redacted) */
  text: string;
  /** lines the task's evidence points at (a literal found, a frame, a named definition), weight 0..1 */
  anchors?: readonly { line: number; weight: number }[];
  /** functions located by the evidence: blocks that call them, or that they call, are worth sending */
  focus?: readonly string[];
  /** 2 pinned by the person, 1 kept from the previous task: packed before every ranked file */
  pinned?: number;
}

/** One packed file: `ranges` null = whole file; `text` is exactly what is sent. */
export interface PackedFile {
  path: string;
  score: number;
  ranges: LineRange[] | null;
  text: string;
}

/** Options of `packContext`. */
export interface PackOptions {
  budgetChars: number;
  /** query term → idf, for scoring blocks */
  idf: ReadonlyMap<string, number>;
  /** query terms that name a defined symbol */
  defTerms: ReadonlySet<string>;
  /** the task is a long issue report rather than a short request (mid-size modules may go whole) */
  longReport?: boolean;
  /**
   * The request names the first candidate, and no other file, by its file name ("add parameters to
   * generics in `_client.py`"): like a pinned file, it may take the whole budget, whole when it fits
   * and as excerpts up to the budget otherwise, instead of TOP_REGION_SHARE. Measured at 60,000 on
   * real commits: held-out projects 0.878 → 0.879 (an httpx task naming a 68,000-character file,
   * 0.5 → 0.7 hunk recall), the public set, vite and issue reports unchanged; about a dozen of the
   * 550 subjects name a code file, most already at full recall. Only for short requests: a report's
   * traceback names many files.
   */
  namedFirst?: boolean;
  /** whole files only, in rank order, skipping what does not fit (the baselines) */
  wholeOnly?: boolean;
  maxFiles?: number;
}

/** A file is sent whole when it takes at most this share of the budget. */
const WHOLE_SHARE = 0.5;
/**
 * A file other than the first-ranked (or a pinned one) goes whole only up to WHOLE_MAX_CHARS
 * (about 5k tokens), whatever the budget; a larger one goes as excerpts. Half of a large budget
 * would let one second-ranked file of 30,000 characters crowd out three or four others, though it
 * may not be edited at all and its edits sit mostly in its matching blocks: the cost of a whole file
 * grows with its size, the chance that it holds an edit does not. The cap binds only where half the
 * budget is more (budgets above 40,000). Measured at 60,000, hunk recall (file recall): held-out
 * real commits 0.859 (0.919) → 0.863 (0.919), vite alone 0.714 (0.767) → 0.764 (0.817), public
 * commits 0.868 (0.903) → 0.864 (0.911), held-out issue reports 0.678 (0.832) → 0.682 (0.848),
 * public ones unchanged; caps from 12,000 to 24,000 measured alike on real commits (file recall
 * up 0.01 to 0.02, hunk recall within ±0.004 except vite +0.04 to +0.057).
 */
const WHOLE_MAX_CHARS = 20_000;
/**
 * For a long issue report (`PackOptions.longReport`), a module of at most WHOLE_MODULE_CHARS (about
 * 3k tokens) may take up to WHOLE_MODULE_SHARE of a small budget: a report's many words spread
 * over the blocks, so excerpts of a mid-size module miss the fault more often, and whole it shows
 * every function around it (18,000: +0.02 hunk recall on held-out issue reports, +0.10 on the
 * public ones; a plain 0.65 share cost 0.04 file recall at 60,000, where such files fit anyway).
 * Short requests keep excerpts: on real commits the same rule cost 0.018 hunk recall at 18,000.
 */
const WHOLE_MODULE_CHARS = 12_000;
const WHOLE_MODULE_SHARE = 0.65;
/** Excerpts of one file take at most this share of the budget. */
const REGION_SHARE = 0.5;
/**
 * For a long issue report, excerpts of one file also leave at least OTHER_FILES_CHARS (about 3k
 * tokens) to other files, taking no less than MIN_REGION_SHARE: the file a report points at is
 * less certain than a short request's, so the second and third candidates need room (18,000:
 * +0.04 file recall on held-out issue reports for -0.007 hunk recall, public ones unchanged; a flat
 * 0.35 share cost 0.03 hunk recall at 60,000, where this rule leaves the half share).
 */
const OTHER_FILES_CHARS = 12_000;
const MIN_REGION_SHARE = 0.25;
/**
 * For a short request, excerpts of the first-ranked file may take up to TOP_REGION_SHARE of the
 * budget (other files keep REGION_SHARE): a short request's edits cluster in its top file, and the
 * lines it changes often share no word with the request, so more of that file beats the best block
 * of one more file. Measured on real commits, hunk recall @18k/@60k: held-out projects 0.659/0.842 →
 * 0.674/0.841, public set 0.693/0.863 → 0.699/0.862; 0.65 and 0.9 alike, the same share for the top
 * two files no better, the top file whole up to this share worse (public 0.685 @18k).
 */
const TOP_REGION_SHARE = 0.75;
/**
 * For a short request and a budget of at least GROWTH_MIN_BUDGET characters, the excerpts of the
 * first-ranked file grow into their neighbouring blocks: once a block of that file is taken, the
 * blocks just above and below it are offered again at GROWTH_SHARE of its value, and so on outwards
 * (a block two steps away at a quarter). A short request's edits cluster in its top file, next to
 * what matched: measured at 60,000 on real commits, the unsent blocks of the first-ranked file
 * right beside a sent one held 0.44 gold hunks per 1,000 lines, those of other files 0.01 to 0.06.
 * Hunk recall @60k: held-out projects 0.863 → 0.868 (three tasks gained, none lost), public set
 * 0.864 → 0.866 (three flask tasks moved: +0.75, −0.21, −0.04), vite 0.764 unchanged; the share
 * 0.85 reached 0.877 on the held-out projects but cost the public set 0.005 (a small second file
 * pushed out), growth one step deep alike at 0.868, growth for the top two files 0.866. Below
 * 40,000 the budget is better spent on breadth (18,000: −0.005 to −0.008 hunk recall at shares 0.3
 * to 0.7), unless the first-ranked file leads (see LEAD); a long issue report's top file is less
 * certain (held-out reports −0.004 @60k).
 */
const GROWTH_SHARE = 0.5;
const GROWTH_MIN_BUDGET = 40_000;
/**
 * The first-ranked file leads when its score is at least LEAD times the second-ranked file's (or
 * no other file was ranked). Then the request is most likely about that file, and its excerpts
 * grow at every budget, and at budgets of GROWTH_MIN_BUDGET or more at DEEP_GROWTH_SHARE: the
 * unsent neighbours of a clear leader's sent blocks are likelier edits than other files' blocks.
 * Growth share 0.85 for every short request, against 0.5, split by the lead on the 550 real
 * commits of three sets at 60,000 (sum of per-task hunk-recall changes): lead below 1.05 (61
 * tasks) +0.00, 1.05–1.2 (133) −2.10, 1.2–1.3 (57) +0.11, 1.3–2 (164) +0.78, 2 or more (135)
 * +1.00. Measured hunk recall @18k/@60k (held-out projects, public set, vite):
 *
 * | rule | held-out | public | vite |
 * |---|---|---|---|
 * | before: growth 0.5 from 40,000 only | 0.704 / 0.872 | 0.697 / 0.876 | 0.632 / 0.764 |
 * | deep growth 0.85 for every request | 0.704 / 0.880 | 0.697 / 0.867 | 0.632 / 0.756 |
 * | LEAD 1.1, 60k only | 0.704 / 0.879 | 0.697 / 0.867 | 0.632 / 0.764 |
 * | LEAD 1.2, 60k only | 0.704 / 0.879 | 0.697 / 0.876 | 0.632 / 0.764 |
 * | LEAD 1.3, 60k only | 0.704 / 0.878 | 0.697 / 0.877 | 0.632 / 0.764 |
 * | LEAD 1.5, 60k only | 0.704 / 0.877 | 0.697 / 0.876 | 0.632 / 0.764 |
 * | LEAD 2, 60k only | 0.704 / 0.876 | 0.697 / 0.876 | 0.632 / 0.764 |
 * | LEAD 1.3, 18k growth 0.5 only | 0.710 / 0.872 | 0.702 / 0.876 | 0.632 / 0.764 |
 * | LEAD 1.3, both (kept) | 0.710 / 0.878 | 0.702 / 0.877 | 0.632 / 0.764 |
 *
 * Below 40,000 a leader's share 0.3 gave 0.706 / 0.703 (held-out / public @18k), 0.7 gave 0.704 /
 * 0.697, LEAD 1.2 0.708 / 0.701; ungated growth there had cost 0.005 to 0.008. Deep growth at
 * DEEP_GROWTH_SHARE 0.7 gave 0.873 on the held-out projects @60k, 1.0 cost the public set 0.023.
 * Issue reports keep no growth (`longReport`), so their figures are unchanged. On 418 commits mined
 * later (`npm run bench:mine`) and never diagnosed, switching the lead off changes nothing (0.580 /
 * 0.779 either way): the gain above is on the sets it was chosen on.
 */
const LEAD = 1.3;
const DEEP_GROWTH_SHARE = 0.85;
/** Value of a file's import head relative to the file's score: import lines change often (0.55 → 0.8: +0.007 @18k). */
const HEAD_VALUE = 0.8;

/**
 * A unit's priority is value / (chars/1000)^DENSITY: mostly value, a little value per character.
 * Measured on the public set: 0 (value only) 0.647/0.822 hunk recall @18k/@60k, 0.2 0.653/0.833,
 * 0.6 0.602/0.767, 1 (pure density) 0.510/0.591.
 */
const DENSITY = 0.2;

function costFactor(chars: number): number {
  return Math.max(0.2, chars / 1000) ** DENSITY;
}
const HEAD_MAX_LINES = 40;
/**
 * A unit's value is the file's score times a rank prior 1/(1 + rank/RANK_DECAY): the chance that a
 * file is edited falls with its rank faster than ranking scores do, which are often flat across the
 * top 20 (measured on the public set: no prior 0.679/0.834 hunk recall @18k/@60k; 5: 0.674/0.849;
 * 10: 0.677/0.848; 15: 0.682/0.846).
 */
const RANK_DECAY = 10;
/**
 * Blocks of a large file that match no query term are offered at this share of the file's value:
 * edits spread through the top files beyond the matching blocks (+0.002 @60k measured; 0.15 worse).
 */
const UNMATCHED_BLOCK = 0.05;
/**
 * Excerpts of one file separated by at most this many lines are joined: edits often sit between
 * two relevant blocks, and one contiguous excerpt reads better (measured 5: +0.001, 25: +0.005
 * hunk recall @18k and +0.003 @60k, 40 no better).
 */
const GAP_LINES = 25;
/** Blocks of a file that may go whole rank just below the whole file. */
const FALLBACK_COST = 1.0001;
/** A pinned file's units outrank every ranked unit: their value is multiplied by this per pin level. */
const PIN_VALUE = 1e6;
/** Blocks inside a located definition's body score this share of an anchor; bodies longer than this many lines are cut. */
const BODY_WEIGHT = 0.6;
const MAX_BODY_LINES = 240;
/** A block calling a located function, or defining one it calls, scores this share of an anchor. */
const NEIGHBOUR_BLOCK = 0.3;

/**
 * Raise the scores of blocks the evidence points at: a block holding an anchor line gets the
 * anchor's weight times (best block + 1), so a found error message or a frame's function outranks
 * blocks that merely share words; the callers and callees of located functions get a share of that.
 */
function anchorScores(
  lines: readonly string[],
  chunks: readonly LineRange[],
  scores: number[],
  c: PackCandidate,
): number[] {
  if (!c.anchors?.length) return scores;
  const top = Math.max(0, ...scores) + 1;
  const out = [...scores];
  const chunkOf = (line: number): number => chunks.findIndex(([a, b]) => a <= line && line <= b);
  const located = new Set<number>();
  for (const a of c.anchors) {
    const i = chunkOf(a.line);
    if (i === -1) continue;
    out[i]! += a.weight * top;
    if (a.weight < 1) continue;
    located.add(i);
    // An anchor on a definition covers the definition's body: the blocks below it that are
    // indented deeper (a long function split into several blocks), up to MAX_BODY_LINES.
    const indent = /^\s*/.exec(lines[a.line - 1] ?? '')![0].length;
    if (!/^\s*(async\s+)?(def|class|function|func|fn)\b|\)\s*(:[^{]*)?\{\s*$/.test(lines[a.line - 1] ?? '')) continue;
    let end = a.line;
    for (let l = a.line + 1; l <= Math.min(lines.length, a.line + MAX_BODY_LINES); l++) {
      const t = lines[l - 1] ?? '';
      if (t.trim() === '') continue;
      if (/^\s*/.exec(t)![0].length <= indent && !/^\s*[)\]}]/.test(t)) break;
      end = l;
    }
    for (let j = i + 1; j < chunks.length && chunks[j]![0] <= end; j++) out[j]! += BODY_WEIGHT * a.weight * top;
  }
  const focus = (c.focus ?? []).filter((f) => /^[\w$]+$/.test(f));
  const callees = new Set<string>();
  for (const i of located) {
    const [a, b] = chunks[i]!;
    for (const m of lines
      .slice(a - 1, b)
      .join('\n')
      .matchAll(/\b([A-Za-z_$][\w$]*)\s*\(/g))
      callees.add(m[1]!);
  }
  chunks.forEach(([a, b], i) => {
    if (located.has(i)) return;
    const head = lines.slice(a - 1, Math.min(b, a + 2)).join('\n');
    const body = lines.slice(a - 1, b).join('\n');
    const definesCallee = [...callees].some((n) =>
      new RegExp(`(def|function|func|fn)\\s+${n.replace(/\$/g, '\\$')}\\b`).test(head),
    );
    const callsFocus = focus.some((n) => new RegExp(`\\b${n.replace(/\$/g, '\\$')}\\s*\\(`).test(body));
    if (definesCallee || callsFocus) out[i]! += NEIGHBOUR_BLOCK * top;
  });
  return out;
}

/**
 * A long definition cut into several blocks is one unit of meaning: the edit is often a few lines
 * below the block that matched (its signature and docstring carry the words). Each block of a
 * definition gets CONTINUATION_SHARE of the best block of that definition, when that is more.
 * Measured on held-out issue reports: 0.5 +0.02 file recall @18k, hunk recall unchanged, real
 * commits unchanged; 0.7 and 0.9 traded recall at 60,000 for recall at 18,000.
 */
const CONTINUATION_SHARE = 0.5;

function shareWithinDefinitions(chunks: readonly LineRange[], cont: readonly boolean[], scores: number[]): number[] {
  const out = [...scores];
  for (let i = 0; i < chunks.length;) {
    let j = i + 1;
    while (j < chunks.length && cont[j]) j++;
    if (j - i > 1) {
      const best = Math.max(...scores.slice(i, j));
      for (let k = i; k < j; k++) out[k] = Math.max(out[k]!, CONTINUATION_SHARE * best);
    }
    i = j;
  }
  return out;
}

/** A backtick fence longer than any backtick run inside `text` (CommonMark), at least three. */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`{3,}/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** `text` inside a fence that cannot occur in it, ending with a newline. */
function fenced(text: string): string {
  const body = text.endsWith('\n') ? text : `${text}\n`;
  const fence = fenceFor(body);
  return `${fence}\n${body}${fence}\n`;
}

/**
 * The prompt block of a whole file: one `## <path> (whole file)` header line, then the verbatim
 * text in a code fence. This is exactly what is sent (and counted against the budget) for the file.
 */
export function wholeFileText(path: string, text: string): string {
  return `## ${path} (whole file)\n${fenced(text)}`;
}

function rangesHeader(path: string, ranges: readonly LineRange[], lineCount: number): string {
  return `## ${path} (excerpts: lines ${ranges.map(([a, b]) => `${a}-${b}`).join(', ')} of ${lineCount})\n`;
}

/**
 * The prompt block of a file sent in parts: one `## <path> (excerpts: …)` header line, then per
 * range a `[lines a-b]` marker line outside the fence and the raw lines inside it (no per-line
 * numbers, so a model can copy code exactly as it is on disk).
 */
export function rangesText(path: string, lines: readonly string[], ranges: readonly LineRange[]): string {
  let out = rangesHeader(path, ranges, lines.length);
  // Every line keeps its own newline: a range ending on a blank line must not lose it.
  for (const [a, b] of ranges) out += `[lines ${a}-${b}]\n${fenced(`${lines.slice(a - 1, b).join('\n')}\n`)}`;
  return out;
}

/** Merge overlapping and touching ranges, sorted. */
export function mergeRanges(ranges: readonly LineRange[]): LineRange[] {
  const sorted = [...ranges].sort((x, y) => x[0] - y[0]);
  const out: LineRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}

/**
 * The leading block of imports, package clause and directives, as a 1-based inclusive line range;
 * null when there is none. The range starts at the first import line, not at line 1: a licence
 * header or module docstring above the imports is neither where an edit goes nor what the imports
 * mean, and in a project whose every file opens with a 13-line licence it was most of what the
 * import head of each file cost (real commits, hunk recall @18k: held-out projects 0.682 → 0.686,
 * cobra alone 0.680 → 0.712; public projects and issue reports unchanged within 0.001). Comments
 * and blank lines between imports stay inside the range, and so do the lines an import continues
 * onto after a trailing backslash (old Python style; before, the head ended at the first one:
 * held-out projects 0.691 → 0.694 @18k, the rest unchanged). Rust's head holds `mod x;` and
 * `extern crate` declarations beside its `use` lines (fd 0.830 → 0.835 hunk recall @18k, file recall
 * 0.900 → 0.921; the rest unchanged).
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

/** Join sorted, disjoint ranges separated by at most `gap` lines (1-based inclusive line ranges). */
export function closeGaps(ranges: readonly LineRange[], gap: number): LineRange[] {
  const out: LineRange[] = [];
  for (const r of ranges) {
    const last = out[out.length - 1];
    if (last && r[0] - last[1] - 1 <= gap) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}

interface FileState {
  c: PackCandidate;
  lines: string[];
  /** offsets[i] = characters of lines[0..i) each with its '\n' */
  offsets: number[];
  ranges: LineRange[];
  whole: boolean;
  chars: number;
  order: number;
  /** the text holds a run of three backticks: fences are longer than the minimal 3 */
  hasFence: boolean;
  /** the file's block units, in line order */
  blocks: Unit[];
}

function excerptChars(f: FileState, ranges: readonly LineRange[]): number {
  let n = rangesHeader(f.c.path, ranges, f.lines.length).length;
  // Fences are at least 3 backticks; a longer one (a file with ``` inside) is re-measured exactly below.
  for (const [a, b] of ranges) n += `[lines ${a}-${b}]\n`.length + rangeChars(f, [a, b]) + 8;
  if (f.hasFence) n = rangesText(f.c.path, f.lines, ranges).length;
  return n;
}

interface Unit {
  file: FileState;
  value: number;
  range: LineRange | null;
  /** for a block unit, its index in the file's `blocks` */
  block?: number;
}

/**
 * Pack ranked files under the budget.
 *
 * @param candidates  files in rank order with their text to send
 * @returns packed files in rank order; Σ text.length ≤ budgetChars always
 * @throws never
 */
export function packContext(candidates: readonly PackCandidate[], options: PackOptions): PackedFile[] {
  const budget = Math.max(0, Math.floor(options.budgetChars));
  const files: FileState[] = candidates.map((c, order) => {
    const lines = c.text.split('\n');
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    const offsets = [0];
    for (const l of lines) offsets.push(offsets[offsets.length - 1]! + l.length + 1);
    return {
      c,
      lines,
      offsets,
      ranges: [],
      whole: false,
      chars: 0,
      order,
      hasFence: c.text.includes('```'),
      blocks: [],
    };
  });
  if (options.wholeOnly) return packWholeOnly(files, budget, options.maxFiles);
  const units: Unit[] = [];
  for (const f of files) offerUnits(f, budget, options, units);
  // One greedy pass by priority. Spreading the budget over more files (a per-file decay) was
  // measured: it raised file recall but lowered hunk recall, since edits cluster in the top files.
  units.sort((a, b) => b.value - a.value || a.file.order - b.file.order || (a.range?.[0] ?? 0) - (b.range?.[0] ?? 0));
  // A long report leaves room for other files: excerpts of one file leave OTHER_FILES_CHARS.
  const share = options.longReport
    ? Math.min(REGION_SHARE, Math.max(MIN_REGION_SHARE, 1 - OTHER_FILES_CHARS / Math.max(1, budget)))
    : REGION_SHARE;
  const first = files[0]?.c.score ?? 0;
  const leads = first > 0 && first >= LEAD * (files[1]?.c.score ?? 0);
  const large = budget >= GROWTH_MIN_BUDGET;
  const growth = options.longReport ? 0 : leads && large ? DEEP_GROWTH_SHARE : leads || large ? GROWTH_SHARE : 0;
  const topShare = options.longReport ? share : options.namedFirst ? 1 : TOP_REGION_SHARE;
  takeGreedily(units, budget, options.maxFiles, share, topShare, growth);
  const out: PackedFile[] = [];
  for (const f of files) {
    if (f.whole) out.push({ path: f.c.path, score: f.c.score, ranges: null, text: wholeFileText(f.c.path, f.c.text) });
    else if (f.ranges.length > 0)
      out.push({ path: f.c.path, score: f.c.score, ranges: f.ranges, text: rangesText(f.c.path, f.lines, f.ranges) });
  }
  return out;
}

/** Whole files in rank order, each that still fits, at most `maxFiles` (the whole-file baselines). */
function packWholeOnly(files: readonly FileState[], budget: number, maxFiles: number | undefined): PackedFile[] {
  let used = 0;
  const out: PackedFile[] = [];
  for (const f of files) {
    if (maxFiles !== undefined && out.length >= maxFiles) break;
    const text = wholeFileText(f.c.path, f.c.text);
    if (used + text.length > budget) continue;
    used += text.length;
    out.push({ path: f.c.path, score: f.c.score, ranges: null, text });
  }
  return out;
}

/** Characters of a file's lines a..b (1-based, inclusive), each with its newline. */
function rangeChars(f: FileState, [a, b]: LineRange): number {
  return f.offsets[b]! - f.offsets[a - 1]!;
}

/**
 * A block's range widened by the blank lines just above it (at most BLANKS_ABOVE). Blocks start at
 * a definition and the blank lines before it close the previous block, yet that is where an
 * insertion above the definition (a new function, a decorator) is anchored: sent with the block,
 * the whole place of the edit is in view, for a character or two. One blank line measured on real
 * commits, hunk recall @18k/@60k: held-out projects 0.674/0.841 → 0.679/0.845 (4 tasks gained at
 * each budget, none lost), public set 0.699/0.862 → 0.701/0.863; held-out issue reports
 * 0.556/0.684 → 0.563/0.684, public ones unchanged. Two, for the two blank lines PEP 8 puts
 * before a top-level `def` or `class` (a new class inserted between them was missed): held-out
 * projects 0.689 → 0.691 @18k, the rest unchanged.
 */
function withBlankAbove(f: FileState, [a, b]: LineRange): LineRange {
  let s = a;
  while (s > 1 && a - s < BLANKS_ABOVE && (f.lines[s - 2] ?? '').trim() === '') s--;
  return [s, b];
}
const BLANKS_ABOVE = 2;

/**
 * Push the units one file offers onto `units`: the whole file when it fits its share of the budget,
 * each block valued by its score against the file's best, and for a file too large to go whole its
 * import head (or, when nothing matched, its first block).
 */
function offerUnits(f: FileState, budget: number, options: PackOptions, units: Unit[]): void {
  const pin = f.c.pinned ?? 0;
  // A pinned file that matched nothing still has value: the person asked for it.
  const value = (Math.max(f.c.score, pin > 0 ? 1 : 0) / (1 + f.order / RANK_DECAY)) * PIN_VALUE ** pin;
  const wholeChars = wholeFileText(f.c.path, f.c.text).length;
  const fitsWhole =
    ((pin > 0 || (f.order === 0 && options.namedFirst === true)) && wholeChars <= budget) ||
    (wholeChars <= WHOLE_SHARE * budget && (f.order === 0 || wholeChars <= WHOLE_MAX_CHARS)) ||
    (options.longReport === true && wholeChars <= WHOLE_MODULE_CHARS && wholeChars <= WHOLE_MODULE_SHARE * budget);
  if (fitsWhole) units.push({ file: f, value: value / costFactor(wholeChars), range: null });
  const chunks = chunkLines(f.lines);
  const scores = shareWithinDefinitions(
    chunks,
    continuations(f.lines, chunks),
    anchorScores(f.lines, chunks, scoreChunks(f.lines, chunks, options.idf, options.defTerms, options.longReport), f.c),
  );
  const best = Math.max(0, ...scores);
  chunks.forEach((range, i) => {
    const s = scores[i]!;
    // A file that may go whole offers its blocks too, as a fallback: priced like the whole file,
    // they come right after it and are taken when it no longer fits in what is left
    // (+0.019 hunk recall @18k measured; before, such a file was dropped entirely).
    const cost = fitsWhole ? costFactor(wholeChars) * FALLBACK_COST : costFactor(rangeChars(f, range));
    const unit: Unit = {
      file: f,
      value: (value * (s > 0 ? s / best : UNMATCHED_BLOCK)) / cost,
      range: withBlankAbove(f, range),
      block: i,
    };
    f.blocks.push(unit);
    units.push(unit);
  });
  if (fitsWhole) return;
  const head = importHead(f.lines);
  if (head) {
    const range = withBlankAbove(f, head);
    units.push({ file: f, value: (value * HEAD_VALUE) / costFactor(rangeChars(f, range)), range });
  } else if (best === 0 && chunks[0])
    units.push({ file: f, value: (value * HEAD_VALUE) / costFactor(rangeChars(f, chunks[0])), range: chunks[0] });
}

/**
 * Take units in the given (priority) order while they fit: a whole file, or a block merged into the
 * file's ranges (gaps of GAP_LINES closed) while the excerpt stays within its share of the budget
 * (`topShare` for the first-ranked file, `share` for the others, all of it for a pinned file).
 * With a `growth` share above 0, each block taken from the first-ranked file offers its two
 * neighbouring blocks again at that share of its value (see GROWTH_SHARE and LEAD); they join the
 * order where that value puts them.
 * Records the choice in each file's `whole`, `ranges` and `chars`; at most `maxFiles` files get anything.
 */
function takeGreedily(
  units: readonly Unit[],
  budget: number,
  maxFiles: number | undefined,
  share: number,
  topShare: number,
  growth: number,
): void {
  let used = 0;
  let taken = 0;
  // Neighbours offered by growth, kept sorted by ascending value: the best is last.
  const grown: Unit[] = [];
  // Blocks that have offered their neighbours. Units come in non-increasing value, so a block's
  // first take offers the most; a block taken again (offered back by its own neighbour) would offer
  // less and, at a share near 1, re-offer its neighbours again and again (exponential work).
  const spread = new Set<Unit>();
  let at = 0;
  for (;;) {
    const best = grown[grown.length - 1];
    const u = best && (at >= units.length || best.value > units[at]!.value) ? grown.pop()! : units[at++];
    if (!u || budget - used < 60) break;
    const f = u.file;
    if (f.whole) continue;
    if (maxFiles !== undefined && f.chars === 0 && taken >= maxFiles) continue;
    let next: number;
    let ranges: LineRange[] = f.ranges;
    if (u.range === null) {
      next = wholeFileText(f.c.path, f.c.text).length;
    } else {
      ranges = closeGaps(mergeRanges([...f.ranges, u.range]), GAP_LINES);
      next = excerptChars(f, ranges);
      if (next > ((f.c.pinned ?? 0) > 0 ? 1 : f.order === 0 ? topShare : share) * budget) continue;
    }
    if (used - f.chars + next > budget) continue;
    if (f.chars === 0) taken++;
    used += next - f.chars;
    f.chars = next;
    if (u.range === null) f.whole = true;
    else f.ranges = ranges;
    const i = u.block;
    if (growth > 0 && i !== undefined && f.order === 0 && !f.c.pinned && !spread.has(f.blocks[i]!)) {
      spread.add(f.blocks[i]!);
      const value = growth * u.value;
      for (const n of [f.blocks[i - 1], f.blocks[i + 1]]) {
        if (!n || n.value >= value) continue;
        let k = grown.findIndex((g) => g.value > value);
        if (k === -1) k = grown.length;
        grown.splice(k, 0, { ...n, value });
      }
    }
  }
}
