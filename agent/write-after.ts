import { detectProjectSummary } from '../memory/project-summary.js';
import { loadGlobalMemory, saveGlobalMemory, saveSessionAfterRun, type SessionMemory } from '../memory/memory.js';
import { runCommand } from '../utils/commands.js';
import { InterruptedError } from '../utils/errors.js';
import { commitFiles, dirtyFiles } from '../utils/git.js';
import { undoRun } from '../utils/journal.js';

/** Outcome of the verify step (`--verify`). `ms` is wall time; `tail` the last lines of its output. */
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
 * Files among `paths` (project-relative) with uncommitted git changes; empty when there are none or
 * when git or the repository is absent (nothing here depends on git being present).
 */
export async function uncommittedFiles(rootDir: string, paths: readonly string[]): Promise<string[]> {
  const dirty = await dirtyFiles(rootDir, paths).catch(() => []);
  return dirty.map((d) => d.path);
}

/**
 * Run the verify command after a write; with `rollbackOnFail`, a failing verify restores the run's
 * previous bytes from the journal. A Ctrl-C during verify never rolls back (the files stay, undoable).
 *
 * @returns the verify report (exitCode 0 and not timed out = passed)
 * @throws InterruptedError when `signal` aborts; IoError/ClawcodeError from the undo when the rollback fails
 */
export async function runVerify(options: {
  rootDir: string;
  command: string;
  runId?: string;
  rollbackOnFail: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
  homeDir?: string;
}): Promise<VerifyReport> {
  if (options.signal?.aborted) throw new InterruptedError();
  const result = await runCommand(options.command, { cwd: options.rootDir, timeoutMs: options.timeoutMs, signal: options.signal });
  if (options.signal?.aborted) throw new InterruptedError();
  const passed = result.exitCode === 0 && !result.timedOut;
  let rolledBack = false;
  if (!passed && options.rollbackOnFail && options.runId) {
    await undoRun({ rootDir: options.rootDir, runId: options.runId, homeDir: options.homeDir });
    rolledBack = true;
  }
  return { command: options.command, exitCode: result.exitCode, timedOut: result.timedOut, rolledBack, ms: result.ms, tail: result.tail };
}

/**
 * `--commit`: commit exactly the written files with the task as the message.
 *
 * @returns the full commit hash
 * @throws whatever utils/git.ts `commitFiles` throws (not a repository, hook failure…)
 */
export async function commitWritten(rootDir: string, files: readonly string[], task: string): Promise<string> {
  const { commit } = await commitFiles(rootDir, files, task);
  return commit;
}

/**
 * Record a finished run in memory: the session (task, written files, the model's notes) and, the first
 * time clawcode writes in a project, its summary (framework, test command) for later prompts. Prompt
 * building only reads memory; this is the one place a task writes it.
 *
 * @returns the session memory as saved
 */
export async function rememberRun(options: {
  rootDir: string;
  task: string;
  filesWritten: readonly string[];
  agentNotes: readonly string[];
  homeDir?: string;
}): Promise<SessionMemory> {
  const global = await loadGlobalMemory(options.homeDir);
  if (!global.projectSummaries[options.rootDir]) {
    const summary = await detectProjectSummary(options.rootDir);
    if (Object.keys(summary).length > 0) {
      global.projectSummaries[options.rootDir] = summary;
      await saveGlobalMemory(global, options.homeDir);
    }
  }
  return saveSessionAfterRun(options.rootDir, options.task, options.filesWritten, options.agentNotes, options.homeDir);
}
