import { escapeTerminal, terminalJson } from '../../utils/terminal-text.js';
import chalk from 'chalk';
import { confirmPrompt } from '../console/ask.js';
import { UsageError } from '../../utils/errors.js';
import {
  previewUndo,
  UndoConflictError,
  undoRun,
  type UndoPreview,
  type UndoResult,
} from '../../utils/journal/undo.js';
import { acquireProjectLock } from '../../utils/journal/lock.js';
import { recoverUnfinishedRuns } from '../recover.js';
import { revertCommittedRun, type CommittedRunOutcome } from './undo-commit.js';
import { taskHeadline } from '../../utils/task-text.js';
import { plural } from '../console/render.js';

/** Options of `clawcode undo [runId]`. Streams and `confirm` are injected so tests drive them. */
export interface UndoCommandOptions {
  rootDir: string;
  /** the run to undo; default: the newest applied run */
  runId?: string;
  /** `--force`: restore the untouched files even when others changed since the run */
  force?: boolean;
  /** `--yes`: do not ask */
  yes?: boolean;
  /** `--commit-hooks`: git runs the repository's hooks (and signs) for the revert commit; default none */
  commitHooks?: boolean;
  /** `--json`: print one JSON object, never prompt */
  json?: boolean;
  /** a person can be asked (TTY and not --json) */
  interactive?: boolean;
  homeDir?: string;
  /** how long to wait for another clawcode run on this project to finish, in ms (default 10 000) */
  lockWaitMs?: number;
  stdout?: NodeJS.WritableStream;
  /** yes/no question; default @inquirer/prompts `confirm` */
  confirm?: (message: string) => Promise<boolean>;
}

/** How `clawcode undo` ended; `exitCode` is 0 for both (declining is not an error). */
export interface UndoCommandOutcome {
  status: 'undone' | 'declined';
  runId: string;
  result?: UndoResult;
  exitCode: number;
  /** Set when the run had been committed (`--commit`): the revert commit made, or why none was. */
  git?: Exclude<CommittedRunOutcome, { kind: 'not_committed' }>;
}

/** The files an undo would touch, as shown before asking. */
function formatUndoPreview(preview: UndoPreview): string {
  const { run } = preview;
  const lines = [
    chalk.bold(`Undo run ${run.runId}`) +
      chalk.dim(` (${new Date(run.createdAt).toLocaleString()})`) +
      `: ${escapeTerminal(taskHeadline(run.task, 1, 200))}`,
  ];
  for (const file of preview.restorable) {
    lines.push(
      file.created
        ? `  ${chalk.red('delete ')} ${escapeTerminal(file.path, 'line')} ${chalk.dim('(created by the run)')}`
        : `  ${chalk.green('restore')} ${escapeTerminal(file.path, 'line')}`,
    );
  }
  for (const conflict of preview.conflicts) {
    lines.push(
      `  ${chalk.yellow('changed')} ${escapeTerminal(conflict.path, 'line')} ${chalk.dim(`(${conflict.kind} since the run; left alone)`)}`,
    );
  }
  return lines.join('\n');
}

/**
 * `clawcode undo [runId] [--force] [--yes]`: under the project lock, first roll back a run that was
 * interrupted mid-apply (asking when a person can be asked), then show what would be restored,
 * refuse when files changed since the run (unless `--force`, which restores only the untouched
 * ones), confirm, and undo.
 *
 * @throws UndoConflictError (exit 1) files changed and no `--force` (or nothing left to restore)
 * @throws UsageError (exit 2) confirmation needed but nobody can be asked (pass `--yes`)
 * @throws ProjectLockedError (exit 1) another clawcode run kept the project busy beyond `lockWaitMs`
 * @throws RunNotFoundError / ClawcodeError from utils/journal/journal.ts (no such run, nothing to undo)
 */
export async function runUndoCommand(options: UndoCommandOptions): Promise<UndoCommandOutcome> {
  const release = await acquireProjectLock(options.rootDir, {
    homeDir: options.homeDir,
    waitMs: options.lockWaitMs ?? 10_000,
  });
  try {
    return await undoLocked(options);
  } finally {
    await release();
  }
}

async function undoLocked(options: UndoCommandOptions): Promise<UndoCommandOutcome> {
  const out = (text: string): void => {
    if (!options.json) (options.stdout ?? process.stdout).write(`${escapeTerminal(text, 'colored')}\n`);
  };
  const canAsk = Boolean(options.interactive && !options.json && !options.yes);
  await recoverUnfinishedRuns({
    rootDir: options.rootDir,
    homeDir: options.homeDir,
    print: options.json ? undefined : out,
    confirm: canAsk ? (options.confirm ?? confirmPrompt) : undefined,
  });
  const preview = await previewUndo(options);
  out(formatUndoPreview(preview));
  if (preview.conflicts.length > 0 && (!options.force || preview.restorable.length === 0)) {
    throw new UndoConflictError(preview.run.runId, preview.conflicts);
  }
  if (!options.yes) {
    if (!options.interactive || options.json) {
      throw new UsageError('clawcode undo needs a confirmation', {
        code: 'confirmation_needed',
        hint: 'Pass --yes to undo without being asked.',
      });
    }
    const count = preview.restorable.length;
    const ok = await (options.confirm ?? confirmPrompt)(`Undo ${count} file${count === 1 ? '' : 's'}?`);
    if (!ok) {
      out(chalk.dim('Nothing changed.'));
      return { status: 'declined', runId: preview.run.runId, exitCode: 0 };
    }
  }
  const result = await undoRun({ ...options, runId: preview.run.runId });
  if (!options.json) {
    const done = result.restored.length + result.deleted.length;
    out(
      `${chalk.green('✓')} Undid run ${result.runId}: ${done} file${done === 1 ? '' : 's'} restored` +
        (result.skipped.length > 0
          ? chalk.yellow(`, ${plural(result.skipped.length, 'changed file')} left alone`)
          : ''),
    );
  }
  const committed = await revertCommittedRun(
    options.rootDir,
    { task: preview.run.task, files: preview.run.files.map((f) => f.path) },
    result.skipped.length === 0,
    Boolean(options.commitHooks),
  );
  if (committed.kind === 'reverted') {
    out(
      `${chalk.green('✓')} The run was committed as ${committed.commit.slice(0, 10)}; recorded the undo as revert commit ${committed.revert.slice(0, 10)}`,
    );
  } else if (committed.kind === 'left') {
    out(
      `${chalk.yellow('!')} The run was committed as ${committed.commit.slice(0, 10)}; ${committed.why}, so nothing was committed. ` +
        `Commit the restored files yourself, or run: git revert ${committed.commit.slice(0, 10)}`,
    );
  }
  const git = committed.kind === 'not_committed' ? {} : { git: committed };
  if (options.json)
    (options.stdout ?? process.stdout).write(`${terminalJson({ status: 'undone', ...result, ...git })}\n`);
  return { status: 'undone', runId: result.runId, result, exitCode: 0, ...git };
}
