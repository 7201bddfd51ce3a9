// Minimal path check (absolute and `..` paths) until the full plan checker of issue 4 lands.
import type { PatchOp } from '../llm/types.js';
export interface PlanPathIssue { index: number; file: string; code: string; message: string }
export async function checkPlanPaths(_rootDir: string, patches: readonly PatchOp[]): Promise<PlanPathIssue[]> {
  return patches.flatMap((p, index) => (p.file.startsWith('/') || p.file.split('/').includes('..') ? [{ index, file: p.file, code: 'path_escape', message: 'outside the project' }] : []));
}
