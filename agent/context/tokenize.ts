/**
 * Code-aware tokens for ranking context. An identifier is kept whole (lowercased) and,
 * when it is camelCase, PascalCase or snake_case, also split into its parts, so `parseOptions`
 * yields `parseoptions`, `parse` and `options`. Identifier splitting for feature location:
 * Dit et al., ICPC 2011.
 */

/** An identifier-like run; exported so one-pass analysers tokenize exactly like `countTokens`. */
export const IDENT = /[A-Za-z_$][A-Za-z0-9_$]*/g;
const CAMEL_PART = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g;
/** Longer "identifiers" are nearly always base64, hashes or minified noise. */
export const MAX_TOKEN_CHARS = 48;

/**
 * Split one identifier into its lowercased parts (`getHTTPResponse` → get, http, response;
 * `max_file_bytes` → max, file, bytes). Parts shorter than 2 characters are dropped.
 *
 * @returns the parts in order; a single-part identifier returns one element (itself, lowercased)
 */
export function splitIdentifier(ident: string): string[] {
  const out: string[] = [];
  for (const piece of ident.split(/[_$]+/)) {
    if (piece === '') continue;
    const parts = piece.match(CAMEL_PART);
    if (!parts) continue;
    for (const p of parts) if (p.length >= 2) out.push(p.toLowerCase());
  }
  return out;
}

function needsSplit(ident: string): boolean {
  // Fast path: a plain lowercase word has no parts beyond itself.
  for (let i = 0; i < ident.length; i++) {
    const c = ident.charCodeAt(i);
    if ((c >= 65 && c <= 90) || c === 95 || c === 36 || (c >= 48 && c <= 57)) return true;
  }
  return false;
}

const expansions = new Map<string, readonly string[]>();
const MAX_CACHED_IDENTIFIERS = 500_000;

/**
 * The tokens one identifier contributes: itself lowercased, then its parts when it has several.
 * Cached across files (identifiers repeat heavily; this is most of the cold indexing time).
 */
export function identifierTokens(ident: string): readonly string[] {
  let out = expansions.get(ident);
  if (out === undefined) {
    const whole = ident.toLowerCase();
    out = [whole];
    if (needsSplit(ident)) {
      const parts = splitIdentifier(ident);
      if (parts.length > 1 || (parts.length === 1 && parts[0] !== whole)) out = [whole, ...parts];
    }
    if (expansions.size >= MAX_CACHED_IDENTIFIERS) expansions.clear();
    expansions.set(ident, out);
  }
  return out;
}

/**
 * Count the code-aware tokens of a text.
 *
 * @param text  any source text
 * @returns token → occurrence count; `total` is the document length in tokens (BM25 `|d|`)
 */
export function countTokens(text: string): { counts: Map<string, number>; total: number } {
  const counts = new Map<string, number>();
  let total = 0;
  const re = new RegExp(IDENT.source, 'g');
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    const ident = m[0];
    if (ident.length < 2 || ident.length > MAX_TOKEN_CHARS) continue;
    for (const t of identifierTokens(ident)) {
      counts.set(t, (counts.get(t) ?? 0) + 1);
      total++;
    }
  }
  return { counts, total };
}

/** English function words and request verbs that say nothing about where code lives. */
const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could do does for from has have if in into is it its of on or ' +
    'so than that the their them then there these this those to was we were when where which while will ' +
    'with without not no yes you your our should would may might also just only all any some more most ' +
    'new now via per instead already every each other same such after before up down out over under again'
  ).split(' '),
);

/**
 * Request verbs and commit-message words that appear in most tasks and say little about where the
 * change goes ("fix", "add", "support"); they keep a small weight rather than none, since "handle"
 * or "update" can also be real identifiers.
 */
const GENERIC = new Set(
  (
    'fix fixes fixed fixing add adds added adding feat feature features support supports supported update updates ' +
    'updated improve improved improves improvement use uses used using make makes allow allows allowed refactor ' +
    'change changes changed remove removes removed bump chore introduce introduces implement implemented ensure ' +
    'correct correctly properly better avoid issue issues bug bugs possible'
  ).split(' '),
);
const GENERIC_WEIGHT = 0.3;
/** Weight of a guessed form of a word (a singular, a verb's base form) against the word itself. */
export const VARIANT_WEIGHT = 0.6;

