import { tokenizeQuery, type QueryTerm } from './tokenize.js';
import type { IndexedDoc } from './search-index.js';
import { bm25Scores, cachedTf, commitScopes, maxOf, memoize, pathScores, scopeScores, symbolScores } from './score.js';
import type { FileEvidence } from './evidence.js';
import { issueTitle } from './issue.js';
import { pathPriorFor } from './path-prior.js';
import { reportTerms } from './report.js';

/**
 * File ranking for context selection. The score of a file is bm25/max + W_PATH·path/max + W_SYM·symbol/max,
 * plus W_SCOPE when its path names the scope of a commit subject (`fix(worker): …`), times a prior that
 * demotes tests, fixtures and docs unless the task is about them, plus a small share of the top score for
 * files the top files import and for files that import the top files.
 */

/** A file as ranking sees it: its path and its index entry. */
export interface RankDoc {
  path: string;
  doc: IndexedDoc;
}

/** Why a file scored what it did; each part is normalised to 0..1 before weighting. */
export interface ScoreParts {
  content: number;
  path: number;
  symbol: number;
  /** multiplier from the path prior (1, 0.3 docs/examples/tooling, 0.15 tests/fixtures) */
  prior: number;
  /** bonus for being imported by a top file */
  neighbour: number;
  /** places the task points at: stack frames, error messages found verbatim, dotted module names (0..1) */
  evidence: number;
  /** 1 when the path names the scope of the commit subject (`fix(worker): …`, `walk: …`), else 0 */
  scope: number;
  /** 2 pinned by the person (`--files`, `@path`), 1 kept from the previous task, 0 ranked */
  pinned: number;
}

/** One ranked file, best first. */
export interface RankedFile {
  path: string;
  score: number;
  parts: ScoreParts;
  doc: IndexedDoc;
}

/** Everything the packer needs to know about the query. */
export interface RankResult {
  ranked: RankedFile[];
  /** query term → BM25 idf over the project (used again to score regions of large files) */
  idf: Map<string, number>;
  /** query terms that name a defined symbol in some file */
  defTerms: Set<string>;
  terms: QueryTerm[];
}

/** Tuning knobs; defaults are the measured ones. `importsOf` resolves a file's imports to paths. */
export interface RankOptions {
  /** project paths a file imports (called for the top few files only) */
  importsOf?: (path: string) => string[];
  /** disable the structural signals (path, symbols, prior, neighbours): plain BM25, for benchmarks */
  plainBm25?: boolean;
  /** evidence resolved against the project (see `locateEvidence`), per path */
  evidence?: ReadonlyMap<string, FileEvidence>;
  /** term → frequency per doc (in `docs` order), shared by the calls of one selection */
  tfCache?: Map<string, number[]>;
}

const W_PATH = 0.5;
const W_SYM = 0.7;
/** A path that names the commit's scope earns a second path share: the scope is the author's word for where. */
const W_SCOPE = W_PATH;
const W_NEIGHBOUR = 0.15;
const TOP_FOR_NEIGHBOURS = 5;
/**
 * The neighbour bonus of a file scoring `base` (prior `prior`) next to a top file scoring `top`:
 * W_NEIGHBOUR of it, never lifting the file to `floor`, the last top rank's score.
 */
function neighbourShare(top: number, prior: number, base: number, floor: number): number {
  return Math.min(W_NEIGHBOUR * top * prior, Math.max(0, floor * 0.999 - base));
}

/**
 * Files that import one of the TOP_FOR_NEIGHBOURS best files get the neighbour share too (the package's
 * `__init__.py` or `index.ts` that re-exports what a commit adds, the caller of a changed signature).
 * Only files holding the imported module's name can import it; the IMPORTERS_CHECKED best of those are read.
 */
const IMPORTERS_CHECKED = 15;
/**
 * A symbol match is scaled against a full-strength one (a plain word at the top idf), not only the best
 * present, so a lone match of a common word ("check") is not a full hit.
 */
const SYM_DEN = 1;
/**
 * Evidence (a frame, a literal found, a module named) counts like a full content match: a place the
 * task points at is at least as strong as every word it shares with a file.
 */
const W_EVIDENCE = 1;
/**
 * In a long task that carries code evidence (frames, quoted messages, code-like names), prose words
 * count at this share: the evidence says where, the prose mostly says why.
 */
