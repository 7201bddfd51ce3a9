import { anchorScores, shareWithinDefinitions } from './block-scores.js';
import { closeGaps, mergeRanges, rangesHeader, rangesText, wholeFileText } from './pack-text.js';
import { chunkLines, continuations, importHead, scoreChunks, type LineRange } from './regions.js';

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
  /**
   * The file's value is under the relevance floor (see `rankAndPack`): packed like any other file, but
   * left out of the result when the packer first reached it past FLOOR_FROM_CHARS; its room stays empty.
   */
  belowFloor?: boolean;
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
   * generics in `_client.py`"): like a pinned file, it may take the whole budget. Short requests only.
   */
  namedFirst?: boolean;
  /** whole files only, in rank order, skipping what does not fit (the baselines) */
  wholeOnly?: boolean;
  maxFiles?: number;
}

/** A file is sent whole when it takes at most this share of the budget. */
const WHOLE_SHARE = 0.5;
/**
 * A file other than the first-ranked (or a pinned one) goes whole only up to this size (about 5k
 * tokens), whatever the budget: the cost of a whole file grows with its size, the chance that it
 * holds an edit does not, and its edits sit mostly in its matching blocks.
 */
const WHOLE_MAX_CHARS = 20_000;
/**
 * For a long issue report, a module of at most WHOLE_MODULE_CHARS may take WHOLE_MODULE_SHARE of a small
 * budget: a report's words spread over many blocks, and whole, the module shows every function around the fault.
 */
const WHOLE_MODULE_CHARS = 12_000;
const WHOLE_MODULE_SHARE = 0.65;
/** Excerpts of one file take at most this share of the budget. */
const REGION_SHARE = 0.5;
/**
 * For a long issue report, excerpts of one file leave at least OTHER_FILES_CHARS to other files (taking
 * no less than MIN_REGION_SHARE): the file a report points at is less certain than a short request's.
 */
const OTHER_FILES_CHARS = 12_000;
const MIN_REGION_SHARE = 0.25;
/**
 * For a short request, excerpts of the first-ranked file may take up to this share of the budget: its
 * edits cluster there, often on lines that share no word with the request.
 */
const TOP_REGION_SHARE = 0.75;
/**
 * From GROWTH_MIN_BUDGET characters, a short request's first-ranked file grows: once one of its blocks
 * is taken, the blocks beside it are offered at GROWTH_SHARE of its value, and so on outwards. Its
 * edits cluster next to what matched; below that budget breadth is worth more.
 */
const GROWTH_SHARE = 0.5;
const GROWTH_MIN_BUDGET = 40_000;
/**
 * The first-ranked file leads when it scores at least LEAD times the second (or nothing else matched):
 * then its excerpts grow at every budget, and from GROWTH_MIN_BUDGET at DEEP_GROWTH_SHARE, since the
 * neighbours of a clear leader's blocks are likelier edits than other files' blocks.
 */
const LEAD = 1.3;
const DEEP_GROWTH_SHARE = 0.85;
/** Value of a file's import head relative to the file's score: import lines change often. */
const HEAD_VALUE = 0.8;

/** A unit's priority is value / (chars/1000)^DENSITY: mostly value, a little value per character. */
const DENSITY = 0.2;

function costFactor(chars: number): number {
  return Math.max(0.2, chars / 1000) ** DENSITY;
}
/**
 * A unit's value is the file's score times a rank prior 1/(1 + rank/RANK_DECAY): the chance that a file
 * is edited falls with its rank faster than ranking scores do, which are often flat across the top 20.
 */
const RANK_DECAY = 10;

/**
 * The rank prior of the file at 0-based position `order` of the ranking: 1/(1 + order/RANK_DECAY), 1 for
 * the first file. A unit's value is its file's score times this prior (see `offerUnits`).
 */
export function rankPrior(order: number): number {
  return 1 / (1 + order / RANK_DECAY);
}
/**
 * Files the packer reaches within the first FLOOR_FROM_CHARS characters are sent whatever their value;
 * past them, a file below the relevance floor is not (`PackCandidate.belowFloor`). Below this budget
 * every file reached is worth its room; past it the tail of a ranking is not.
 */
const FLOOR_FROM_CHARS = 60_000;
/** Blocks of a large file that match no query term are offered at this share of the file's value. */
const UNMATCHED_BLOCK = 0.05;
/** Excerpts of one file at most this many lines apart are joined: edits often sit between two relevant blocks. */
const GAP_LINES = 25;
/** Blocks of a file that may go whole rank just below the whole file. */
const FALLBACK_COST = 1.0001;
/** A pinned file's units outrank every ranked unit: their value is multiplied by this per pin level. */
const PIN_VALUE = 1e6;
interface FileState {
  c: PackCandidate;
  lines: string[];
  /** offsets[i] = characters of lines[0..i) each with its '\n' */
  offsets: number[];
  ranges: LineRange[];
  whole: boolean;
  chars: number;
  /** characters packed before the file got its first unit (-1 while it has none) */
  reachedAt: number;
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
      reachedAt: -1,
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
    // A file below the floor reached late is left out and its room is not refilled: the units that
    // would refill it (lesser blocks, more unmatched files) are worth about as little.
    if (f.c.belowFloor && f.reachedAt > FLOOR_FROM_CHARS) continue;
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
 * A block's range widened by the blank lines just above it (at most BLANKS_ABOVE: PEP 8 puts two before
 * a top-level definition): an insertion above a definition is anchored there, for a character or two.
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
    // they come right after it and are taken when it no longer fits in what is left.
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
    if (f.chars === 0) {
      taken++;
      f.reachedAt = used;
    }
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
