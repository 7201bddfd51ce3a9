import { escapeTerminal } from '../utils/terminal-text.js';
import chalk from 'chalk';
import { findInterruptedUndos, finishInterruptedUndo, type UndoResult } from '../utils/journal/undo.js';
import { findUnfinishedRuns, rollbackRun, type RollbackResult } from '../utils/journal/rollback.js';
import type { RunRecord } from '../utils/journal/store.js';
import { isLockedByOther, withProjectLock } from '../utils/journal/lock.js';
import { DEFAULT_LOCK_WAIT_MS } from '../utils/defaults.js';
import { confirmPrompt } from './console/ask.js';
import { taskHeadline } from '../utils/task-text.js';
import { plural } from './console/render.js';

/** Options of {@link recoverUnfinishedRuns}. */
export interface RecoverOptions {
  rootDir: string;
  homeDir?: string;
  /**
   * Ask before rolling back (pass it in a TTY). Without it the rollback happens at once: restoring
   * the exact pre-run bytes is the safe default when nobody can be asked.
   */
  confirm?: (message: string) => Promise<boolean>;
  /** where to tell the person what happened (stderr in the CLI); nothing is printed when absent */
  print?: (text: string) => void;
}

/** What start-up recovery found and did. */
export interface RecoverOutcome {
  /** runs left half-applied by a process that died */
  found: RunRecord[];
  rolledBack: RollbackResult[];
  /** undos that a process left halfway, now finished (never asked: the person asked for them) */
  finishedUndos: UndoResult[];
  /** the person said no: the runs stay `applying` and are offered again next time */
  declined: boolean;
  /** another live clawcode process holds the project lock, so its `applying` run was left alone */
  busy: boolean;
}

/**
 * Start-up check: if an earlier clawcode run in this project died while writing, roll it back to the
 * exact bytes from before it, asking first when `confirm` is given; if an earlier `clawcode undo` died
 * halfway, finish it (without asking: the person already asked for it). Call it after taking
 * the project lock; it also refuses to touch anything while another live process holds the lock.
 *
 * @throws IoError (exit 1) a rollback or an undo could not be finished (the run keeps its status and is retried)
 */
export async function recoverUnfinishedRuns(options: RecoverOptions): Promise<RecoverOutcome> {
  const outcome: RecoverOutcome = { found: [], rolledBack: [], finishedUndos: [], declined: false, busy: false };
  const found = await findUnfinishedRuns(options.rootDir, options.homeDir);
  const undos = await findInterruptedUndos(options.rootDir, options.homeDir);
  if (found.length === 0 && undos.length === 0) return outcome;
  outcome.found = found;
  if (await isLockedByOther(options.rootDir, options.homeDir)) {
    outcome.busy = true;
    return outcome;
  }
  for (const run of undos) {
    const result = await finishInterruptedUndo({
      rootDir: options.rootDir,
      runId: run.runId,
      homeDir: options.homeDir,
    });
    outcome.finishedUndos.push(result);
    const count = result.restored.length + result.deleted.length;
    options.print?.(
      `${chalk.yellow('!')} An earlier \`clawcode undo\` of ${run.runId} was interrupted; finished it: ` +
        `${count} more file${count === 1 ? '' : 's'} restored` +
        (result.skipped.length > 0 ? `, ${plural(result.skipped.length, 'changed file')} left alone` : ''),
    );
  }
  if (found.length === 0) return outcome;
  const list = found
    .map(
      (r) =>
        `  ${chalk.dim(r.runId)} ${escapeTerminal(taskHeadline(r.task, 1, 100))} (${r.files.length} file${r.files.length === 1 ? '' : 's'})`,
    )
    .join('\n');
  options.print?.(`${chalk.yellow('!')} An earlier clawcode run was interrupted while writing files:\n${list}`);
  if (options.confirm && !(await options.confirm('Roll it back to the files as they were before that run?'))) {
    outcome.declined = true;
    options.print?.(chalk.dim('Left as is; clawcode will offer this again next time.'));
    return outcome;
  }
  for (const run of found) {
    const result = await rollbackRun({ rootDir: options.rootDir, runId: run.runId, homeDir: options.homeDir });
    outcome.rolledBack.push(result);
    const count = result.restored.length + result.deleted.length;
    const left = result.left.length > 0 ? `; left alone, changed since: ${result.left.join(', ')}` : '';
    options.print?.(
      `${chalk.green('✓')} Rolled back ${run.runId}: ${count} file${count === 1 ? '' : 's'} restored${left}`,
    );
  }
  return outcome;
}

/**
 * Run one writing command on a project: take the project lock (waiting up to 10 s for another
 * clawcode), roll back a run that an earlier process left half-written (asking first when a person
 * can answer; never on a dry run, which writes nothing), then run `fn`. The lock is released on every path.
 */
export async function withLockedProject<T>(
  options: { rootDir: string; dryRun: boolean; interactive: boolean },
  fn: () => Promise<T>,
): Promise<T> {
  return withProjectLock(options.rootDir, { waitMs: DEFAULT_LOCK_WAIT_MS }, async () => {
    if (!options.dryRun) {
      await recoverUnfinishedRuns({
        rootDir: options.rootDir,
        confirm: options.interactive ? confirmPrompt : undefined,
        print: (text) => process.stderr.write(escapeTerminal(text, 'colored') + '\n'),
      });
    }
    return fn();
  });
}