const PROSE_WEIGHT = 0.5;
/** A task this long (in characters) is an issue report rather than a short request. */
export const LONG_TASK_CHARS = 300;

/**
 * Rank project files for a task.
 *
 * @param task  the person's request (free text)
 * @param docs  candidate text files with their index entries
 * @returns every candidate, best first (ties keep input order), with score parts, plus query data
 * @throws never
 */
export function rankFiles(task: string, docs: readonly RankDoc[], options: RankOptions = {}): RankResult {
  const evidence = options.evidence;
  // A guessed base form (`verbBases`) counts only when some file uses it: a made-up term would
  // otherwise carry the top idf of a word found nowhere and shift every normalisation.
  const indexed = docs.map((d) => d.doc);
  const prose = weightTerms(task, options.plainBm25 === true, evidence !== undefined && evidence.size > 0).filter(
    (t) => !t.variant || (!options.plainBm25 && cachedTf(options.tfCache, indexed, t.term).some((n) => n > 0)),
  );
  // A long report's title says what is wrong and where: its words outweigh the body's.
  const terms = options.plainBm25 ? prose : reportTerms(task, prose, docs);
  const { idf, bm25 } = bm25Scores(terms, docs, options.tfCache);
  if (options.plainBm25) {
    const ranked = docs.map((d, i) => ({
      path: d.path,
      score: bm25[i]!,
      parts: { content: bm25[i]!, path: 0, symbol: 0, prior: 1, neighbour: 0, evidence: 0, scope: 0, pinned: 0 },
      doc: d.doc,
    }));
    return { ranked: stableSort(ranked), idf, defTerms: new Set(), terms };
  }
  const maxIdf = maxOf([...idf.values()]) || 1;
  const defTerms = new Set<string>();
  const pathScore = pathScores(task, docs, terms, idf, bm25);
  const symScore = symbolScores(docs, terms, idf, defTerms);
  const scope = scopeScores(docs, commitScopes(task));
  const [mb, mp, ms] = [maxOf(bm25) || 1, maxOf(pathScore) || 1, Math.max(maxOf(symScore), SYM_DEN * maxIdf) || 1];
  const priorOf = pathPriorFor(issueTitle(task));
  const ranked: RankedFile[] = docs.map((d, i) => {
    const ev = evidence?.get(d.path);
    const parts: ScoreParts = {
      content: bm25[i]! / mb,
      path: pathScore[i]! / mp,
      symbol: symScore[i]! / ms,
      prior: priorOf(d.path),
      neighbour: 0,
      evidence: ev ? evidenceScore(ev) : 0,
      scope: scope[i]!,
      pinned: 0,
    };
    const sum = parts.content + W_PATH * parts.path + W_SYM * parts.symbol + W_EVIDENCE * parts.evidence;
    return {
      path: d.path,
      score: (sum + W_SCOPE * parts.scope) * parts.prior,
      parts,
      doc: d.doc,
    };
  });
  const sorted = stableSort(ranked);
  if (options.importsOf && (sorted[0]?.score ?? 0) > 0) {
    // Both passes resolve imports (each a file read and parse): a file asked about twice is read once.
    const importsOf = memoize(options.importsOf);
    const byPath = new Map(sorted.map((r) => [r.path, r]));
    addImportNeighbours(sorted, byPath, importsOf);
    addImporters(sorted, byPath, docs, importsOf, options.tfCache);
    return { ranked: stableSort(sorted), idf, defTerms, terms };
  }
  return { ranked: sorted, idf, defTerms, terms };
}

/**
 * The task's query terms; in a long task that carries code evidence (frames, quoted messages,
 * code-like names) prose words get PROSE_WEIGHT of their weight. `plainBm25` keeps every weight.
 */
