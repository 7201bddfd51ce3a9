import { locateEvidence, type FileEvidence } from './evidence.js';
import { issueText, readIssue, type IssueEvidence } from './issue.js';
import { packContext, rankPrior, type PackCandidate } from './pack.js';
import { namesIn } from './path-prior.js';
import {
  LONG_TASK_CHARS,
  rankFiles,
  type RankDoc,
  type RankedFile,
  type RankOptions,
  type ScoreParts,
} from './rank.js';
import { cachedTf } from './score.js';

/**
 * Choosing what is sent for one task: rank the files, read the best candidates, and pack them under
 * the budget.
 */

/**
 * Whether the request names exactly one project file by its file name (see `namesFile`) and that
 * file is the first candidate, not pinned: then the request is about that file (`PackOptions.namedFirst`).
 * A base name shared by several paths (`models.py` in two folders) names none of them for sure.
 *
 * @param first  the first file offered to the packer
 * @param paths  every project path the ranking saw
 */
function namesOnlyFirst(first: RankedFile | undefined, paths: readonly string[], task: string): boolean {
  if (!first || first.parts.pinned > 0) return false;
  const text = task.toLowerCase();
  let named = 0;
  for (let i = 0; i < paths.length; i++) if (namesIn(paths[i]!, text) && ++named > 1) return false;
  return named === 1 && namesIn(first.path, text);
}

/**
 * Paths of documents holding the most of these lowercased tokens (at least min(3, tokens) of them),
 * most first: where a quoted message can be. Uses the index only; reads no file.
 */
function pathsWithTokens(
  docs: readonly RankDoc[],
  tokens: readonly string[],
  tfCache?: Map<string, number[]>,
): string[] {
  const need = Math.min(3, tokens.length);
  const count = new Uint8Array(docs.length);
  // Rare words say more about where a message is than common ones: docs are ordered by Σ idf.
  const weight = new Float64Array(docs.length);
  const indexed = docs.map((d) => d.doc);
  for (const t of tokens.slice(0, 12)) {
    const tf = cachedTf(tfCache, indexed, t);
    let df = 0;
    for (let i = 0; i < tf.length; i++) if (tf[i]! > 0) df++;
    const idf = Math.log(1 + docs.length / (df + 1));
    for (let i = 0; i < tf.length; i++)
      if (tf[i]! > 0) {
        count[i]!++;
        weight[i]! += idf;
      }
  }
  const hits: number[] = [];
  for (let i = 0; i < docs.length; i++) if (count[i]! >= need) hits.push(i);
  hits.sort((a, b) => weight[b]! - weight[a]! || a - b);
  return hits.map((i) => docs[i]!.path);
}

/** One file of the selection (contract in the brief; `parts` is an addition: why it scored). */
export interface ContextFile {
  /** project-relative, '/' separators */
  path: string;
  score: number;
  /** characters of `text` */
  chars: number;
  /** 1-based inclusive line ranges sent, or null for the whole file */
  ranges: [number, number][] | null;
  /**
   * exactly what goes in the prompt for this file: one `## <path> (…)` header line, then the verbatim
   * text in a code fence, or per range a `[lines a-b]` marker line and the range's lines in a fence
   */
  text: string;
  parts?: ScoreParts;
}

/** Options of `rankAndPack`. */
export interface SelectOptions extends RankOptions {
  /** `readIssue(issueText(raw))` when the caller has read it already (its mentions were pins) */
  issue?: IssueEvidence;
  /** characters available for file texts (the outline's share already taken off), > 0 */
  budgetChars: number;
  /** the file's current text, or null when it cannot be read; called only for files considered */
  readText: (path: string) => string | null;
  /** called on every text before it is measured: returns the text to send (e.g. secrets redacted) */
  transform?: (path: string, text: string) => string;
  /** send whole files only (the whole-file baselines of bench/context-baselines.ts) */
  wholeOnly?: boolean;
  /** at most this many files (for benchmark baselines); default unlimited */
  maxFiles?: number;
  /**
   * Files the person pinned (`--files`, `@path`), sent first: whole when they fit in the budget,
   * else their best regions. Project-relative paths; unknown paths are ignored.
   */
  pinned?: readonly string[];
  /** Files kept from the previous task of a session: sent after `pinned`, before ranked files. */
  kept?: readonly string[];
}

