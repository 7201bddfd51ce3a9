import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from '../utils/errors.js';

/**
 * Resolve and check the project root: `--dir` or the current folder. Kept in its own small module so
 * light commands (`context`, `undo`, `history`) do not load the task flow.
 *
 * @returns the absolute path
 * @throws UsageError when it does not exist or is not a folder
 */
export async function resolveProjectRoot(dir: string | undefined, cwd = process.cwd()): Promise<string> {
  const root = resolve(cwd, dir ?? '.');
  const info = await stat(root).catch(() => undefined);
  if (!info) throw new UsageError(`Project folder not found: ${root}`);
  if (!info.isDirectory())
    throw new UsageError(`Not a folder: ${root}`, { hint: 'Pass the project folder with --dir.' });
  return root;
}
