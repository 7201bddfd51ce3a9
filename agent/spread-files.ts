import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { PatchOp } from '../utils/plan.js';
import { languageOfPath, type RewriteLanguage } from '../utils/patch/rewrite-lang.js';
import { PLAN_PATHSPECS_TIME_MS, resolvePathspecs } from './context/pins.js';
import { scanProject } from './context/scan.js';

/**
 * The files of plan patches that spread over a pathspec: every codemod rule (`operation: "rewrite"`), and a
 * `replace` with `replace_all: true` whose `file` is a pathspec (glob characters, a `:` magic prefix, a
 * trailing `/`, or a folder). A pathspec is resolved exactly as `--files` is (agent/context/pins.ts:
 * git's pathspec rules over the scanner's candidates), with glob magic, so ignored, secret, binary, control
 * and generated files are never named.
 */

/** Whether a `replace_all` patch's `file` is a pathspec rather than one path. */
async function namesMany(rootDir: string, file: string): Promise<boolean> {
  if (/[*?[]/.test(file) || file.startsWith(':') || file.endsWith('/') || file === '.') return true;
  if (file.split('/').includes('..') || file.startsWith('/')) return false;
  try {
    return (await stat(resolve(rootDir, file))).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The indexes of a plan's patches that spread over a pathspec.
 * @returns 0-based patch indexes, ascending
 */
export async function spreadPatchIndexes(rootDir: string, patches: readonly PatchOp[]): Promise<number[]> {
  const out: number[] = [];
  for (const [i, p] of patches.entries()) {
    if (p.operation === 'rewrite' || (p.replace_all === true && (await namesMany(rootDir, p.file)))) out.push(i);
  }
  return out;
}

/** Options of {@link resolveSpreadFiles}. */
export interface SpreadFilesOptions {
  /** the scanner's candidate paths when the caller has them; otherwise the project is scanned once here */
  fileList?: readonly string[];
  /** settings `ignore`, for that scan */
  extraIgnore?: string[];
  /** rules cover only files of this language (`clawcode rewrite --lang`) */
  language?: RewriteLanguage;
}

/**
 * Resolve the pathspec of each spreading patch to project files. A rule keeps only files a grammar covers
 * (of `language` when given); a file an identical earlier rule already covers is not named again, so a plan
 * (or a merge of shard plans) that repeats a rule over overlapping pathspecs rewrites each file once.
 *
 * @param indexes  from {@link spreadPatchIndexes}
 * @returns patch index → project-relative paths in pathspec order (empty when the pathspec names none)
 * @throws never for a pathspec that names nothing (that is an empty list); IoError when the scan fails;
 *         UsageError `pathspec_too_slow` when the plan's pathspecs take too long (PATHSPEC_TIME_MS each,
 *         PLAN_PATHSPECS_TIME_MS together)
 */
export async function resolveSpreadFiles(
  rootDir: string,
  patches: readonly PatchOp[],
  indexes: readonly number[],
  options: SpreadFilesOptions = {},
): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  if (indexes.length === 0) return out;
  const fileList = options.fileList ?? (await scanProject(rootDir, { extraIgnore: options.extraIgnore })).fileList;
  const covered = new Map<string, Set<string>>();
  // One deadline for the whole plan: a plan of many slow pathspecs must not hold the run once per pathspec.
  const deadline = performance.now() + PLAN_PATHSPECS_TIME_MS;
  for (const i of indexes) {
    const patch = patches[i]!;
    const spec = patch.file.startsWith(':') ? patch.file : `:(glob)${patch.file.replace(/^\.\/+/, '')}`;
    const specs = [spec === ':(glob).' ? ':(glob)**' : spec];
    const { paths } = await resolvePathspecs(rootDir, specs, fileList, { deadline });
    const key = `${patch.operation}\0${patch.find}\0${patch.replace}`;
    const seen = covered.get(key) ?? new Set<string>();
    covered.set(key, seen);
    const files = paths.filter((p) => {
      if (seen.has(p)) return false;
      if (patch.operation !== 'rewrite') return true;
      const lang = languageOfPath(p);
      return lang !== undefined && (options.language === undefined || lang === options.language);
    });
    for (const p of files) seen.add(p);
    out.set(i, files);
  }
  return out;
}
