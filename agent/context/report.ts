import { IDENT, splitIdentifier, type QueryTerm } from './tokenize.js';

/**
 * Query terms of a long issue report, read the way a maintainer triages one: the title (first line)
 * is the reporter's one-line summary of what is wrong and where, while the body repeats that in prose,
 * reproduction steps and output. A report of hundreds of distinct words gives each of them the same
 * say in BM25, so the few title words that name the component ("napoleon", "xfail", "rst_prolog")
 * drown among the body's. Title words weigh more; two title words that a file name joins ("man page"
 * → `manpage.py`) become a term of their own. Short tasks (commit subjects, requests) are unchanged.
 * Field weighting of a report's summary over its description: Saha et al., ASE 2013 (BLUiR), and
 * Zhou et al., ICSE 2012 (BugLocator) both rank source files from the summary and description fields.
 */

/** A task of at least this many characters is read as a report with a title line and a body. */
const LONG_REPORT_CHARS = 300;
/** Title words count this many times their body weight: the title is where a reporter names the component. */
const TITLE_WEIGHT = 5;
/** A title longer than this is not a summary line (a report pasted without one). */
const MAX_TITLE_CHARS = 200;

/** The first non-empty line of a long report, when it reads as a title; else ''. */
export function reportTitle(task: string): string {
  if (task.length < LONG_REPORT_CHARS) return '';
  const first = task.trimStart().split('\n', 1)[0]!.trim();
  return first.length <= MAX_TITLE_CHARS ? first : '';
}

/** The lowercased tokens of a title: whole identifiers and, for compound ones, their parts. */
function titleTokens(title: string): Set<string> {
  const out = new Set<string>();
  for (const ident of title.match(IDENT) ?? []) {
    out.add(ident.toLowerCase());
    for (const p of splitIdentifier(ident)) out.add(p);
  }
  return out;
}

/**
 * Reweight a long report's query terms: each term in its title gets TITLE_WEIGHT times its weight;
 * two adjacent plain title words whose concatenation is a file name's stem in the project (`man
 * page` with `builders/manpage.py`) are added as one term of the title's weight.
 *
 * @param task   the report (already stripped of template headings, see `issueText`)
 * @param terms  the task's query terms (`tokenizeQuery`, prose weighting applied)
 * @param files  the project's files (their paths tell whether a joined word names a file)
 * @returns new terms (the input is not changed); `terms` itself for a short task
 * @throws never
 */
export function reportTerms(
  task: string,
  terms: readonly QueryTerm[],
  files: readonly { path: string }[],
): QueryTerm[] {
  const title = reportTitle(task);
  if (title === '') return [...terms];
  const inTitle = titleTokens(title);
  const out = terms.map((t) => (inTitle.has(t.term) ? { ...t, weight: t.weight * TITLE_WEIGHT } : t));
  const words = title.toLowerCase().match(/[a-z]+/g) ?? [];
  const have = new Set(out.map((t) => t.term));
  const joined = new Map<string, number>();
  const weightOf = new Map(out.map((t) => [t.term, t.weight]));
  for (let i = 0; i + 1 < words.length; i++) {
    const [a, b] = [words[i]!, words[i + 1]!];
    const w = a + b;
    // The joined term weighs as its lighter part does (a stopword part counts as a plain title word).
    const weight = Math.min(weightOf.get(a) ?? TITLE_WEIGHT, weightOf.get(b) ?? TITLE_WEIGHT);
    if (a.length >= 2 && b.length >= 2 && w.length >= 6 && !have.has(w)) joined.set(w, weight);
  }
  if (joined.size === 0) return out;
  const stems = new Set<string>();
  for (const { path: p } of files) {
    const file = p.slice(p.lastIndexOf('/') + 1).toLowerCase();
    const stem = file.replace(/\.[^.]*$/, '');
    if (joined.has(stem)) stems.add(stem);
  }
  for (const [w, weight] of joined) if (stems.has(w)) out.push({ term: w, identifier: false, weight });
  return out;
}

/**
 * A compiler-style diagnostic line, `path:line[:col]: [severity:] message` (gcc, clang, Sphinx, docutils,
 * flake8, tsc's `path(line,col): error`): the path is the reporter's file, the message is printed by
 * the project and can be searched for literally.
 */
const DIAGNOSTIC_LINE = new RegExp(
  String.raw`^\s*[\w./\\~-]*[\w-]\.[\w.]+(?::\d+(?::\d+)?:|\(\d+,\d+\):)\s*` +
    String.raw`(?:(?:warning|error|note|info|severe|critical)(?:\s*\[[\w-]+\])?\s*:\s*)?(.{12,300})$`,
  'gim',
);

/**
 * The messages of compiler-style diagnostic lines in a report (`docs/x.rst:4: WARNING: Malformed
 * option description …` → `Malformed option description …`), in the order written.
 *
 * @param task  the report
 * @returns the message part of each such line (without the path, line and severity)
 * @throws never
 */
export function diagnosticMessages(task: string): string[] {
  return [...task.matchAll(DIAGNOSTIC_LINE)].map((m) => m[1]!.trim());
}
