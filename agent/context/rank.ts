import { tokenizeQuery, type QueryTerm } from './tokenize.js';
import type { IndexedDoc } from './search-index.js';
import { bm25Scores, cachedTf, commitScopes, maxOf, memoize, pathScores, scopeScores, symbolScores } from './score.js';
import { issueText, issueTitle, locateEvidence, readIssue, type FileEvidence } from './evidence.js';
import { noisePrior } from './noise.js';
import { reportTerms } from './report.js';
import { packContext, type PackCandidate } from './pack.js';

/**
 * File ranking for context selection. The score of a file
 * is bm25/max + 0.5·path/max + 0.7·symbol/max (the combination measured on the public benchmark set), plus
 * 0.5 when its path names the scope of a commit subject (`fix(worker): …`), times
 * a prior that demotes tests, fixtures and docs unless the task is about them, plus a small share of
 * the top score for files the top files import and for files that import the top files.
 *
 * Re-measured on 550 real commits (hunk recall @18k / @60k, held-out 270 / public 240 / vite 40; now
 * 0.710 / 0.879, 0.702 / 0.877, 0.632 / 0.764): symbol weight 0.5 gave 0.701 / 0.878, 0.694 / 0.878,
 * 0.624 / 0.741 and 1.0 gave 0.705 / 0.878, 0.706 / 0.867, 0.624 / 0.731; path weight 0.35 gave
 * 0.709 / 0.879, 0.709 / 0.871, 0.587 / 0.764 and 0.7 gave 0.704 / 0.871, 0.698 / 0.874, 0.636 / 0.724.
 * Term proximity is not used: a bonus for query terms within w identifiers of each other in the 60
 * files read (pairs scored Σ 1/d², as in BM25TP, added at a share of the top score) gave, at w = 1
 * and share 0.3, 0.714 / 0.882, 0.703 / 0.868, 0.652 / 0.764; at w = 5, 0.712 / 0.882,
 * 0.690 / 0.873, 0.677 / 0.764; at w = 1 and share 0.15, 0.713 / 0.876, 0.699 / 0.874, 0.652 / 0.771.
 * At w = 1 and share 0.3 it changed 57 of the 1,100 task-budget results, 33 up and 24 down, and on
 * 418 fresh commits (11 projects, 4 of them new) it gave 0.578 / 0.778 against 0.580 / 0.779 without:
 * churn, not a gain that holds.
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
/**
 * A path that names the commit's scope (`fix(worker): …` → `plugins/worker.ts`, `walk: …` →
 * `walk.rs`) earns a second full path share: the scope is the author's own word for where the change
 * is. Measured on real commits, hunk recall @18k/@60k: 40 from vite (15 with a scope) 0.600/0.700 →
 * 0.625/0.714, gitleaks 0.748/0.894 → 0.760/0.902, prettier 0.405 → 0.417 @18k, the other 12
 * projects (few scopes) unchanged; 0.15, 0.3 and 0.6 alike (vite 0.617 to 0.625 @18k).
 */
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
 * Files that import one of the TOP_FOR_NEIGHBOURS best files get the neighbour share too (reverse
 * dependencies: the package's `__init__.py` or `index.ts` that re-exports what a commit adds, the
 * caller whose call changes with a signature). Only files holding the imported module's name as a
 * word can import it; the IMPORTERS_CHECKED best of those are read and their imports resolved.
 * Measured (hunk recall @18k/@60k, file recall in brackets): held-out commits 0.674/0.841 →
 * 0.676/0.846 (0.822/0.906 → 0.829/0.916), public commits 0.699/0.862 → 0.699/0.863, public issue
 * reports 0.833/1.000 → 0.900/1.000, held-out issue reports 0.556/0.684 unchanged (0.875 → 0.854
 * file recall @18k). Importers of the top 1, 3 and 8 files: 0.676/0.839, 0.676/0.841, 0.676/0.848
 * on held-out commits (8 the same as 5 elsewhere); twice the share (0.3, top 3) 0.671/0.838;
 * package files (`__init__.py`, `index.*`, `mod.rs`, `lib.rs`) alone 0.676/0.841. Reading the best 8
 * or 30 candidates instead of 15: 0.676/0.846 (file recall 0.910 @60k) and 0.674/0.846.
 */
const IMPORTERS_CHECKED = 15;
/** A symbol match is scaled against a full-strength one (a plain word at the top idf), not only the
 * best present, so a lone match of a common word ("check") is not a full hit: +0.006 @60k measured. */
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
const LONG_TASK_CHARS = 300;

const TEST_PATH =
  /(^|\/)(tests?|__tests__|__mocks__|spec|specs|fixtures?|e2e|testing|testdata|__snapshots__|mocks?)\/|(^|\/)test_[^/]*$|_test\.[a-z]+$|\.(test|spec)\.[a-z]+$|(^|\/)conftest\.py$|\.snap$/i;
/** Docs and examples folders, and CODEOWNERS; every prose file (PROSE_PATH) counts as docs too. */
const DOC_PATH =
  /(^|\/)(docs?|examples?|benchmarks?|bench|samples?|website|changelogs?)\/|(^|\/)CODEOWNERS(-[\w-]+)?$/i;
