import { resolve } from 'node:path';
import { InterruptedError, UsageError } from '../../utils/errors.js';
import { decodeUtf8Input, InputFileError, readInputFile, readInputStream } from '../../utils/input-file.js';
import { withInterrupt } from '../console/interrupt.js';

/**
 * The task from `--task-file <path>` or `-` (standard input), as Aider's `--message-file` and Codex's `-`
 * read one: for a task too long to type, such as an issue report. Read as utils/input-file.ts reads inputs: a
 * FIFO waits for its writer without blocking a worker, Ctrl-C or SIGTERM ends the wait, at most MAX_INPUT_BYTES.
 *
 * @param path  the file as given, or `-` for standard input
 * @returns the task text, trailing whitespace removed
 * @throws UsageError (exit 2) for a file that cannot be read (also a device, too large, not UTF-8), or an empty
 *         task; InterruptedError (exit 130) when interrupted while waiting
 */
export async function readTaskSource(path: string, cwd = process.cwd()): Promise<string> {
  const name = path === '-' ? 'The task on standard input' : `Task file ${path}`;
  let text: string;
  try {
    text = await withInterrupt(async (signal) => {
      const bytes =
        path === '-'
          ? await readInputStream(process.stdin, { signal })
          : await readInputFile(resolve(cwd, path), { signal });
      return decodeUtf8Input(bytes).replace(/^\uFEFF/, '');
    });
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      error instanceof InputFileError
        ? error.message
        : code === 'ENOENT'
          ? 'not found'
          : code === 'EISDIR'
            ? 'is a folder, not a file'
            : `cannot be read: ${code ?? (error as Error).message}`;
    throw new UsageError(`${name} ${why}.`, { code: 'task_file_unreadable' });
  }
  const task = text.trimEnd();
  if (!task.trim()) throw new UsageError(`${name} is empty.`, { code: 'task_empty' });
  return task;
}

/**
 * A run with `--files` and no task: commander gave every word after `--files` to it, the task too. Refuse with
 * the command line that works, before the TUI (in a terminal) or "No task given" could take over.
 *
 * @throws UsageError (code `no_task`, exit 2)
 */
export function refuseTaskTakenByFiles(files: readonly string[] | undefined): void {
  if (!files?.length) return;
  const sentence = [...files].reverse().find((f) => /\s/.test(f.trim()));
  const pins = files.filter((f) => f !== sentence).join(' ') || 'a.js';
  throw new UsageError(
    sentence
      ? `No task given: --files took "${sentence}" as a file too (every word after it is one).`
      : 'No task given: --files takes every word after it as a file.',
    { code: 'no_task', hint: `Put the task first: clawcode "${sentence ?? 'what to change'}" --files ${pins}` },
  );
}
