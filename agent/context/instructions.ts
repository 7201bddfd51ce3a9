import { realpath } from 'node:fs/promises';
import { posix } from 'node:path';
import { readRegularFile, resolveProjectPath } from '../../utils/policy/paths.js';
import { redactSecrets, type Redaction } from '../../utils/policy/secrets.js';

/** Instruction files, in the order they are read at each folder. */
export const INSTRUCTION_FILES = ['AGENTS.md', 'CLAWCODE.md', '.clawcode/instructions.md'] as const;

/** Default cap on the instructions text sent to the provider, in characters. */
export const DEFAULT_INSTRUCTIONS_CAP_CHARS = 8_000;

/** Most bytes read of one instruction file, whatever the cap (a bigger file is cut like one over the cap). */
export const MAX_INSTRUCTION_FILE_BYTES = 256 * 1024;

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
  /** Instruction files present but refused by the path policy (a symlink out of the root or to a secret, a FIFO...). */
  refused: { path: string; message: string }[];
  /** Secrets replaced in what is sent, per file and kind. */
  redactions: ({ path: string } & Redaction)[];
}

/** Control paths that are instruction files: `.clawcode/instructions.md` at any folder. */
const isInstructionControlFile = (rel: string): boolean =>
  rel === '.clawcode/instructions.md' || rel.endsWith('/.clawcode/instructions.md');

/**
 * Find and read the project's instruction files: AGENTS.md (the cross-tool convention), CLAWCODE.md
 * and .clawcode/instructions.md at the project root, then in each folder on the way to the task's
 * target folders (nested files are more specific, so they come later). Capped at `capChars`.
 *
 * Each file goes through the path policy like any other context: a regular file whose real location
 * is inside the root and is not a secret or control file (a symlink to `/proc/self/environ`,
 * `~/.aws/credentials`, `/dev/stdin` or `../.env` is refused, a FIFO is never opened), at most
 * {@link MAX_INSTRUCTION_FILE_BYTES} read, and its text redacted before it is returned.
 *
 * @param rootDir      project root (absolute, may be reached through a symlink)
 * @param targetDirs   project-relative folders the task is about (e.g. of the top context files)
 * @param capChars     most characters of instructions to return
 * @returns the instructions; missing files are skipped, never an error; refused ones are listed
 */
export async function loadInstructions(
  rootDir: string,
  targetDirs: readonly string[] = [],
  capChars = DEFAULT_INSTRUCTIONS_CAP_CHARS,
): Promise<ProjectInstructions> {
  const empty: ProjectInstructions = { text: '', files: [], chars: 0, truncated: false, refused: [], redactions: [] };
  const realRoot = await realpath(rootDir).catch(() => undefined);
  if (realRoot === undefined) return empty;
  const folders = new Set<string>(['']);
  for (const target of targetDirs) {
    const parts = target.split('/').filter((p) => p && p !== '.');
    for (let i = 1; i <= parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  const maxBytes = Math.min(MAX_INSTRUCTION_FILE_BYTES, Math.max(1, capChars) * 4);
  const { files, refused, redactions } = empty;
  const blocks: string[] = [];
  // Every candidate is resolved and read at once (each is a few file-system round trips, most of
  // them for files that do not exist); the results are then taken in order, root first.
  const candidates = [...folders].flatMap((folder) =>
    INSTRUCTION_FILES.map((name) => (folder ? posix.join(folder, name) : name)),
  );
  const found = await Promise.all(
    candidates.map(async (rel) => {
      const resolved = await resolveProjectPath(realRoot, rel, {
        mustExist: true,
        allowControl: isInstructionControlFile,
      });
      return { rel, resolved, read: resolved.ok ? await readRegularFile(resolved.realAbs, maxBytes) : undefined };
    }),
  );
  for (const { rel, resolved, read } of found) {
    if (!resolved.ok) {
      // A missing file is the common case, not a refusal.
      if (resolved.code !== 'path_missing') refused.push({ path: rel, message: resolved.message });
      continue;
    }
    if (read === undefined) continue;
    if (read.bytes.includes(0)) {
      refused.push({ path: rel, message: `${rel} holds binary data (NUL bytes)` });
      continue;
    }
    const r = redactSecrets(read.bytes.toString('utf8'));
    if (!r.text.trim()) continue;
    for (const one of r.redactions) redactions.push({ path: rel, ...one });
    files.push(rel);
    blocks.push(`From ${rel}:\n${r.text.trim()}`);
  }
  const full = blocks.join('\n\n');
  const truncated = full.length > capChars;
  const text = truncated ? full.slice(0, Math.max(0, capChars - 20)) + '\n[… truncated]' : full;
  return { text, files, chars: text.length, truncated, refused, redactions };
}

/** Folders (project-relative) of the given files, without duplicates: the targets for nested instructions. */
export function foldersOf(paths: readonly string[]): string[] {
  return [...new Set(paths.map((p) => posix.dirname(p)).filter((d) => d !== '.'))];
}
