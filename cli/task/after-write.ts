import chalk from 'chalk';
import { escapeTerminal } from '../../utils/terminal-text.js';
import type { VerifyReport } from '../../agent/write-after.js';

// Verify, commit and the uncommitted-files check run in the write stage (agent/write-after.ts); this file
// is how their outcomes read on the console.

/**
 * The warning shown before writing over files with uncommitted git changes; with `--commit` (`commit`) it says
 * those changes get a commit of their own first.
 */
export function uncommittedWarning(paths: readonly string[], commit: boolean): string {
  return commit
    ? `${chalk.yellow('!')} Uncommitted changes in ${paths.map((p) => escapeTerminal(p, 'line')).join(', ')}: --commit commits them first, on their own, then the edit.`
    : `${chalk.yellow('!')} Uncommitted changes in ${paths.map((p) => escapeTerminal(p, 'line')).join(', ')}; \`clawcode undo\` restores them exactly, but you may want to commit first.`;
}

/** The line after the files' uncommitted changes were committed on their own, before a `--commit` write. */
export function committedFirstLine(files: readonly string[], commit: string): string {
  return `${chalk.green('✓')} Committed the uncommitted changes in ${files.join(', ')} first, as ${commit.slice(0, 10)}`;
}

/** The line after a `--commit`: how many files, and the commit's short hash. */
export function committedLine(files: readonly string[], commit: string): string {
  return `${chalk.green('✓')} Committed ${files.length} file${files.length === 1 ? '' : 's'} as ${commit.slice(0, 10)}`;
}

/** Print a verify outcome: the output tail when it failed, passed/failed, and a rollback. */
export function printVerify(verify: VerifyReport, out: (text: string) => void): void {
  const passed = verify.exitCode === 0 && !verify.timedOut;
  // The output is the project's: its own colour sequences would stay open over the lines printed after it.
  if (!passed && verify.tail) out(escapeTerminal(verify.tail.replace(/\n$/, '')));
  out(
    passed
      ? `${chalk.green('✓')} verify passed`
      : `${chalk.red('✗')} verify failed (${verify.timedOut ? 'timed out' : `exit ${verify.exitCode}`})`,
  );
  if (verify.rolledBack) out(`${chalk.yellow('↺')} Rolled back: the files are as they were before this run.`);
  if (verify.rollbackError)
    out(
      `${chalk.red('!')} Not rolled back: ${escapeTerminal(verify.rollbackError, 'line')}. The files stay written as the verify command left them.`,
    );
}
