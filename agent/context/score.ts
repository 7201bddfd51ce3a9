import { singular, splitIdentifier, VARIANT_WEIGHT, type QueryTerm } from './tokenize.js';
import { termFrequencies, type IndexedDoc } from './search-index.js';

/**
 * The three raw signals `rankFiles` combines: BM25 over file content, query terms in the file's path,
 * and query terms naming a symbol the file defines. Each returns one raw score per doc, in `docs`
 * order; `rankFiles` normalises and weights them.
 */

/** A file as the scorers see it: its path and its index entry. */
export interface ScoredDoc {
  path: string;
  doc: IndexedDoc;
}

const K1 = 1.2;
const B = 0.75;
/**
 * A path part matching a task word counts fully only when the file's content matches the task too
 * (at least half the best content score); alone it keeps this share. A verb that is also a folder
 * name (`accepts` → `helper/accepts/`) is weak evidence by itself.
 */
const PATH_ALONE = 0.3;

/** The largest of `values`, 0 for none or all negative. */
export function maxOf(values: readonly number[]): number {
  let m = 0;
  // Indexed loops over per-file arrays: run once per process, mostly unoptimised, where `for…of`
  // makes an iterator result per element (a warm run on prettier/prettier made 400k of them).
  for (let i = 0; i < values.length; i++) if (values[i]! > m) m = values[i]!;
  return m;
}

/**
 * Term frequencies per doc, from `cache` when this term was looked up already (the result is then
 * stored in `cache`). Returns one count per doc, in `docs` order.
 */
export function cachedTf(
  cache: Map<string, number[]> | undefined,
  docs: readonly IndexedDoc[],
  term: string,
): number[] {
  let tf = cache?.get(term);
  if (tf === undefined) {
    tf = termFrequencies(docs, term);
    cache?.set(term, tf);
  }
  return tf;
}

/**
 * BM25 (k1 1.2, b 0.75) of every doc for the weighted query terms.
 *
 * @param terms    query terms; each term's weight scales its idf
 * @param docs     candidate files with their index entries
 * @param tfCache  shared term → frequencies cache (see `cachedTf`), optional
 * @returns `idf`: term → weighted idf over `docs`; `bm25`: one score per doc, in `docs` order
 */
export function bm25Scores(
  terms: readonly QueryTerm[],
  docs: readonly ScoredDoc[],
  tfCache?: Map<string, number[]>,
): { idf: Map<string, number>; bm25: number[] } {
  const n = docs.length;
  let totalLen = 0;
  for (let i = 0; i < n; i++) totalLen += docs[i]!.doc.tokens;
  const avgdl = n > 0 ? Math.max(1, totalLen / n) : 1;
  // tf[termIndex][docIndex], computed with indexOf on the stored term strings: no parse of the index.
  const indexed = docs.map((d) => d.doc);
  const tf = terms.map(({ term }) => cachedTf(tfCache, indexed, term));
  const idf = new Map<string, number>();
  terms.forEach(({ term }, ti) => {
    let df = 0;
    const counts = tf[ti]!;
    for (let i = 0; i < counts.length; i++) if (counts[i]! > 0) df++;
    idf.set(term, terms[ti]!.weight * Math.log(1 + (n - df + 0.5) / (df + 0.5)));
  });
  const idfOf = terms.map(({ term }) => idf.get(term)!);
  const bm25 = docs.map((d, di) => {
    let s = 0;
    const norm = K1 * (1 - B + (B * d.doc.tokens) / avgdl);
    for (let ti = 0; ti < terms.length; ti++) {
      const f = tf[ti]![di]!;
      if (f > 0) s += idfOf[ti]! * ((f * (K1 + 1)) / (f + norm));
    }
    return s;
  });
  return { idf, bm25 };
}

/** Lowercased words of a path part, each also split as an identifier (`parseOptions` → parse, options). */
function partTokens(part: string): string[] {
  return part.split(/[^A-Za-z0-9_$]+/).flatMap((w) => (w.length < 2 ? [] : [w.toLowerCase(), ...splitIdentifier(w)]));
}

/**
 * `fn` with its results kept per argument, for as long as the returned function is held (one
 * ranking): `fn` runs once per distinct key.
 */
export function memoize<T>(fn: (key: string) => T): (key: string) => T {
  const seen = new Map<string, T>();
  return (key) => {
    if (seen.has(key)) return seen.get(key)!;
    const out = fn(key);
    seen.set(key, out);
    return out;
  };
}

/** `partTokens` with its results kept per part: path parts repeat across files (`tests`, `format`, `src`). */
const cachedPartTokens = (): ((part: string) => string[]) => memoize(partTokens);

