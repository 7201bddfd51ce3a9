import { readFile } from 'node:fs/promises';
import { createContext, Script, type Context } from 'node:vm';
import { classifyContent } from '../context/scan-rules.js';
import type { ScannedFile } from '../context/scan.js';
import { redactSecrets } from '../../utils/policy/secrets.js';
import { UsageError } from '../../utils/errors.js';
import type { FootprintFile } from './shards.js';

/**
 * The footprint of a wide change: the files a task must cover, found by regular expressions over
 * the scanned candidates (the scanner has already applied the path policy: secret, binary,
 * ignored and outside-root files are never candidates, so they can never enter a footprint).
 */

/** Longest pattern accepted, in characters. */
const MAX_PATTERN_CHARS = 300;
/** Lines longer than this are not searched (minified code; also bounds a slow pattern's work). */
const MAX_LINE_CHARS = 2000;

/**
 * Compile a footprint pattern (JavaScript regular-expression syntax).
 *
 * Patterns can come from a model (the scope request), so a pattern whose shape can backtrack
 * exponentially — a quantified group that itself ends in a quantifier, as in `(a+)+` or `(\w*)*` —
 * is refused rather than run over every line of the project.
 *
 * @throws UsageError `footprint_pattern` for an empty, too long, invalid or nested-quantifier pattern
 */
export function compileFootprintPattern(pattern: string): RegExp {
  if (pattern.length === 0 || pattern.length > MAX_PATTERN_CHARS) {
    throw new UsageError(
      `Pattern must be 1 to ${MAX_PATTERN_CHARS} characters: ${JSON.stringify(pattern.slice(0, 60))}`,
      { code: 'footprint_pattern' },
    );
  }
  if (/\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)\s*[+*{]/.test(pattern)) {
    throw new UsageError(`Pattern has a repeated group that can take exponential time: ${JSON.stringify(pattern)}`, {
      code: 'footprint_pattern',
      hint: 'Write it without a quantifier on a group that is itself quantified.',
    });
  }
  try {
    return new RegExp(pattern, 'u');
  } catch (error) {
    throw new UsageError(`Not a valid regular expression: ${JSON.stringify(pattern)} (${(error as Error).message})`, {
      code: 'footprint_pattern',
    });
  }
}

/**
 * 1-based numbers of the lines of `text` that match any pattern.
 *
 * @returns ascending line numbers; lines over 2,000 characters are skipped
 */
export function matchingLines(text: string, patterns: readonly RegExp[]): number[] {
  const out: number[] = [];
  let line = 1;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    if (end - start <= MAX_LINE_CHARS) {
      const s = text.slice(start, end);
      if (patterns.some((p) => p.test(s))) out.push(line);
    }
    if (end === text.length) break;
    start = end + 1;
    line++;
  }
  return out;
}

/** Options of `collectFootprint`. */
export interface CollectFootprintOptions {
  /** the scanned candidates (agent/context/scan.ts) */
  candidates: readonly ScannedFile[];
  /** files pinned by path (already resolved to candidate paths); whole files in scope */
  paths?: readonly string[];
  /** regular expressions; a candidate with a matching line joins with the regions around its matches */
  patterns?: readonly string[];
}

/** Files whose lines are matched in one time-limited call, and most characters of text in one. */
const BATCH_FILES = 256;
const BATCH_CHARS = 4 << 20;
/** Most ms one batch of files may take to match; a pattern that backtracks past it is refused, not waited for. */
export const MATCH_TIMEOUT_MS = 5000;

let matcher: { context: Context; script: Script } | undefined;

/**
 * `matchingLines` of each text under a time limit. A regular expression runs synchronously and cannot be
 * stopped from outside (not by Ctrl-C or SIGTERM either, whose handlers wait for it): a pattern from a model
 * that backtracks catastrophically on one line (`(a|a)*b`, `((a+))+b`, `\w*\w*\w*x`) would hold the run for
 * good. node:vm's timeout interrupts the call, whatever the pattern's shape.
 *
 * @throws UsageError `footprint_pattern` when the batch takes over MATCH_TIMEOUT_MS
 */
function matchWithinTime(texts: readonly string[], patterns: readonly RegExp[]): number[][] {
  matcher ??= { context: createContext({}), script: new Script('run()') };
  let lines: number[][] = [];
  matcher.context.run = () => {
    lines = texts.map((text) => matchingLines(text, patterns));
  };
  try {
    matcher.script.runInContext(matcher.context, { timeout: MATCH_TIMEOUT_MS });
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw error;
    const shown = patterns.map((p) => JSON.stringify(p.source)).join(', ');
    throw new UsageError(`Patterns ${shown} took over ${MATCH_TIMEOUT_MS / 1000} s on ${texts.length} files`, {
      code: 'footprint_pattern',
      hint: 'A pattern that backtracks (a repeated group, alternatives that overlap) is refused; write it plainer.',
    });
  } finally {
    matcher.context.run = undefined;
  }
  return lines;
}

/**
 * Read the footprint's files: pinned paths whole, plus every candidate with a line matching a
 * pattern (with its matched lines). Text is redacted exactly as context text is. Lines are matched in
 * batches under a time limit (matchWithinTime).
 *
 * @returns files in path order with their redacted text; unreadable or non-text files are left out
 * @throws UsageError for an invalid pattern, or one that takes too long
 */
export async function collectFootprint(options: CollectFootprintOptions): Promise<FootprintFile[]> {
  const patterns = (options.patterns ?? []).map(compileFootprintPattern);
  const pinned = new Set(options.paths ?? []);
  const out: FootprintFile[] = [];
  let batch: { path: string; text: string }[] = [];
  let batchChars = 0;
  const flush = (): void => {
    // Patterns run on the file as on disk (a secret-looking token may be what the task renames);
    // only the text that is sent is redacted.
    const found =
      patterns.length > 0
        ? matchWithinTime(
            batch.map((f) => f.text),
            patterns,
          )
        : [];
    for (const [i, { path, text }] of batch.entries()) {
      const matchLines = found[i] ?? [];
      if (!pinned.has(path) && matchLines.length === 0) continue;
      out.push({ path, text: redactSecrets(text, path).text, matchLines: pinned.has(path) ? [] : matchLines });
    }
    batch = [];
    batchChars = 0;
  };
  for (const file of options.candidates) {
    if (!pinned.has(file.path) && patterns.length === 0) continue;
    let text: string;
    try {
      const cls = classifyContent(await readFile(file.absPath));
      if (cls.kind !== 'text') continue;
      text = cls.text;
    } catch {
      continue;
    }
    batch.push({ path: file.path, text });
    batchChars += text.length;
    if (batch.length >= BATCH_FILES || batchChars >= BATCH_CHARS) flush();
  }
  flush();
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The candidates a scope answer's pathspecs name: an exact path, or every path under a folder
 * (`src/` or `src`). Glob characters are not interpreted here; use patterns for those.
 *
 * @returns candidate paths, sorted; names outside the candidates (secret, ignored, missing) are dropped
 */
export function pathsUnder(pathspecs: readonly string[], candidatePaths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const raw of pathspecs) {
    const spec = raw.trim().replace(/^\.\//, '').replace(/\/+$/, '');
    if (spec === '' || spec === '.') continue;
    for (const p of candidatePaths) if (p === spec || p.startsWith(`${spec}/`)) out.add(p);
  }
  return [...out].sort();
}