/**
 * Prose: markup and plain-text documents, READMEs, release notes and licence texts (`LICENSE-MIT`,
 * but not `license_gpl_2.go`), as opposed to code kept in a docs or examples folder, and to the text
 * files a build reads (dependency lists, CMake).
 */
const PROSE_PATH =
  /\.(md|mdx|rst|adoc|txt)$|(^|\/)(README|CHANGELOG|HISTORY|CHANGES|NEWS|LICENSE|LICENCE|COPYING|NOTICE|AUTHORS|CONTRIBUTORS)(-[\w-]+)?$/i;
const NOT_PROSE = /(^|\/)((requirements|constraints)([\w.-]*|\/[^/]+)|CMakeLists)\.txt$/i;
// On the public benchmark set 0.15 and 0.3 measured +0.01 hunk recall over 0.3 and 0.5.
const TEST_PRIOR = 0.15;
const DOC_PRIOR = 0.3;
/**
 * Prose goes after code. A short request names behaviour, and its edits go to code; a Markdown page
 * about the same feature shares every prose word of the request and outscored the code at 0.3. At
 * 60,000 characters prose still took 7-8% of what was sent on the benchmark commits and held none of
 * the changed files. Hunk recall @60k at 0.3 / 0.1 / 0.03 / 0.01: held-out commits 0.868 / 0.869 /
 * 0.871 / 0.873, public 0.866 / 0.873 / 0.873 / 0.876; 0.003 measured the same as 0.01.
 */
const PROSE_PRIOR = 0.01;
const TOOLING_PATH =
  /^(\.github|\.circleci|\.gitlab|\.vscode|\.devcontainer|\.husky|scripts?|tools?|build|ci)\/|\.(ya?ml|toml|ini|cfg|json|jsonc|lock|mk)$|(^|\/)(Makefile|Dockerfile|Justfile|Rakefile|\.[a-z]+rc(\.[a-z]+)?|[\w-]+\.config\.[a-z]+)$/i;
const TOOLING_PRIOR = 0.3;
const TOOLING_WORDS =
  /\b(ci|workflows?|actions?|builds?|config|configs|configuration|yaml|yml|json|toml|scripts?|tooling|lint|linter|eslint|deps|dependency|dependencies|package|packages|release|releases|docker|makefile|tsconfig|setup|install|versions?|publish)\b/i;
const TEST_WORDS = /\b(tests?|testing|specs?|fixtures?|e2e|unit|coverage|mocks?)\b/i;
const DOC_WORDS =
  /\b(docs?|document(?:ation|s|ed|ing)?|readme|examples?|changelog|guide|tutorial|typos?|benchmarks?|instructions?|wording|faq|manual)\b/i;

/**
 * Whether the task names the file itself: its base name, extension included, as a whole word
 * ("update CONTRIBUTING.md", "bump the version in package.json"). Case-insensitive.
 */
function namesFile(path: string, task: string): boolean {
  return namesIn(path, task.toLowerCase());
}

/** `namesFile` against the task's lowercased text. */
function namesIn(path: string, text: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  for (let at = text.indexOf(base); at !== -1; at = text.indexOf(base, at + 1)) {
    const before = text[at - 1] ?? ' ';
    const after = text[at + base.length] ?? ' ';
    if (!/[\w-]/.test(before) && !/[\w-]/.test(after)) return true;
  }
  return false;
}

/**
 * Whether the request names exactly one project file by its file name (see `namesFile`) and that
 * file is the first candidate, not pinned: then the request is about that file (`PackOptions.namedFirst`).
 * A base name shared by several paths (`models.py` in two folders) names none of them for sure.
 *
 * @param candidates  the packer's candidates, in rank order
 * @param paths       every project path the ranking saw
 */
function namesOnlyFirst(candidates: readonly PackCandidate[], paths: readonly string[], task: string): boolean {
  const first = candidates[0];
  if (!first || (first.pinned ?? 0) > 0) return false;
  const text = task.toLowerCase();
  let named = 0;
  for (const p of paths) if (namesIn(p, text) && ++named > 1) return false;
  return named === 1 && namesIn(first.path, text);
}

/**
 * Path prior: 0.15 for test and fixture paths, 0.3 for code in docs and examples folders, 0.01 for
 * prose (Markdown and other markup, READMEs, release notes, licences); the test and docs priors are
 * lifted to 1 when the task says test/spec or doc/readme/example/instructions. 0.3 for tooling (CI
 * folders, root scripts/ and build/, Makefiles, YAML/TOML/JSON and `*.config.*` files), lifted when
 * the task says ci, build, config, dependencies and the like: these files share words with code but
 * are rarely where a code change goes (+0.007 / +0.005 hunk recall @18k / @60k measured on the
 * public set). A task that names the file (`README.md`, `.eslintrc.js`) lifts any of these priors.
 *
 * @param path  project-relative path, `/`-separated
 * @param task  the request's text (its title, for a long report)
 * @returns a multiplier in (0, 1]
 */