/**
 * How strongly each doc's path matches the task: the file named in the task (`retry.ts`, a traceback
 * path, the head of a dotted name), and query terms among the words of its file name (full idf) or
 * folders (half), scaled down when the content does not match too.
 *
 * @param task    the person's request
 * @param docs    candidate files
 * @param terms   query terms
 * @param idf     term → weighted idf (from `bm25Scores`)
 * @param bm25    content score per doc (from `bm25Scores`)
 * @returns one raw score per doc, in `docs` order (in idf units)
 */
export function pathScores(
  task: string,
  docs: readonly ScoredDoc[],
  terms: readonly QueryTerm[],
  idf: ReadonlyMap<string, number>,
  bm25: readonly number[],
): number[] {
  const maxIdf = maxOf([...idf.values()]) || 1;
  const taskLower = ` ${task.toLowerCase().replace(/[^a-z0-9_/.$-]+/g, ' ')} `;
  const tokensOf = cachedPartTokens();
  // Many files share a folder (prettier: 7.7k files in a few thousand): a folder is matched once per term.
  const dirMatches = new Map<string, number>();
  const dirMatch = (dir: string, term: string): number => {
    const key = `${dir}\0${term}`;
    let best = dirMatches.get(key);
    if (best !== undefined) return best;
    best = 0;
    for (const seg of dir.split('/'))
      if (seg.toLowerCase().includes(term)) best = Math.max(best, wordMatch(tokensOf(seg), term));
    dirMatches.set(key, best);
    return best;
  };
  const maxBm25 = maxOf(bm25) || 1;
  const words = terms.map(({ term }) => term);
  const weights = words.map((term) => idf.get(term) ?? maxIdf);
  return docs.map((d, di) => {
    const lowerPath = d.path.toLowerCase();
    const file = lowerPath.slice(lowerPath.lastIndexOf('/') + 1);
    let s = namedFileScore(d.path, lowerPath, file, taskLower, maxIdf);
    // Most paths share no query term even as a substring: skip splitting them (10k-file repos).
    if (!holdsAny(lowerPath, words)) return s;
    const agree = PATH_ALONE + (1 - PATH_ALONE) * Math.min(1, bm25[di]! / (0.5 * maxBm25));
    // Tokens are lowercased substrings of their part, so a part not containing a term lacks it.
    // Positions in lowerPath and in path differ when lowercasing changes a length ('İ' → 'i̇').
    const slash = d.path.lastIndexOf('/');
    const lowerSlash = lowerPath.lastIndexOf('/');
    let fileWords: string[] | undefined;
    for (let ti = 0; ti < words.length; ti++) {
      const term = words[ti]!;
      const inFile = file.includes(term);
      const inDir = lowerSlash > 0 && lowerPath.lastIndexOf(term, lowerSlash - term.length) !== -1;
      if (!inFile && !inDir) continue;
      const w = weights[ti]!;
      const fileMatch = inFile
        ? wordMatch((fileWords ??= tokensOf(d.path.slice(slash + 1).replace(/\.[^.]*$/, ''))), term)
        : 0;
      if (fileMatch > 0) s += agree * fileMatch * w;
      else if (inDir) s += agree * 0.5 * dirMatch(d.path.slice(0, slash), term) * w;
    }
    return s;
  });
}

/** Whether `text` holds one of `words` as a substring (a loop, not `some`: it runs per path and per symbol). */
function holdsAny(text: string, words: readonly string[]): boolean {
  for (let i = 0; i < words.length; i++) if (text.includes(words[i]!)) return true;
  return false;
}

/**
 * How well a path part's words (`partTokens`) hold a query term: 1 for the word itself, VARIANT_WEIGHT
 * when a word is its plural (`rules/` for "rule"), else 0: folders and modules are often named in the
 * plural while a request names one thing.
 */
function wordMatch(words: readonly string[], term: string): number {
  if (words.includes(term)) return 1;
  return words.some((w) => w.length > term.length && singular(w) === term) ? VARIANT_WEIGHT : 0;
}

/**
 * The score a path earns for being named in the task: `maxIdf` when its stem appears as a word or
 * as the head of a dotted name, plus 3·`maxIdf` when the whole path (with a folder) appears.
 */
function namedFileScore(path: string, lowerPath: string, file: string, taskLower: string, maxIdf: number): number {
  const dot = file.lastIndexOf('.');
  const stem = dot > 0 ? file.slice(0, dot) : file;
  let s = 0;
  // Both tests below need the stem in the task (a path holds its stem): most paths end here, no string built.
  if (!taskLower.includes(stem)) return 0;
  // A file named in the task ("fix the retry logic in retry.ts", "in Ky.ts", a traceback path).
  // Also as the head of a dotted name (`express.text`, `utils.parse`): a module named in code.
  if (
    stem.length >= 3 &&
    stem !== 'index' &&
    stem !== '__init__' &&
    (taskLower.includes(` ${stem} `) || taskLower.includes(` ${stem}.`))
  )
    s += maxIdf;
  if (path.includes('/') && taskLower.includes(lowerPath)) s += 3 * maxIdf;
  return s;
}