/** One term of a task after tokenizing. */
export interface QueryTerm {
  term: string;
  /** true when the task wrote it like code: camelCase, snake_case, dotted, `name(` or in backticks */
  identifier: boolean;
  /** multiplier of the term's idf: 1, GENERIC_WEIGHT for request verbs, VARIANT_WEIGHT for singulars and base forms */
  weight: number;
  /** a guessed base form (`verbBases`): dropped by ranking when no project file uses it */
  variant?: boolean;
}

/** The singular of a plural-looking word (`callbacks` → `callback`, `entries` → `entry`), or null. */
export function singular(term: string): string | null {
  if (term.length < 5 || !term.endsWith('s') || /(ss|us|is)$/.test(term)) return null;
  if (term.endsWith('ies')) return `${term.slice(0, -3)}y`;
  if (/(sses|xes|ches|shes)$/.test(term)) return term.slice(0, -2);
  return term.slice(0, -1);
}

/**
 * Base forms of an inflected verb (`forwarding` → forward, forwarde; `parsed` → parse, pars;
 * `running` → run) or of a noun of action (`validation` → validate; `detection` → detect):
 * candidates only, many are not words; callers keep the ones the project uses.
 */
export function verbBases(term: string): string[] {
  const out: string[] = [];
  const add = (stem: string): void => {
    // A stem without a vowel is no verb (`string` → `str`).
    if (stem.length < 3 || !/[aeiouy]/.test(stem)) return;
    out.push(stem, `${stem}e`);
    const n = stem.length;
    // A doubled final consonant (`running`, `stopped`) is spelling, not part of the base.
    if (n >= 4 && stem[n - 1] === stem[n - 2] && !/[aeiou]/.test(stem[n - 1]!)) out.push(stem.slice(0, -1));
  };
  if (term.length >= 6 && term.endsWith('ing')) add(term.slice(0, -3));
  else if (term.length >= 5 && term.endsWith('ed')) add(term.slice(0, -2));
  // The verb behind a noun of action: `validation` → validate, `configuration` → configure,
  // `detection` → detect, `completion` → complete (code names the action, a task often the noun).
  else if (term.length >= 8 && term.endsWith('ation')) out.push(`${term.slice(0, -5)}ate`, `${term.slice(0, -5)}e`);
  else if (term.length >= 7 && term.endsWith('tion')) add(term.slice(0, -3));
  return [...new Set(out)].filter((b) => b !== term);
}

/**
 * Tokenize a task the way documents are tokenized, dropping stopwords, and mark which words the task
 * wrote like code (those are matched against symbol definitions with more weight).
 *
 * @returns distinct terms in first-seen order
 */
export function tokenizeQuery(task: string): QueryTerm[] {
  const out = new Map<string, QueryTerm>();
  const codeSpans = new Set<string>();
  for (const m of task.matchAll(/`([^`]+)`/g)) for (const id of (m[1] ?? '').match(IDENT) ?? []) codeSpans.add(id);
  for (const m of task.matchAll(/[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+|[A-Za-z_$][\w$]*(?=\()/g)) {
    for (const id of m[0].split('.')) codeSpans.add(id);
  }
  const put = (term: string, identifier: boolean): void => {
    if (term.length < 2 || STOPWORDS.has(term)) return;
    const prev = out.get(term);
    if (prev) prev.identifier ||= identifier;
    else out.set(term, { term, identifier, weight: GENERIC.has(term) && !identifier ? GENERIC_WEIGHT : 1 });
  };
  for (const ident of task.match(IDENT) ?? []) {
    if (ident.length > MAX_TOKEN_CHARS) continue;
    const codeLike = codeSpans.has(ident) || /[a-z][A-Z]|_/.test(ident) || /^[A-Z][a-z]+[A-Z]/.test(ident);
    put(ident.toLowerCase(), codeLike);
    if (needsSplit(ident)) for (const p of splitIdentifier(ident)) put(p, false);
  }
  if (VARIANT_WEIGHT > 0) {
    for (const q of [...out.values()]) {
      const one = singular(q.term);
      if (one && !out.has(one) && !STOPWORDS.has(one))
        out.set(one, { term: one, identifier: false, weight: VARIANT_WEIGHT * q.weight });
      // Base forms of verbs the task inflects (`pausing` → pause); not of request verbs like `fixed`.
      if (!q.identifier && q.weight === 1)
        for (const b of verbBases(q.term))
          if (!out.has(b) && !STOPWORDS.has(b))
            out.set(b, { term: b, identifier: false, weight: VARIANT_WEIGHT, variant: true });
    }
  }
  return [...out.values()];
}