export function pathPrior(path: string, task: string): number {
  const noise = noisePrior(path, task);
  if (noise < 1) return noise;
  const prior = kindPrior(path, task);
  return prior < 1 && namesFile(path, task) ? 1 : prior;
}

/** The prior of a path's kind (test, docs, prose, tooling, else code: 1), as `pathPrior` describes. */
function kindPrior(path: string, task: string): number {
  if (TEST_PATH.test(path)) return TEST_WORDS.test(task) ? 1 : TEST_PRIOR;
  const prose = PROSE_PATH.test(path);
  if (prose || DOC_PATH.test(path))
    return DOC_WORDS.test(task) ? 1 : prose && !NOT_PROSE.test(path) ? PROSE_PRIOR : DOC_PRIOR;
  if (TOOLING_PATH.test(path)) return TOOLING_WORDS.test(task) ? 1 : TOOLING_PRIOR;
  return 1;
}

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
  const ranked: RankedFile[] = docs.map((d, i) => {
    const ev = evidence?.get(d.path);
    const parts: ScoreParts = {
      content: bm25[i]! / mb,
      path: pathScore[i]! / mp,
      symbol: symScore[i]! / ms,
      prior: pathPrior(d.path, issueTitle(task)),
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

/** Best score first; equal scores keep their input order (Array.prototype.sort is stable). */
function stableSort(list: RankedFile[]): RankedFile[] {
  return [...list].sort((a, b) => b.score - a.score);
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

/** Options of `selectContext`. */
export interface SelectOptions extends RankOptions {
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

/** Result of `selectContext`: files in send order and the full ranking behind them. */
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
 * Files that matched nothing, in the order they fill budget left over: source files before tests
 * and docs, files near the best match before distant ones, then larger files (more often the ones
 * edited: BugLocator). Each gets a small synthetic score below every match so
 * it only takes what the matched files leave.
 */
function fillOrder(ranked: readonly RankedFile[]): RankedFile[] {
  const zero = ranked.filter((r) => r.score <= 0 && r.parts.pinned === 0);
  const floor = ranked.reduce((m, r) => (r.score > 0 ? Math.min(m, r.score) : m), 1);
  const topDir = (ranked[0]?.score ?? 0) > 0 ? ranked[0]!.path.slice(0, ranked[0]!.path.lastIndexOf('/') + 1) : '';
  const shared = (p: string): number => {
    let i = 0;
    while (i < topDir.length && i < p.length && topDir[i] === p[i]) i++;
    return p.slice(0, i).split('/').length - 1;
  };
  const sorted = zero
    .map((r) => ({ r, key: [r.parts.prior, shared(r.path), -r.path.split('/').length, r.doc.sizeBytes] }))
    .sort((a, b) => {
      for (let i = 0; i < a.key.length; i++) if (a.key[i] !== b.key[i]) return b.key[i]! - a.key[i]!;
      return 0;
    });
  return sorted.map(({ r }, i) => ({ ...r, score: (floor * 1e-3) / (1 + i) }));
}

/**
 * Choose what is sent for one task: rank, read the best MAX_CANDIDATES files (then unmatched fill
 * files while little is on offer), and pack them with `packContext`: files up to half the budget
 * whole (past the first-ranked, at most 20,000 characters), larger ones as verbatim blocks, all
 * units competing in one greedy pass. For a short request the first-ranked file's excerpts also grow
 * into the blocks beside them (at budgets of 40,000 or more, or when it clearly leads the ranking),
 * and a first-ranked file the request names by its file name, alone, may take the whole budget.
 *
 * @param raw   the person's request (an issue report is read through `issueText`)
 * @param docs  candidate text files with their index entries
 * @returns files in send order with `usedChars ≤ budgetChars` always
 * @throws never: an empty selection is a valid result
 */
export function selectContext(raw: string, docs: readonly RankDoc[], options: SelectOptions): ContextSelection {
  const budget = Math.max(0, Math.floor(options.budgetChars));
  // An issue report's template headings, environment details and package lists say nothing of where.
  const task = options.plainBm25 ? raw : issueText(raw);
  const issue = readIssue(task);
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
  const matched = ranked.filter((r) => r.score > 0 || r.parts.pinned > 0);
  // Plain BM25 is a benchmark baseline: it sends what matched and nothing else.
  const anyScore = matched.length > 0;
  const fill = options.plainBm25 ? [] : fillOrder(ranked);
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
    candidates.push({
      path: r.path,
      score: r.score,
      text,
      anchors: ev?.anchors,
      focus: ev?.focus,
      pinned: r.parts.pinned,
    });
    byPath.set(r.path, r);
    offered += text.length;
  }
  const longReport = task.length >= LONG_TASK_CHARS;
  const packed = packContext(candidates, {
    budgetChars: budget,
    idf,
    defTerms,
    wholeOnly: options.wholeOnly,
    maxFiles: options.maxFiles,
    longReport,
    namedFirst: !longReport && !options.plainBm25 && namesOnlyFirst(candidates, docPaths, task),
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