/** Result of `rankAndPack`: files in send order and the full ranking behind them. */
export interface ContextSelection {
  files: ContextFile[];
  ranked: RankedFile[];
  idf: Map<string, number>;
  /** Σ files[].chars, always ≤ budgetChars */
  usedChars: number;
}

/** How many ranked files are read and offered to the packer. */
const MAX_CANDIDATES = 60;
/**
 * A ranked file scoring under this share of the best file's score is not offered: it shares little
 * more than a common word with the request, and at a large budget it would be sent for that alone.
 */
const FILE_FLOOR = 0.05;
/**
 * A matched file whose value (its score times the packer's rank prior, `rankPrior`) is under this share
 * of the best file's score is below the floor: the packer sends it only when it reaches it early (see
 * `PackCandidate.belowFloor`). Far down a ranking, a file sharing a word or two with the request is
 * rarely the one edited, and at a large budget it would be sent for that alone.
 */
const VALUE_FLOOR = 0.07;

/**
 * Files that matched nothing, in the order they fill budget left over: source files before tests
 * and docs, files near the best match before distant ones, then larger files (more often the ones
 * edited: BugLocator). Each gets a small synthetic score below every match so
 * it only takes what the matched files leave.
 */
function fillOrder(ranked: readonly RankedFile[]): RankedFile[] {
  const zero = ranked.filter((r) => r.score <= 0 && r.parts.pinned === 0);
  const floor = ranked.reduce((m, r) => (r.score > 0 ? Math.min(m, r.score) : m), 1);
  const topDir = (ranked[0]?.score ?? 0) > 0 ? ranked[0]!.path.slice(0, ranked[0]!.path.lastIndexOf('/') + 1) : '';
  // Folders shared with the best match, and depth: counted on the path, without splitting it.
  const slashes = (p: string, end: number): number => {
    let n = 0;
    for (let at = p.indexOf('/'); at !== -1 && at < end; at = p.indexOf('/', at + 1)) n++;
    return n;
  };
  const shared = (p: string): number => {
    let i = 0;
    while (i < topDir.length && i < p.length && topDir[i] === p[i]) i++;
    return slashes(p, i);
  };
  const keys = zero.map((r) => [r.parts.prior, shared(r.path), -(slashes(r.path, r.path.length) + 1), r.doc.sizeBytes]);
  const order = zero.map((_, i) => i);
  order.sort((x, y) => {
    const a = keys[x]!;
    const b = keys[y]!;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return b[i]! - a[i]!;
    return x - y;
  });
  return order.map((k, i) => ({ ...zero[k]!, score: (floor * 1e-3) / (1 + i) }));
}

/**
 * Choose what is sent for one task: rank, read the best MAX_CANDIDATES files scoring at least
 * FILE_FLOOR of the best (then unmatched fill files while little is on offer, unless the request names
 * its file), and pack them with `packContext`: files up to half the budget whole (past the
 * first-ranked, at most 20,000 characters), larger ones as verbatim blocks, all units competing in one
 * greedy pass. For a short request the first-ranked file's excerpts also grow into the blocks beside
 * them (at budgets of 40,000 or more, or when it clearly leads the ranking), and a first-ranked file
 * the request names by its file name, alone, may take the whole budget. A budget is a ceiling, not a
 * target: what stays under the floor is not sent however much room is left, and past the first
 * 60,000 characters packed neither is a file whose score, discounted by its rank, is under VALUE_FLOOR
 * of the best (its room stays empty).
 *
 * @param raw   the person's request (an issue report is read through `issueText`)
 * @param docs  candidate text files with their index entries
 * @returns files in send order with `usedChars ≤ budgetChars` always
 * @throws never: an empty selection is a valid result
 */
