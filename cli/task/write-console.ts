import chalk from 'chalk';
import { escapeTerminal } from '../../utils/terminal-text.js';
import type { PlannedChange } from '../../agent/prepare.js';
import {
  LARGE_REWRITE_FILES,
  type AcceptedFile,
  type ChangeApproval,
  type WriteDecisions,
  type WriteNotice,
} from '../../agent/write-stage.js';
import { commandQuestionText, printCommandNotice } from './commands-step.js';
import { committedFirstLine, committedLine, printVerify, uncommittedWarning } from './after-write.js';
import {
  colorDiff,
  folderSummary,
  formatChangeList,
  formatPatchResults,
  formatPathIssues,
  plural,
  undoCommand,
} from '../console/render.js';

/** How the console asks: a yes/no question, and optionally a per-hunk review of the changes. */
export interface ConsoleAsk {
  /** `defaultYes: false` for a question whose Enter alone means no. */
  confirm: (message: string, defaultYes?: boolean) => Promise<boolean>;
  /** Decide which changes to write; resolves to the files to write, or null (or none) to write nothing. */
  review?: (changes: readonly PlannedChange[]) => Promise<AcceptedFile[] | null>;
}

/**
 * The write stage's decisions as console prompts: one yes/no (or the review) for the changes, the batch
 * question and one question per destructive command. Undefined callbacks when nobody can be asked.
 */
export function consoleDecisions(ask: ConsoleAsk, interactive: boolean): WriteDecisions {
  if (!interactive) return {};
  return {
    approveChanges: async (changes): Promise<ChangeApproval> => {
      if (ask.review) {
        const accepted = await ask.review(changes);
        return accepted && accepted.length > 0 ? { type: 'accept-some', files: accepted } : { type: 'decline' };
      }
      return (await ask.confirm(`Apply these changes to ${plural(changes.length, 'file')}?`))
        ? { type: 'accept-all' }
        : { type: 'decline' };
    },
    approveCommands: (question) => ask.confirm(commandQuestionText(question), question.type === 'batch'),
    approveLargeRewrite: (files) =>
      ask.confirm(`The plan's rules change ${files} files (more than ${LARGE_REWRITE_FILES}). Go on to the review?`),
  };
}

/**
 * Print one write-stage notice on the console, as the task flow always has: the plan and its diffs, why
 * nothing was written, what was written, verify, commit and command progress.
 *
 * @param out      prints one line (or block) of text
 * @param rootDir  the project root, for the undo command printed after a write
 */
export function printWriteNotice(notice: WriteNotice, out: (text: string) => void, rootDir: string): void {
  switch (notice.type) {
    case 'preview':
      return printPreview(notice, out);
    case 'refused':
      if (notice.reason === 'path_issues') {
        out(chalk.red.bold('\nThe plan was refused; nothing was written:') + '\n' + formatPathIssues(notice.issues));
      } else if (notice.reason === 'large_rewrite') {
        out(chalk.yellow(`Not applied: the plan's rules change ${notice.files} files; pass --yes to write them.`));
      } else {
        out(chalk.red.bold('\nThe plan could not be applied; nothing was written.'));
      }
      return;
    case 'dry_run':
      return out(chalk.dim('\nDry run: nothing written.'));
    case 'uncommitted':
      return out(uncommittedWarning(notice.paths, notice.commit));
    case 'committed_first':
      return out(committedFirstLine(notice.files, notice.commit));
    case 'no_terminal':
      return out(chalk.yellow('\nNot applied: no terminal to confirm in. Pass --yes to write the changes.'));
    case 'declined':
      return out(chalk.yellow('Nothing written.'));
    case 'written':
      return out(
        `\n${chalk.green('✓')} Wrote ${plural(notice.files.length, 'file')} ${chalk.dim(`(undo: ${undoCommand(notice.runId, rootDir)})`)}`,
      );
    case 'verify_started':
      return out(chalk.dim(`\nVerify: $ ${escapeTerminal(notice.command, 'line')}`));
    case 'verify_finished':
      return printVerify(notice.verify, out);
    case 'committed':
      return out(committedLine(notice.files, notice.commit));
    default:
      return printCommandNotice(notice, out);
  }
}

function printPreview(notice: Extract<WriteNotice, { type: 'preview' }>, out: (text: string) => void): void {
  const { plan, prepared } = notice;
  if (plan.analysis) out(`${chalk.bold('Plan:')} ${escapeTerminal(plan.analysis)}`);
  if (prepared.pathIssues.length > 0) return;
  if (prepared.results.length > 0) out('\n' + formatPatchResults(prepared.results, plan.patches));
  if (!prepared.ok) return;
  if (prepared.changes.length === 0) {
    out(chalk.yellow('\nThe plan changes no file.'));
    return;
  }
  if (!prepared.results.some((r) => r.files)) {
    for (const change of prepared.changes) out('\n' + colorDiff(change.diff.replace(/\n$/, '')));
    out('\n' + chalk.bold('Files:') + '\n' + formatChangeList(prepared.changes));
    return;
  }
  // Rules change many files: the folders first, then the diffs folder by folder.
  out(`\n${chalk.bold('Changes by folder:')}\n${folderSummary(prepared.changes)}`);
  const byPath = [...prepared.changes].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const change of byPath) out('\n' + colorDiff(change.diff.replace(/\n$/, '')));
}
