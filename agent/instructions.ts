import { readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';

/** Instruction files, in the order they are read at each folder (issue 8). */
export const INSTRUCTION_FILES = ['AGENTS.md', 'CLAWCODE.md', '.clawcode/instructions.md'] as const;

/** Default cap on the instructions text sent to the provider, in characters. */
export const DEFAULT_INSTRUCTIONS_CAP_CHARS = 8_000;

/** Project instructions found for a task. */
export interface ProjectInstructions {
  /** The text to put in the prompt (≤ capChars), each file under a `From <path>:` line; "" when none. */
  text: string;
  /** Files read, project-relative, root first. */
  files: string[];
  /** Characters in `text`. */
  chars: number;
  /** True when the files together exceeded the cap and the text was cut. */
  truncated: boolean;
}

/**
 * Find and read the project's instruction files: AGENTS.md (the cross-tool convention), CLAWCODE.md
 * and .clawcode/instructions.md at the project root, then in each folder on the way to the task's
 * target folders (nested files are more specific, so they come later). Capped at `capChars`.
 *
 * @param rootDir      absolute project root
 * @param targetDirs   project-relative folders the task is about (e.g. of the top context files)
 * @param capChars     most characters of instructions to return
 * @returns the instructions; missing files are skipped, never an error
 */
export async function loadInstructions(
  rootDir: string,
  targetDirs: readonly string[] = [],
  capChars = DEFAULT_INSTRUCTIONS_CAP_CHARS,
): Promise<ProjectInstructions> {
  const folders = new Set<string>(['']);
  for (const target of targetDirs) {
    const parts = target.split('/').filter((p) => p && p !== '.');
    for (let i = 1; i <= parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  const files: string[] = [];
  const blocks: string[] = [];
  for (const folder of folders) {
    for (const name of INSTRUCTION_FILES) {
      const rel = folder ? posix.join(folder, name) : name;
      const text = await readFile(join(rootDir, rel), 'utf8').catch(() => undefined);
      if (text === undefined || !text.trim()) continue;
      files.push(rel);
      blocks.push(`From ${rel}:\n${text.trim()}`);
    }
  }
  const full = blocks.join('\n\n');
  const truncated = full.length > capChars;
  const text = truncated ? full.slice(0, Math.max(0, capChars - 20)) + '\n[… truncated]' : full;
  return { text, files, chars: text.length, truncated };
}

/** Folders (project-relative) of the given files, without duplicates: the targets for nested instructions. */
export function foldersOf(paths: readonly string[]): string[] {
  return [...new Set(paths.map((p) => posix.dirname(p)).filter((d) => d !== '.'))];
}
