import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { applyPatches, type PatchOutcome } from '../utils/patch/plan-apply.js';
import { resolvePlanPaths, withCanonicalPaths, type PlanPathIssue } from '../utils/policy/plan-check.js';
import { resolveProjectPath, shownPath } from '../utils/policy/paths.js';
import { makeUnifiedDiff } from '../utils/diff.js';
import { IoError } from '../utils/errors.js';
import type { Plan } from '../utils/plan.js';
import type { AgentEmitter } from './events.js';
import { resolveSpreadFiles, spreadPatchIndexes, type SpreadFilesOptions } from './spread-files.js';

/** A target file that is not valid UTF-8 (it would not survive a decode and re-encode). */
export interface EncodingIssue {
  index: number;
  file: string;
  code: 'path_not_utf8';
  message: string;
}

/** One file a plan would change, computed in memory. */
export interface PlannedChange {
  /** Project-relative path with `/` separators. */
  path: string;
  /** Exact previous bytes on disk, or null when the file does not exist (it will be created). */
  before: Buffer | null;
  /** Previous content decoded as UTF-8 (BOM kept), or null for a new file. */
  beforeText: string | null;
  /** New content. */
  after: string;
  /** Unified diff of the change (utils/diff.ts). */
  diff: string;
}

/** The plan applied in memory: per-patch outcomes and the resulting file changes. Nothing is written. */
export interface PreparedPlan {
  /** True when every path check passed and every patch applied. */
  ok: boolean;
  /** Plan-level refusals (path escape, binary, secret or non-UTF-8 target); when non-empty no patch was tried. */
  pathIssues: (PlanPathIssue | EncodingIssue)[];
  /** One outcome per patch, in plan order (empty when pathIssues refused the plan). */
  results: PatchOutcome[];
  /** Files whose content would change, in first-patched order; empty unless `ok`. */
  changes: PlannedChange[];
  /** Bytes of every target as read (null = missing); empty when a path check refused the plan. */
  targets: ReadonlyMap<string, Buffer | null>;
}

/**
 * Read the current bytes of every file a plan targets (a patch in `spread`, a rule or a replacement over a
 * pathspec, names files only once resolved). Every target is read from disk, so excerpts sent as context
 * never stand in for the real file.
 * A missing file maps to null: the plan may create it.
 *
 * @returns path → bytes or null, in first-mention order
 * @throws IoError when a file exists but cannot be read
 */
export async function readPlanTargets(
  rootDir: string,
  plan: Plan,
  emitter?: AgentEmitter,
  spread: ReadonlySet<number> = new Set(),
): Promise<Map<string, Buffer | null>> {
  const targets = new Map<string, Buffer | null>();
  for (const [i, patch] of plan.patches.entries()) {
    if (targets.has(patch.file) || spread.has(i)) continue;
    emitter?.emit('read_file', { path: patch.file });
    try {
      targets.set(patch.file, await readFile(resolve(rootDir, patch.file)));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') targets.set(patch.file, null);
      else throw new IoError(`Cannot read ${patch.file}: ${(error as Error).message}`, { cause: error });
    }
  }
  return targets;
}

/** Options of {@link preparePlan}: how rules find their files. */
export type PrepareOptions = SpreadFilesOptions;

/**
 * Validate a plan's paths, then apply all of its patches in memory, in order, with the patch
 * engine (utils/patch/plan-apply.ts). All or nothing: `changes` is filled only when every patch applied.
 * A rule's pathspec is resolved through the path policy (agent/spread-files.ts) and every file it changes
 * is checked again, as a plan path is; each rule that applied is emitted as `rewrite_done`.
 *
 * @param rootDir  absolute project root
 * @param given    a parsed, schema-valid plan; each target is then named by where it really is (two
 *                 spellings of one file are one file), so results and changes carry that path
 * @returns the prepared plan; a refused path or patch is a value (`ok: false`), not an exception
 * @throws IoError when a target file exists but cannot be read
 */