export function rankAndPack(raw: string, docs: readonly RankDoc[], options: SelectOptions): ContextSelection {
  const budget = Math.max(0, Math.floor(options.budgetChars));
  // An issue report's template headings, environment details and package lists say nothing of where.
  const task = options.plainBm25 ? raw : issueText(raw);
  const issue = options.issue ?? readIssue(task);
  // A quoted message's words are mostly query terms too: look each term up in the index once.
  const tfCache = new Map<string, number[]>();
  const docPaths = docs.map((d) => d.path);
  const evidence = options.plainBm25
    ? new Map<string, FileEvidence>()
    : locateEvidence({
        evidence: issue,
        paths: docPaths,
        readText: options.readText,
        pathsWithTokens: (tokens) => pathsWithTokens(docs, tokens, tfCache),
        definers: (name) => docs.filter((d) => d.doc.defs.includes(name)).map((d) => d.path),
      });
  const { ranked, idf, defTerms } = rankFiles(task, docs, { ...options, evidence, tfCache });
  // Pins go first, in the order given: explicit pins (2), then files kept from the last task (1).
  const pinLevel = new Map<string, number>();
  for (const p of options.kept ?? []) pinLevel.set(p, 1);
  for (const p of options.pinned ?? []) pinLevel.set(p, 2);
  if (pinLevel.size > 0) {
    const order = [...(options.pinned ?? []), ...(options.kept ?? [])];
    const pinnedRanked = order.flatMap((p) => ranked.filter((r) => r.path === p && r.parts.pinned === 0));
    for (const r of pinnedRanked) r.parts.pinned = pinLevel.get(r.path)!;
    const rest = ranked.filter((r) => r.parts.pinned === 0);
    ranked.splice(0, ranked.length, ...pinnedRanked, ...rest);
  }
  // Send less when less is relevant: a file far below the best match is not offered at all.
  const top = ranked.find((r) => r.parts.pinned === 0)?.score ?? 0;
  const floor = options.plainBm25 || options.wholeOnly ? 0 : FILE_FLOOR * top;
  const matched = ranked.filter((r) => r.parts.pinned > 0 || (r.score > 0 && r.score >= floor));
  const longReport = task.length >= LONG_TASK_CHARS;
  const namedFirst = !longReport && !options.plainBm25 && namesOnlyFirst(matched[0], docPaths, task);
  // Plain BM25 is a benchmark baseline: it sends what matched and nothing else. A request that writes
  // its file's name (`retry.ts`, not the word "coverage" that names `scripts/coverage`) is about that
  // file: files that match none of its words are not sent either.
  const anyScore = matched.length > 0;
  const writesName = namedFirst && matched[0]!.path.slice(matched[0]!.path.lastIndexOf('/') + 1).includes('.');
  const fill = options.plainBm25 || writesName ? [] : fillOrder(ranked);
  const order = anyScore ? [...matched, ...fill] : fill;
  const candidates: PackCandidate[] = [];
  const byPath = new Map<string, RankedFile>();
  const limit = options.wholeOnly ? 400 : MAX_CANDIDATES;
  let offered = 0;
  for (const [i, r] of order.entries()) {
    if (candidates.length >= limit && r.parts.pinned === 0) break;
    // Unmatched files only fill what the matched ones leave: twice the budget offered is plenty.
    if (anyScore && i >= matched.length && offered >= 2 * budget) break;
    const raw = options.readText(r.path);
    if (raw === null) continue;
    const text = options.transform ? options.transform(r.path, raw) : raw;
    const ev = evidence.get(r.path);
    // Unmatched fill files are not judged by the floor: they keep the room the matched files leave.
    const below =
      r.parts.pinned === 0 && i < matched.length && r.score * rankPrior(candidates.length) < VALUE_FLOOR * top;
    candidates.push({
      path: r.path,
      score: r.score,
      text,
      anchors: ev?.anchors,
      focus: ev?.focus,
      pinned: r.parts.pinned,
      belowFloor: below && !options.plainBm25 && !options.wholeOnly,
    });
    byPath.set(r.path, r);
    offered += text.length;
  }
  const packed = packContext(candidates, {
    budgetChars: budget,
    idf,
    defTerms,
    wholeOnly: options.wholeOnly,
    maxFiles: options.maxFiles,
    longReport,
    namedFirst: namedFirst && candidates[0]?.path === matched[0]?.path,
  });
  const files: ContextFile[] = packed.map((p) => ({
    path: p.path,
    score: p.score,
    chars: p.text.length,
    ranges: p.ranges,
    text: p.text,
    parts: byPath.get(p.path)?.parts,
  }));
  return { files, ranked, idf, usedChars: files.reduce((a, f) => a + f.chars, 0) };
}