/**
 * How strongly each doc's defined symbols match the query: a symbol that is a query term counts its
 * idf (twice when the term was written as code), a symbol whose identifier parts are all query terms
 * (`parse options` → `parseOptions`) half their summed idf. Each symbol counts once per doc.
 *
 * @param docs      candidate files
 * @param terms     query terms
 * @param idf       term → weighted idf (from `bm25Scores`)
 * @param defTerms  filled with the query terms that name a defined symbol in some doc
 * @returns one raw score per doc, in `docs` order (in idf units)
 */
export function symbolScores(
  docs: readonly ScoredDoc[],
  terms: readonly QueryTerm[],
  idf: ReadonlyMap<string, number>,
  defTerms: Set<string>,
): number[] {
  const maxIdf = maxOf([...idf.values()]) || 1;
  const termSet = new Map(terms.map((t) => [t.term, t]));
  const words = terms.map(({ term }) => term);
  return docs.map((d) => {
    let s = 0;
    // Most files define no query term: their set of names already counted is never made.
    let seen: Set<string> | undefined;
    const defs = d.doc.defs;
    for (let i = 0; i < defs.length; i++) {
      const def = defs[i]!;
      const lower = def.toLowerCase();
      const q = termSet.get(lower);
      if (q && !seen?.has(lower)) {
        (seen ??= new Set()).add(lower);
        defTerms.add(lower);
        s += (idf.get(lower) ?? maxIdf) * (q.identifier ? 2 : 1);
        continue;
      }
      // `parse options` in a task names `parseOptions` even when nobody wrote it as code. The parts
      // are lowercased substrings of the name, so a name containing no query term cannot match.
      if (!holdsAny(lower, words)) continue;
      const parts = splitIdentifier(def);
      if (parts.length >= 2 && !seen?.has(lower) && parts.every((p) => termSet.has(p))) {
        (seen ??= new Set()).add(lower);
        s += 0.5 * parts.reduce((a, p) => a + (idf.get(p) ?? 0), 0);
      }
    }
    return s;
  });
}

/**
 * Prefixes that name the kind of change or report, not where it is: Conventional Commits types
 * (`fix:`, `feat:`), the numpy-style tags of scientific Python projects (`BUG:`, `ENH:`, `MAINT:`)
 * and tracker words (`Question:`, `Proposal:`).
 */
const KIND_PREFIXES = new Set(
  (
    'fix fixes fixed bugfix hotfix feat feature features chore refactor perf docs doc test tests style build ci ' +
    'revert release wip deps breaking security bug bugs enh enhancement api maint tst bld dep rel typ ' +
    'question proposal idea note update todo help typo regression issue problem error warning request rfc misc'
  ).split(' '),
);

const scopeWords = (scope: string): string[] =>
  scope
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 2);

/**
 * The scopes a commit subject names, each as its lowercased words: a Conventional Commits scope
 * (`fix(worker): …`, `feat(css,html)!: …`, `perf(bash-v2): …` → bash, v2), or the component prefix
 * of projects that write `walk: use a bounded queue` or `cmd/root: …` (Go, git, Linux style; not a
 * prefix that names a kind, such as `fix:` or `BUG:`). Empty when the task's first line names no scope.
 */
export function commitScopes(task: string): string[][] {
  const first = task.trimStart();
  const conventional = /^[A-Za-z]+\(([^)\n]{1,60})\)!?:/.exec(first);
  if (conventional)
    return conventional[1]!
      .split(/[,|/\s]+/)
      .map(scopeWords)
      .filter((w) => w.length > 0);
  const component = /^([A-Za-z][\w./-]{1,60}):\s/.exec(first);
  if (!component || KIND_PREFIXES.has(component[1]!.toLowerCase())) return [];
  const w = scopeWords(component[1]!);
  return w.length > 0 ? [w] : [];
}

/**
 * 1 for each doc whose path holds every word of one of `scopes` among the words of its folders and
 * file name (split like identifiers: `moduleRunner.ts` holds module and runner), else 0. A commit's
 * scope names the component it changes, so a path that names the scope is where the change is
 * likely to be, whatever the rest of the subject says.
 */
export function scopeScores(docs: readonly ScoredDoc[], scopes: readonly (readonly string[])[]): number[] {
  if (scopes.length === 0) return docs.map(() => 0);
  const needed = [...new Set(scopes.flat())];
  const tokensOf = cachedPartTokens();
  return docs.map((d) => {
    const lower = d.path.toLowerCase();
    // Most paths hold no scope word even as a substring: skip splitting them.
    if (!needed.some((w) => lower.includes(w))) return 0;
    const tokens = new Set(d.path.split('/').flatMap(tokensOf));
    return scopes.some((scope) => scope.every((w) => tokens.has(w))) ? 1 : 0;
  });
}
