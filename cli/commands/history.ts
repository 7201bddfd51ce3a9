import { escapeTerminal, terminalJson } from '../../utils/terminal-text.js';
import chalk from 'chalk';
import { listRuns, type RunRecord, type RunStatus } from '../../utils/journal/store.js';
import { taskHeadline } from '../../utils/task-text.js';

/** Options of `clawcode history`. */
export interface HistoryCommandOptions {
  rootDir: string;
  /** `--json`: print a JSON array instead of the table */
  json?: boolean;
  /** most runs shown, newest first (default 20) */
  limit?: number;
  homeDir?: string;
  stdout?: NodeJS.WritableStream;
}

/** One run as `clawcode history --json` prints it. Times are ISO-8601. */
export interface HistoryEntry {
  runId: string;
  createdAt: string;
  task: string;
  provider?: string;
  model?: string;
  status: RunStatus;
  files: { path: string; created: boolean }[];
  journal: string;
}

const STATUS_COLOUR: Record<RunStatus, (text: string) => string> = {
  applied: chalk.green,
  applying: chalk.red,
  rolled_back: chalk.yellow,
  undoing: chalk.red,
  undone: chalk.dim,
};

/** `2026-11-22 03:04` in local time. */
function shortTime(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The history table: time, status, file count, run id, task (one run per line). */
function formatHistory(runs: readonly RunRecord[]): string {
  if (runs.length === 0) return chalk.dim('No runs yet in this project.');
  return runs
    .map((run) => {
      const status = STATUS_COLOUR[run.status](run.status.replace('_', ' ').padEnd(11));
      const files = `${run.files.length} file${run.files.length === 1 ? ' ' : 's'}`.padStart(8);
      return `${shortTime(run.createdAt)}  ${status} ${files}  ${chalk.dim(run.runId)}  ${escapeTerminal(taskHeadline(run.task, 1, 100))}`;
    })
    .join('\n');
}

/**
 * `clawcode history`: list this project's runs, newest first (time, status, files, id, task).
 * @returns the entries shown
 */
export async function runHistoryCommand(options: HistoryCommandOptions): Promise<HistoryEntry[]> {
  const runs = (await listRuns(options.rootDir, options.homeDir)).slice(0, options.limit ?? 20);
  const entries = runs.map((run): HistoryEntry => ({
    runId: run.runId,
    createdAt: run.createdAt,
    task: run.task,
    provider: run.provider,
    model: run.model,
    status: run.status,
    files: run.files.map((f) => ({ path: f.path, created: f.created })),
    journal: run.runDir,
  }));
  const stdout = options.stdout ?? process.stdout;
  stdout.write(options.json ? `${terminalJson(entries, 2)}\n` : `${escapeTerminal(formatHistory(runs), 'colored')}\n`);
  return entries;
}