export async function preparePlan(
  rootDir: string,
  given: Plan,
  emitter?: AgentEmitter,
  options: PrepareOptions = {},
): Promise<PreparedPlan> {
  const spread = await spreadPatchIndexes(rootDir, given.patches);
  const spreadSet = new Set(spread);
  const verdict = await resolvePlanPaths(rootDir, given.patches, spreadSet);
  const pathIssues = verdict.issues;
  if (pathIssues.length > 0) return { ok: false, pathIssues, results: [], changes: [], targets: new Map() };
  // One file, one key: two spellings of a file (or a symlink to it) would each see its old text, and the
  // later write would drop the earlier one. Every later stage sees the path where the file really is.
  const plan = withCanonicalPaths(given, verdict.canonical);

  const targets = await readPlanTargets(rootDir, plan, emitter, spreadSet);
  const contents = new Map<string, string>();
  const encodingIssues: EncodingIssue[] = [];
  for (const [path, bytes] of targets) {
    const text = bytes === null ? '' : bytes.toString('utf8');
    // Decoding a non-UTF-8 file would rewrite its untouched bytes too (as U+FFFD); refuse it instead.
    if (bytes !== null && !Buffer.from(text, 'utf8').equals(bytes)) {
      const index = plan.patches.findIndex((p) => p.file === path);
      encodingIssues.push({
        index,
        file: path,
        code: 'path_not_utf8',
        message: 'is not valid UTF-8 text; clawcode edits UTF-8 files only',
      });
    }
    contents.set(path, text);
  }
  if (encodingIssues.length > 0) return { ok: false, pathIssues: encodingIssues, results: [], changes: [], targets };

  const spreadFiles = await resolveSpreadFiles(rootDir, plan.patches, spread, options);
  const spreadBytes = readSpreadFiles(rootDir, spreadFiles, contents);
  const applied = applyPatches(contents, plan.patches, spreadFiles);
  if (!applied.applied) return { ok: false, pathIssues: [], results: applied.results, changes: [], targets };

  const changes: PlannedChange[] = [];
  const change = (path: string, bytes: Buffer | null): void => {
    const after = applied.contents.get(path) ?? '';
    const beforeText = bytes === null ? null : bytes.toString('utf8');
    if (beforeText === after) return;
    changes.push({ path, before: bytes, beforeText, after, diff: makeUnifiedDiff(path, beforeText, after) });
  };
  for (const [path, bytes] of targets) change(path, bytes);
  for (const [path, bytes] of spreadBytes) {
    if (targets.has(path) || applied.contents.get(path) === bytes.toString('utf8')) continue;
    targets.set(path, bytes);
    change(path, bytes);
  }
  const refused = await recheckSpreadChanges(rootDir, applied.results, changes);
  if (refused.length > 0) return { ok: false, pathIssues: refused, results: [], changes: [], targets };
  for (const r of applied.results) {
    if (!r.files || !spreadSet.has(r.index) || r.dropped) continue;
    const patch = plan.patches[r.index]!;
    emitter?.emit('rewrite_done', {
      index: r.index,
      operation: patch.operation,
      pathspec: patch.file,
      find: patch.find,
      replace: patch.replace,
      matches: r.matchCount ?? 0,
      files: r.files.length,
      unparsed: r.unparsed ?? [],
    });
  }
  return { ok: true, pathIssues: [], results: applied.results, changes, targets };
}

/**
 * Read the files of every pathspec into `contents` (those not read already). A file that is not UTF-8 text
 * is left out: a rule cannot rewrite it, and a literal replacement would rewrite its other bytes.
 * @returns path → bytes as read, for the files added
 */
function readSpreadFiles(
  rootDir: string,
  spread: ReadonlyMap<number, string[]>,
  contents: Map<string, string>,
): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const files of spread.values()) {
    for (const path of files) {
      if (contents.has(path) || out.has(path)) continue;
      let bytes: Buffer;
      try {
        // Thousands of small files: a synchronous read costs a fraction of a thread-pool round trip each.
        bytes = readFileSync(resolve(rootDir, path));
      } catch (error) {
        // A candidate removed since the scan is simply not there any more.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw new IoError(`Cannot read ${path}: ${(error as Error).message}`, { cause: error });
      }
      if (!isUtf8(bytes)) continue;
      out.set(path, bytes);
      contents.set(path, bytes.toString('utf8'));
    }
  }
  for (const files of spread.values()) files.splice(0, files.length, ...files.filter((p) => contents.has(p)));
  return out;
}

/**
 * The one path policy once more on every file a rule or pathspec replacement changes (the scan already
 * applied it; this is where a plan path would be checked, so they are checked alike).
 */
async function recheckSpreadChanges(
  rootDir: string,
  results: readonly PatchOutcome[],
  changes: readonly PlannedChange[],
): Promise<PlanPathIssue[]> {
  const byPath = new Map<string, number>();
  for (const r of results) for (const f of r.files ?? []) if (!byPath.has(f.path)) byPath.set(f.path, r.index);
  if (byPath.size === 0) return [];
  const root = await realpath(rootDir);
  const issues: PlanPathIssue[] = [];
  for (const c of changes) {
    const index = byPath.get(c.path);
    if (index === undefined) continue;
    const verdict = await resolveProjectPath(root, c.path, { sniffBinary: true });
    if (!verdict.ok) issues.push({ index, file: shownPath(c.path), code: verdict.code, message: verdict.message });
  }
  return issues;
}
