import chalk from 'chalk';
import { runCommand } from '../utils/commands.js';
import { detectSandbox } from '../utils/sandbox.js';
import { commitFiles, dirtyFiles } from '../utils/git.js';
import { undoRun } from '../utils/journal.js';
import { InterruptedError } from '../utils/errors.js';

/** Outcome of the verify step (`--verify`). */
export interface VerifyReport {
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  /** The run was restored from the journal because verify failed and `--rollback-on-fail` was set. */
  rolledBack: boolean;
  ms: number;
  tail: string;
}

/**
 * Files among `paths` with uncommitted git changes, as a warning line, or undefined when there
 * are none (or git/repo is absent: nothing here depends on git being present).
 */
export async function uncommittedWarning(rootDir: string, paths: readonly string[]): Promise<string | undefined> {
  const dirty = await dirtyFiles(rootDir, paths).catch(() => []);
  if (dirty.length === 0) return undefined;
  return `${chalk.yellow('!')} Uncommitted changes in ${dirty.map((d) => d.path).join(', ')}; \`clawcode undo\` restores them exactly, but you may want to commit first.`;
}

/**
 * Run the verify command after a write; with `rollbackOnFail`, a failing verify restores the run's
 * previous bytes from the journal.
 *
 * @returns the verify report (exitCode 0 = passed)
 * @throws IoError/ClawcodeError from the undo when the rollback itself fails
 */
export async function runVerify(options: {
  rootDir: string;
  command: string;
  runId?: string;
  rollbackOnFail: boolean;
  /** keep the network inside the sandbox (`--allow-network`) */
  allowNetwork?: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
  homeDir?: string;
  print?: (text: string) => void;
}): Promise<VerifyReport> {
  options.print?.(chalk.dim(`\nVerify: $ ${options.command}`));
  if (options.signal?.aborted) throw new InterruptedError();
  // Verify runs in the same sandbox as plan commands; where there is none it runs as the person asked for it.
  const sandbox = await detectSandbox();
  const result = await runCommand(options.command, {
    cwd: options.rootDir, timeoutMs: options.timeoutMs, signal: options.signal,
    ...(sandbox.available ? { sandbox: { bwrapPath: sandbox.bwrapPath, policy: { rootDir: options.rootDir, allowNetwork: Boolean(options.allowNetwork) } } } : {}),
  });
  // Interrupted verify: the files stay written (undoable); never roll back on a Ctrl-C.
  if (options.signal?.aborted) throw new InterruptedError();
  const passed = result.exitCode === 0 && !result.timedOut;
  if (!passed && result.tail) options.print?.(result.tail.replace(/\n$/, ''));
  options.print?.(passed ? `${chalk.green('✓')} verify passed` : `${chalk.red('✗')} verify failed (${result.timedOut ? 'timed out' : `exit ${result.exitCode}`})`);
  let rolledBack = false;
  if (!passed && options.rollbackOnFail && options.runId) {
    await undoRun({ rootDir: options.rootDir, runId: options.runId, homeDir: options.homeDir });
    rolledBack = true;
    options.print?.(`${chalk.yellow('↺')} Rolled back: the files are as they were before this run.`);
  }
  return { command: options.command, exitCode: result.exitCode, timedOut: result.timedOut, rolledBack, ms: result.ms, tail: result.tail };
}

/** `--commit`: commit exactly the written files with the task as the message. @returns the commit hash */
export async function commitRun(rootDir: string, files: readonly string[], task: string, print?: (text: string) => void): Promise<string> {
  const { commit } = await commitFiles(rootDir, files, task);
  print?.(`${chalk.green('✓')} Committed ${files.length} file${files.length === 1 ? '' : 's'} as ${commit.slice(0, 10)}`);
  return commit;
}