function weightTerms(task: string, plainBm25: boolean, hasEvidence: boolean): QueryTerm[] {
  return tokenizeQuery(task).map((t) =>
    !plainBm25 && !t.identifier && task.length >= LONG_TASK_CHARS && (hasEvidence || /```|`[^`\n]+`/.test(task))
      ? { ...t, weight: t.weight * PROSE_WEIGHT }
      : t,
  );
}

/**
 * Import neighbours of the top files (best first, `sorted[0].score > 0`) get a small share of the
 * top score, never above the top ranks. Changes `score` and `parts.neighbour` in place.
 */
function addImportNeighbours(
  sorted: RankedFile[],
  byPath: ReadonlyMap<string, RankedFile>,
  importsOf: (path: string) => string[],
): void {
  const top = sorted.slice(0, TOP_FOR_NEIGHBOURS).filter((r) => r.score > 0);
  const floor = top[top.length - 1]!.score;
  for (const t of top) {
    for (const p of importsOf(t.path)) {
      const r = byPath.get(p);
      if (!r || top.includes(r) || r.parts.neighbour > 0) continue;
      r.parts.neighbour = neighbourShare(t.score, r.parts.prior, r.score, floor);
      r.score += r.parts.neighbour;
    }
  }
}

/**
 * Files that import one of the TOP_FOR_NEIGHBOURS best source files (`sorted` best first, its first
 * score > 0) get W_NEIGHBOUR of that file's score, never above the top ranks; a file that already has a
 * smaller neighbour bonus gets the larger one instead. Candidates are the IMPORTERS_CHECKED best
 * ranked files whose index holds the imported module's name (its file stem, or its folder's name
 * for `index`, `__init__`, `mod`, `lib` and `main`); only those are read (through `importsOf`).
 * Changes `score` and `parts.neighbour` in place.
 */
function addImporters(
  sorted: RankedFile[],
  byPath: ReadonlyMap<string, RankedFile>,
  docs: readonly RankDoc[],
  importsOf: (path: string) => string[],
  tfCache?: Map<string, number[]>,
): void {
  const floor = sorted[Math.min(TOP_FOR_NEIGHBOURS, sorted.length) - 1]!.score;
  const topPaths = new Set(sorted.slice(0, TOP_FOR_NEIGHBOURS).map((r) => r.path));
  const indexed = docs.map((d) => d.doc);
  for (const t of sorted.slice(0, TOP_FOR_NEIGHBOURS)) {
    if (t.score <= 0 || t.parts.prior < 1) continue;
    const name = moduleWord(t.path);
    if (name === null) continue;
    const tf = cachedTf(tfCache, indexed, name);
    const candidates: RankedFile[] = [];
    for (let i = 0; i < docs.length; i++) {
      const r = tf[i]! > 0 ? byPath.get(docs[i]!.path) : undefined;
      if (r && !topPaths.has(r.path) && r.parts.prior === 1) candidates.push(r);
    }
    candidates.sort((a, b) => b.score - a.score);
    for (const r of candidates.slice(0, IMPORTERS_CHECKED)) {
      if (!importsOf(r.path).includes(t.path)) continue;
      const base = r.score - r.parts.neighbour;
      const bonus = neighbourShare(t.score, r.parts.prior, base, floor);
      if (bonus <= r.parts.neighbour) continue;
      r.parts.neighbour = bonus;
      r.score = base + bonus;
    }
  }
}

/**
 * The word an importer of `path` must contain (lowercased, as the index stores it): the file's stem,
 * or the folder's name for a package file (`index.ts`, `__init__.py`, `mod.rs`); for a stem that is
 * not one identifier (`needs-parens`), its longest identifier part. Null when shorter than 3 or for
 * a package file at the root.
 */
function moduleWord(path: string): string | null {
  const parts = path.split('/');
  let stem = parts[parts.length - 1]!.replace(/\.[^.]*$/, '');
  if (/^(index|__init__|mod|lib|main)$/.test(stem)) {
    // A package file at the root has no name its importers write.
    if (parts.length < 2) return null;
    stem = parts[parts.length - 2]!;
  }
  const words = stem.match(/[A-Za-z_$][A-Za-z0-9_$]*/g) ?? [];
  const word = words.reduce((a, w) => (w.length > a.length ? w : a), '');
  return word.length >= 3 ? word.toLowerCase() : null;
}

/** One file's evidence as 0..1: the strongest kind, plus a quarter of the others. */
function evidenceScore(e: FileEvidence): number {
  const kinds = [e.frame, e.literal, 0.7 * e.module].sort((a, b) => b - a);
  return Math.min(1, kinds[0]! + 0.25 * (kinds[1]! + kinds[2]!));
}

/** Best score first; equal scores keep their input order (Array.prototype.sort is stable). */
function stableSort(list: RankedFile[]): RankedFile[] {
  return [...list].sort((a, b) => b.score - a.score);
}
