import type { PreparedPlan } from '../../agent/prepare.js';
import { diffStats } from '../../utils/diff.js';

/** One changed file in the `--json` report: its unified diff as shown at review, and line counts. */
export interface ChangeReport {
  /** Project-relative path with `/` separators. */
  path: string;
  /** True when the plan creates the file. */
  created: boolean;
  /** Lines added and removed (from the diff). */
  added: number;
  removed: number;
  /** The unified diff (`--- a/path`, `+++ b/path`, `@@` hunks), exactly as the review shows it. */
  diff: string;
}

/**
 * The `changes` part of a task or `apply` report: every file the prepared plan changes, in plan order,
 * with its unified diff. Empty when the plan did not apply (nothing would be written).
 */
export function changeReport(prepared: Pick<PreparedPlan, 'changes'>): ChangeReport[] {
  return prepared.changes.map((c) => {
    const { added, removed } = diffStats(c.diff);
    return { path: c.path, created: c.before === null, added, removed, diff: c.diff };
  });
}
