import { performance } from 'node:perf_hooks';
import { createContext, Script, type Context } from 'node:vm';
import { gitRecords } from '../../utils/git/repo.js';
import { ignore } from '../../utils/lazy-ignore.js';
import { UsageError } from '../../utils/errors.js';

/**
 * Pinned files: `--files <pathspec...>` and `@path` mentions in a task name files that go into the
 * context first. Resolution never widens what may be sent: every match is checked against the
 * scanner's candidate list, so secret, ignored, binary and outside-root files are refused exactly as
 * for ranked context. Also used to find the files of a sharded wide change.
 */

/** Result of `resolvePathspecs`. */
export interface ResolvedPathspecs {
  /** project-relative paths (`/` separators), in the order of the specs that matched them, no repeats */
  paths: string[];
  /** specs that matched no sendable file, as written */
  unmatched: string[];
}

/**
 * Most ms one pathspec may take to match, and all the pathspecs of one plan together. Both git's wildmatch
 * and the gitignore-style regular expressions backtrack on a pathspec with many wildcards over a long name or
 * a deep path (a few stars in one segment, a few double stars between folder names), and a regular
 * expression holds the process past Ctrl-C: a pathspec from a plan or a scope answer must not hold a run, so
 * one that matches past these is refused. The figures are in docs/tuning.md.
 */
export const PATHSPEC_TIME_MS = 10_000;
export const PLAN_PATHSPECS_TIME_MS = 60_000;

/** Options of {@link resolvePathspecs}. */
export interface PathspecOptions {
  /** `performance.now()` time by which every spec must be matched (a plan's, shared by its calls) */
  deadline?: number;
}

function gitLsFiles(rootDir: string, specs: readonly string[], timeoutMs: number): Promise<string[] | null> {
  return gitRecords(rootDir, ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...specs], {
    maxBytes: 64 << 20,
    timeoutMs,
  });
}

/**
 * A pathspec took past its time to match: refused in one line, exit 2, before anything is applied.
 * @param spec     the pathspec as written
 * @param limitMs  the time it had: PATHSPEC_TIME_MS, or what was left of the plan's deadline
 */
function pathspecTimeError(spec: string, limitMs: number): UsageError {
  const shown = JSON.stringify(spec.length > 80 ? `${spec.slice(0, 79)}…` : spec);
  const what = limitMs === PATHSPEC_TIME_MS ? '' : ' (the time left for all pathspecs of the plan)';
  return new UsageError(`Pathspec ${shown} took over ${limitMs / 1000} s to match the project's files${what}`, {
    code: 'pathspec_too_slow',
    hint: 'A pathspec with many wildcards backtracks on deep paths or long names; name the folders or files plainer.',
  });
}

/** A spec as a project-relative pattern: `./src/x.ts` → `src/x.ts`, `src/` → `src`. */
function normalise(spec: string): string {
  return spec
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '');
}

/**
 * Resolve git pathspecs and globs to project files. Inside a git work tree each spec goes through
 * `git ls-files --cached --others --exclude-standard -- <spec>` (git's pathspec rules: a folder
 * names everything under it, `*` crosses folders, `:(glob)` and other magic work); elsewhere, or
 * when git refuses a spec, it is matched with gitignore-style globs over `scanned`. Either way only
 * paths in `scanned` (the scanner's policy) are returned.
 *
 * @param rootDir  absolute project root
 * @param specs    pathspecs as the person wrote them, relative to the root
 * @param scanned  the scanner's candidate paths (project-relative, `/` separators)
 * @returns matched paths and the specs that matched nothing sendable
 * @throws UsageError `pathspec_too_slow` when matching passes the deadline (PATHSPEC_TIME_MS); git missing or
 *         failing otherwise falls back to glob matching
 */
