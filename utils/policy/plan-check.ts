/**
 * Checks on a whole plan's target paths before anything is applied (docs/architecture.md, "Invariants"): every
 * target passes the one path policy (utils/policy/paths.ts) — inside the project root (no absolute path,
 * no `..` out, no symlink of the file or of a parent folder that leads outside), not a control path
 * (`.git/`, `.clawcode/`, installed tools), not a secret, not binary, and a regular file when it exists
 * (never a folder, FIFO, socket or device). Symlinks are judged by where they really lead.
 */
import { realpath } from 'node:fs/promises';
import type { PatchOp } from '../plan.js';
import {
  normalizeRelPath,
  resolveProjectPath,
  shownPath,
  type NormalizedPath,
  type PathRefusal,
  type PathRefusalCode,
} from './paths.js';

/** Why a plan path was refused (the path policy's codes). */
export type PlanPathIssueCode = PathRefusalCode;

/** One refused patch target. `index` is the patch's 0-based position in the plan. */
export interface PlanPathIssue {
  index: number;
  /** The path as written in the plan; over 80 characters it is shortened, with control characters JSON-quoted. */
  file: string;
  code: PlanPathIssueCode;
  /** One line for a person, naming the path (shortened when long). */
  message: string;
}

/** Result of `normalizePlanPath`: a clean project-relative path, or why there is none. */
export type NormalizedPlanPath = NormalizedPath;

/**
 * Turn a plan path into a project-relative path with `/` separators, without touching the disk
 * (the path policy's `normalizeRelPath`).
 */
export function normalizePlanPath(p: string): NormalizedPlanPath {
  return normalizeRelPath(p);
}

/** The verdict on a plan's targets: the refusals, and where each accepted target really leads. */
export interface PlanPathVerdict {
  /** One issue per refused patch, in plan order; empty when every path is safe. */
  issues: PlanPathIssue[];
  /**
   * Patch index → the one project-relative spelling of its file: normalized and with symlinks inside the
   * root resolved, so `./src//a.ts`, `lib/a.ts` (with `lib -> src`) and `src/a.ts` are one file, not three.
   */
  canonical: Map<number, string>;
}

/**
 * Judge every patch target of a plan against the project root on disk.
 *
 * @param rootDir  the project root (may itself be reached through a symlink)
 * @param patches  the plan's patches; only `file` is read
 * @param skip     indexes whose `file` is a pathspec (rules, wide replacements), judged file by file elsewhere
 * @returns the refusals and the canonical path of every accepted target
 * @throws never for a bad path (that is an issue); only when the root itself cannot be resolved
 */
export async function resolvePlanPaths(
  rootDir: string,
  patches: readonly PatchOp[],
  skip: ReadonlySet<number> = new Set(),
): Promise<PlanPathVerdict> {
  const root = await realpath(rootDir);
  const issues: PlanPathIssue[] = [];
  const canonical = new Map<number, string>();
  const verdicts = new Map<string, PathRefusal | string>();
  for (const [index, patch] of patches.entries()) {
    if (skip.has(index)) continue;
    let verdict = verdicts.get(patch.file);
    if (verdict === undefined) {
      const resolved = await resolveProjectPath(root, patch.file, { sniffBinary: true });
      verdict = resolved.ok ? resolved.realRel : { code: resolved.code, message: resolved.message };
      verdicts.set(patch.file, verdict);
    }
    if (typeof verdict === 'string') canonical.set(index, verdict);
    else issues.push({ index, file: shownPath(patch.file), ...verdict });
  }
  issues.push(...fileFolderClashes(patches, canonical));
  issues.sort((a, b) => a.index - b.index);
  return { issues, canonical };
}

/**
 * A plan whose patches name each file by its canonical path ({@link resolvePlanPaths}), so later stages
 * key one file by one name. Patches without a canonical path (pathspecs, skipped) keep their text.
 *
 * @returns a copy of `plan` with new patch objects where the path changed; `plan` itself is not modified
 */
export function withCanonicalPaths<P extends { patches: readonly PatchOp[] }>(
  plan: P,
  canonical: ReadonlyMap<number, string>,
): P {
  const patches = plan.patches.map((p, i) => {
    const file = canonical.get(i);
    return file === undefined || file === p.file ? p : { ...p, file };
  });
  return { ...plan, patches };
}

/**
 * Targets that need another target of the same plan to be a folder (`gen/a.ts/b.ts` beside `gen/a.ts`):
 * neither exists yet, so the disk cannot tell, and the write would fail halfway or look like a file that
 * changed on disk.
 *
 * @returns one `path_not_file` issue per such target
 */
function fileFolderClashes(patches: readonly PatchOp[], canonical: ReadonlyMap<number, string>): PlanPathIssue[] {
  const files = new Set(canonical.values());
  const issues: PlanPathIssue[] = [];
  for (const [index, rel] of canonical) {
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      if (!files.has(folder)) continue;
      const message = `${shownPath(rel)} needs ${shownPath(folder)} to be a folder, but the plan also writes it as a file`;
      issues.push({ index, file: shownPath(patches[index]!.file), code: 'path_not_file', message });
      break;
    }
  }
  return issues;
}
