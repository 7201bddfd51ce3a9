import { keepLastPlan, keepUnusedReplies } from '../../agent/kept-output.js';
import type { SavedPlan } from '../../agent/plan-file.js';
import { ClawcodeError } from '../../utils/errors.js';

/**
 * Keep a task's plan as its project's last (`clawcode apply --last` brings it back after a no, a dry run or a
 * failed write). Best effort: a clawcode home that cannot be written costs the task nothing.
 */
export async function keepAsLastPlan(rootDir: string, saved: SavedPlan, homeDir?: string): Promise<void> {
  await keepLastPlan(rootDir, saved, homeDir).catch(() => undefined);
}

/**
 * When `error` carries model replies that were paid for and gave no plan, keep them under the clawcode home and
 * say where at the end of its message, so every surface that shows the error shows the file. Never throws.
 */
export async function keepRepliesOf(error: unknown, homeDir?: string): Promise<void> {
  if (!(error instanceof ClawcodeError) || !error.replies?.length) return;
  const paths = await keepUnusedReplies(error.replies, homeDir).catch(() => []);
  if (paths.length === 0) return;
  // The sentence added needs the message before it to end as one ("...received array The reply is kept").
  if (!/[.!?]$/.test(error.message)) error.message += '.';
  error.message +=
    paths.length === 1
      ? ` The reply is kept in ${paths[0]}.`
      : ` The replies are kept in ${paths.slice(0, -1).join(', ')} and ${paths.at(-1)}.`;
}