export async function resolvePathspecs(
  rootDir: string,
  specs: readonly string[],
  scanned: readonly string[],
  options: PathspecOptions = {},
): Promise<ResolvedPathspecs> {
  let spec = { raw: '', until: 0, limit: 0 };
  // The time a spec has left: its own PATHSPEC_TIME_MS, or less when the plan's deadline comes first.
  const left = (raw: string, expired = false): number => {
    if (spec.raw !== raw) {
      const now = performance.now();
      const limit = Math.floor(Math.min(PATHSPEC_TIME_MS, (options.deadline ?? Infinity) - now));
      spec = { raw, until: now + limit, limit };
    }
    const ms = Math.floor(spec.until - performance.now());
    if (ms <= 0 || expired) throw pathspecTimeError(raw, Math.max(0, spec.limit));
    return ms;
  };
  const allowed = new Set(scanned);
  const paths: string[] = [];
  const seen = new Set<string>();
  const unmatched: string[] = [];
  for (const raw of specs) {
    const spec = normalise(raw);
    let hits: string[] = [];
    // `..` can only leave the root; git would list files outside it relative to it.
    if (allowed.has(spec) && !/[*?[\]:]/.test(raw)) {
      // A literal path of a candidate file names exactly that file: no git process for it (a 200-file
      // footprint would otherwise start 200 of them).
      hits = [spec];
    } else if (spec !== '' && !spec.split('/').includes('..') && !raw.startsWith('/')) {
      const fromGit = await gitLsFiles(rootDir, [raw], left(raw));
      hits = (fromGit ?? []).filter((p) => allowed.has(p));
      // Without git, glob magic is what the gitignore-style match does anyway.
      if (fromGit === null || hits.length === 0)
        hits = matchGlobWithin(spec.replace(/^:\(glob\)/, ''), scanned, raw, left);
    }
    if (hits.length === 0) unmatched.push(raw);
    for (const p of hits) if (!seen.has(p) && seen.add(p)) paths.push(p);
  }
  return { paths, unmatched };
}

let globRunner: { context: Context; script: Script } | undefined;

/**
 * matchGlob under a time limit: its regular expression runs synchronously, and node:vm's timeout interrupts it
 * whatever the pattern's shape (agent/wide/footprint.ts matches scope patterns the same way).
 * @param left  the ms `raw` has left; with `expired`, throws its refusal
 * @throws UsageError `pathspec_too_slow` past that time
 */
function matchGlobWithin(
  spec: string,
  scanned: readonly string[],
  raw: string,
  left: (raw: string, expired?: boolean) => number,
): string[] {
  globRunner ??= { context: createContext({}), script: new Script('run()') };
  let hits: string[] = [];
  globRunner.context.run = () => {
    hits = matchGlob(spec, scanned);
  };
  try {
    globRunner.script.runInContext(globRunner.context, { timeout: Math.max(1, left(raw)) });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') left(raw, true);
    throw error;
  } finally {
    globRunner.context.run = undefined;
  }
  return hits;
}

/** Paths of `scanned` a gitignore-style pattern names (anchored when it has a slash, like git). */
function matchGlob(spec: string, scanned: readonly string[]): string[] {
  if (scanned.includes(spec)) return [spec];
  const m = ignore().add(spec.includes('/') && !spec.startsWith('/') ? `/${spec}` : spec);
  return scanned.filter((p) => m.ignores(p));
}

/**
 * Resolve `@path` mentions of a task to project files: an exact project path, else the one path that
 * ends with it (`@retry.ts` when only `src/retry.ts` has that name).
 *
 * @param mentions  paths as written after `@`
 * @param scanned   the scanner's candidate paths
 * @returns resolved paths in mention order; a mention naming nothing or several files is skipped
 */
export function resolveMentions(mentions: readonly string[], scanned: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of mentions) {
    const m = normalise(raw);
    let hit: string | undefined = scanned.includes(m) ? m : undefined;
    if (!hit) {
      const ends = scanned.filter((p) => p.endsWith(`/${m}`));
      if (ends.length === 1) hit = ends[0];
    }
    if (hit && !out.includes(hit)) out.push(hit);
  }
  return out;
}

/**
 * The error for pinned pathspecs that matched no sendable file (`--files`, `:add`): one line naming
 * the first of them, exit 2.
 */
export function unmatchedPinError(unmatched: readonly string[]): UsageError {
  return new UsageError(`Pinned file "${unmatched[0]}" matches no file that can be sent.`, {
    hint: 'Name files inside the project (ignored, secret, binary and generated files are never sent); in the shell, :drop it.',
  });
}
