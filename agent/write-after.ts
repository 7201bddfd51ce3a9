import { detectProjectSummary } from '../memory/project-summary.js';
import { loadGlobalMemory, saveGlobalMemory, saveProjectMemoryAfterRun, type ProjectMemory } from '../memory/memory.js';
import { runCommand, sandboxFor } from '../utils/shell/run.js';
import { detectSandbox } from '../utils/shell/sandbox.js';
import { InterruptedError } from '../utils/errors.js';
import { commitFiles, dirtyFiles } from '../utils/git/ops.js';
import { undoRun } from '../utils/journal/undo.js';

/** Outcome of the verify step (`--verify`). `ms` is wall time; `tail` the last lines of its output. */
export interface VerifyReport {
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  /** The run was restored from the journal because verify failed and `--rollback-on-fail` was set. */
  rolledBack: boolean;
  /**
   * Why `--rollback-on-fail` could not restore the run (a file changed since it was written, often by the verify
   * command itself): the run's files stay written, and undoable.
   */
  rollbackError?: string;
  ms: number;
  tail: string;
  /** a control path the verify command changed (utils/shell/run.ts); verify counts as failed */
  controlChanged?: string;
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
 * @returns the verify report (exitCode 0 and not timed out = passed); a rollback that was refused or failed is
 *          reported in `rollbackError`, with the files still written
 * @throws InterruptedError when `signal` aborts
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
}): Promise<VerifyReport> {
  if (options.signal?.aborted) throw new InterruptedError();
  // Verify runs in the same sandbox as plan commands; where there is none it runs as the person asked for it.
  const sandbox = await detectSandbox(process.env, options.rootDir);
  const result = await runCommand(options.command, {
    cwd: options.rootDir,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    ...sandboxFor(sandbox, options.rootDir, options.allowNetwork),
  });
  if (options.signal?.aborted) throw new InterruptedError();
  const passed = result.exitCode === 0 && !result.timedOut && !result.controlChanged;
  let rolledBack = false;
  let rollbackError: string | undefined;
  if (!passed && options.rollbackOnFail && options.runId) {
    try {
      await undoRun({ rootDir: options.rootDir, runId: options.runId, homeDir: options.homeDir });
      rolledBack = true;
    } catch (error) {
      // The undo changed nothing (it is all or nothing): the run's files are as the verify command left them.
      rollbackError = error instanceof Error ? error.message : String(error);
    }
  }
  return {
    command: options.command,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    rolledBack,
    ...(rollbackError ? { rollbackError } : {}),
    ms: result.ms,
    // A stop for taking too much of the disk ends the tail, where a failing verify's last lines are shown.
    tail: result.diskExceeded ? `${result.tail}\n${result.diskExceeded}` : result.tail,
    ...(result.controlChanged ? { controlChanged: result.controlChanged } : {}),
  };
}

/**
 * `--commit`: commit exactly the written files with the task as the message; no hook runs and nothing
 * is signed unless `hooks` (`--commit-hooks`).
 *
 * @returns the full commit hash
 * @throws whatever utils/git/ops.ts `commitFiles` throws (not a repository, hook failure…)
 */
export async function commitWritten(
  rootDir: string,
  files: readonly string[],
  task: string,
  hooks = false,
): Promise<string> {
  const { commit } = await commitFiles(rootDir, files, task, { hooks });
  return commit;
}

/**
 * `--commit` over files that hold uncommitted work: commit that work first, as its own commit with its own
 * message, so that the run's commit holds clawcode's edit alone and undo's revert of it leaves the person's
 * work committed (Aider commits dirty files before editing them, for the same reason). Staged and unstaged
 * changes of those files go in, as they are in the working tree; other files are left as they are.
 *
 * @param paths  project-relative paths the run is about to write
 * @param hooks  let git run the repository's commit hooks and sign (`--commit-hooks`); off by default
 * @returns the commit and the files it holds, or undefined when none of `paths` has uncommitted changes
 * @throws whatever utils/git/ops.ts `commitFiles` throws (a hook refused, no identity…)
 */
export async function commitUncommittedFirst(
  rootDir: string,
  paths: readonly string[],
  task: string,
  hooks = false,
): Promise<{ commit: string; files: string[] } | undefined> {
  const files = await uncommittedFiles(rootDir, paths);
  if (files.length === 0) return undefined;
  // Like clawcode's own commit: no hooks and no signing unless the person asked for them (--commit-hooks).
  const { commit } = await commitFiles(rootDir, files, uncommittedWorkMessage(files, task), { hooks });
  return { commit, files };
}

/** The message of the commit of a person's uncommitted work, made before a `--commit` run writes. */
function uncommittedWorkMessage(files: readonly string[], task: string): string {
  const what = files.length === 1 ? files[0]! : `${files.length} files`;
  const subject = task.trim().split('\n')[0]!.slice(0, 72);
  return (
    `Uncommitted changes in ${what}, committed before a clawcode edit\n\n` +
    `These changes were in the working tree when clawcode was about to write these files for the task\n` +
    `"${subject}". They are committed on their own so that clawcode's commit holds only its edit.\n\n` +
    files.map((f) => `  ${f}`).join('\n')
  );
}

/** What the memory step is told about a finished run (never called for a dry run). */
export interface RunToRemember {
  rootDir: string;
  task: string;
  /** Project-relative paths written (empty when nothing was, or after a rollback). */
  filesWritten: readonly string[];
  /** The plan's `agent_notes`: untrusted model text. */
  agentNotes: readonly string[];
  /** The journal run id, when the run wrote files and kept them. */
  runId?: string;
  /** A person saw the notes in a terminal: only then are they stored (a model's notes are untrusted text). */
  notesSeenByPerson?: boolean;
  homeDir?: string;
}

/**
 * Record a finished run in memory: the session (task, written files, the model's notes) and, the first
 * time clawcode writes in a project, its summary (framework, test command) for later prompts. Prompt
 * building only reads memory; this is the one place a task writes it.
 *
 * @returns the session memory as saved
 */
export async function rememberRun(options: RunToRemember): Promise<ProjectMemory> {
  const global = await loadGlobalMemory(options.homeDir);
  if (!global.projectSummaries[options.rootDir]) {
    const summary = await detectProjectSummary(options.rootDir);
    if (Object.keys(summary).length > 0) {
      global.projectSummaries[options.rootDir] = summary;
      await saveGlobalMemory(global, options.homeDir);
    }
  }
  return saveProjectMemoryAfterRun({
    projectRoot: options.rootDir,
    task: options.task,
    filesTouched: options.filesWritten,
    notes: options.agentNotes,
    notesSeenByPerson: Boolean(options.notesSeenByPerson),
    runId: options.runId,
    homeDir: options.homeDir,
  });
}
