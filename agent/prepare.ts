import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { applyPatches, type PatchOutcome } from '../utils/patch.js';
import { checkPlanPaths, type PlanPathIssue } from '../utils/policy/plan-check.js';
import { makeUnifiedDiff } from '../utils/diff.js';
import { IoError } from '../utils/errors.js';
import type { Plan } from '../utils/plan.js';
import type { AgentEmitter } from './events.js';

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
 * Read the current bytes of every file a plan targets. Every target is read from disk, so excerpts
 * sent as context never stand in for the real file.
 * A missing file maps to null: the plan may create it.
 *
 * @returns path → bytes or null, in first-mention order
 * @throws IoError when a file exists but cannot be read
 */
export async function readPlanTargets(
  rootDir: string,
  plan: Plan,
  emitter?: AgentEmitter,
): Promise<Map<string, Buffer | null>> {
  const targets = new Map<string, Buffer | null>();
  for (const patch of plan.patches) {
    if (targets.has(patch.file)) continue;
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

/**
 * Validate a plan's paths, then apply all of its patches in memory, in order, with the patch
 * engine (utils/patch.ts). All or nothing: `changes` is filled only when every patch applied.
 *
 * @param rootDir  absolute project root
 * @param plan     a parsed, schema-valid plan
 * @returns the prepared plan; a refused path or patch is a value (`ok: false`), not an exception
 * @throws IoError when a target file exists but cannot be read
 */
export async function preparePlan(rootDir: string, plan: Plan, emitter?: AgentEmitter): Promise<PreparedPlan> {
  const pathIssues = await checkPlanPaths(rootDir, plan.patches);
  if (pathIssues.length > 0) return { ok: false, pathIssues, results: [], changes: [], targets: new Map() };

  const targets = await readPlanTargets(rootDir, plan, emitter);
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

  const applied = applyPatches(contents, plan.patches);
  if (!applied.applied) return { ok: false, pathIssues: [], results: applied.results, changes: [], targets };

  const changes: PlannedChange[] = [];
  for (const [path, bytes] of targets) {
    const after = applied.contents.get(path) ?? '';
    const beforeText = bytes === null ? null : bytes.toString('utf8');
    if (beforeText === after) continue;
    changes.push({ path, before: bytes, beforeText, after, diff: makeUnifiedDiff(path, beforeText, after) });
  }
  return { ok: true, pathIssues: [], results: applied.results, changes, targets };
}
