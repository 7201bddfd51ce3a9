import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { clawcodeHome } from '../../config/paths.js';
import { getProjectHash } from '../../utils/project-hash.js';
import { writeFileDurable } from '../../utils/journal/durable-write.js';
import { makeDirs } from '../../utils/make-dirs.js';

/** How many entries a project's input history keeps (oldest dropped first). */
export const MAX_HISTORY_ENTRIES = 500;

/** `<clawcodeHome>/history/<projectHash>`: the REPL and TUI input history of one project. */
export function historyPath(rootDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(clawcodeHome(env), 'history', getProjectHash(rootDir));
}

/**
 * Load a project's input history, oldest first (one entry per line in the file, as bash keeps it).
 * A missing or unreadable file is an empty history.
 */
export async function loadHistory(rootDir: string, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  try {
    const text = await readFile(historyPath(rootDir, env), 'utf8');
    return text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .slice(-MAX_HISTORY_ENTRIES);
  } catch {
    return [];
  }
}

/**
 * Append one entry (trimmed; empty entries and a repeat of the last entry are ignored) and rewrite the
 * file atomically, keeping the last {@link MAX_HISTORY_ENTRIES}. Newlines inside an entry become spaces
 * so the one-entry-per-line format holds.
 *
 * @returns the history after the append, oldest first
 */
export async function appendHistory(
  rootDir: string,
  entry: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string[]> {
  const clean = entry.replace(/[\r\n]+/g, ' ').trim();
  const history = await loadHistory(rootDir, env);
  if (!clean || history.at(-1) === clean) return history;
  const next = [...history, clean].slice(-MAX_HISTORY_ENTRIES);
  const file = historyPath(rootDir, env);
  await makeDirs(dirname(file), 0o700);
  // What a person typed may hold a secret: only they may read it, whatever the folder's mode.
  await writeFileDurable(file, `${next.join('\n')}\n`, { mode: 0o600 });
  return next;
}
