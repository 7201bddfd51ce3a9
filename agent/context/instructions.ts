import { lstat, realpath } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { resolveProjectPath } from '../../utils/policy/paths.js';
import { readRegularFile } from '../../utils/regular-file.js';
import { redactSecrets, type Redaction } from '../../utils/policy/secrets.js';

/** Instruction files, in the order they are read at each folder. */
const INSTRUCTION_FILES = ['AGENTS.md', 'CLAWCODE.md', '.clawcode/instructions.md'] as const;

/** Default cap on the instructions text sent to the provider, in characters. */
export const DEFAULT_INSTRUCTIONS_CAP_CHARS = 8_000;

/** Most bytes read of one instruction file, whatever the cap (a bigger file is cut like one over the cap). */
const MAX_INSTRUCTION_FILE_BYTES = 256 * 1024;

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

/** What `resolveProjectPath` says of a path with nothing there. */
const MISSING = { ok: false, code: 'path_missing', message: 'missing' } as const;

/** False when nothing is at `abs` (ENOENT, or a file where a folder should be); true for anything else. */
async function mayExist(abs: string): Promise<boolean> {
  return lstat(abs).then(
    () => true,
    (e: NodeJS.ErrnoException) => e.code !== 'ENOENT' && e.code !== 'ENOTDIR',
  );
}

/** Control paths that are instruction files: `.clawcode/instructions.md` at any folder. */
const isInstructionControlFile = (rel: string): boolean =>
  rel === '.clawcode/instructions.md' || rel.endsWith('/.clawcode/instructions.md');

/** Instruction files read from some folders, in order (root first), before they are joined under a cap. */
export interface InstructionFiles {
  /** each file's project-relative path and redacted text (trimmed, never empty) */
  found: { path: string; text: string }[];
  refused: ProjectInstructions['refused'];
  redactions: ProjectInstructions['redactions'];
}

/**
 * Read the instruction files of some folders: AGENTS.md (the cross-tool convention), CLAWCODE.md and
 * .clawcode/instructions.md in each, in the order given ('' is the project root).
 *
 * Each file goes through the path policy like any other context: a regular file whose real location
 * is inside the root and is not a secret or control file (a symlink to `/proc/self/environ`,
 * `~/.aws/credentials`, `/dev/stdin` or `../.env` is refused, a FIFO is never opened), at most
 * `maxBytes` read, and its text redacted before it is returned.
 *
 * @param rootDir   project root (absolute, may be reached through a symlink)
 * @param folders   project-relative folders, '' for the root
 * @param maxBytes  most bytes read of one file
 * @returns the files found; missing files are skipped, never an error; refused ones are listed
 */
export async function readInstructionFiles(
  rootDir: string,
  folders: readonly string[],
  maxBytes: number,
): Promise<InstructionFiles> {
  const out: InstructionFiles = { found: [], refused: [], redactions: [] };
  const realRoot = await realpath(rootDir).catch(() => undefined);
  if (realRoot === undefined) return out;
  // Every candidate is resolved and read at once (each is a few file-system round trips, most of
  // them for files that do not exist); the results are then taken in order, root first.
  const candidates = folders.flatMap((folder) =>
    INSTRUCTION_FILES.map((name) => (folder ? posix.join(folder, name) : name)),
  );
  const read = await Promise.all(
    candidates.map(async (rel) => {
      // Most candidates do not exist: one lstat says so, before the policy's dozen checks (a nested
      // folder's git-directory test alone stats four entries per folder on the way). Nothing is
      // there to read or refuse; an entry of any kind, even a dangling link, goes through them all.
      const segments = rel.split('/');
      if (!segments.includes('..') && !(await mayExist(join(realRoot, ...segments))))
        return { rel, resolved: MISSING, read: undefined };
      const resolved = await resolveProjectPath(realRoot, rel, {
        mustExist: true,
        allowControl: isInstructionControlFile,
      });
      return { rel, resolved, read: resolved.ok ? await readRegularFile(resolved.realAbs, maxBytes) : undefined };
    }),
  );
  for (const { rel, resolved, read: bytes } of read) {
    if (!resolved.ok) {
      // A missing file is the common case, not a refusal.
      if (resolved.code !== 'path_missing') out.refused.push({ path: rel, message: resolved.message });
      continue;
    }
    if (bytes === undefined) continue;
    if (bytes.bytes.includes(0)) {
      out.refused.push({ path: rel, message: `${rel} holds binary data (NUL bytes)` });
      continue;
    }
    const r = redactSecrets(bytes.bytes.toString('utf8'));
    if (!r.text.trim()) continue;
    for (const one of r.redactions) out.redactions.push({ path: rel, ...one });
    out.found.push({ path: rel, text: r.text.trim() });
  }
  return out;
}

/**
 * The instructions to send from files already read: each under a `From <path>:` line, in order,
 * cut to `capChars` (with a `[… truncated]` mark) when they are longer together.
 */
export function joinInstructions(files: InstructionFiles, capChars: number): ProjectInstructions {
  const full = files.found.map((f) => `From ${f.path}:\n${f.text}`).join('\n\n');
  const truncated = full.length > capChars;
  const text = truncated ? full.slice(0, Math.max(0, capChars - 20)) + '\n[… truncated]' : full;
  return {
    text,
    files: files.found.map((f) => f.path),
    chars: text.length,
    truncated,
    refused: [...files.refused],
    redactions: [...files.redactions],
  };
}

/** Most bytes worth reading of one instruction file for a cap of `capChars` characters. */
export function instructionBytesFor(capChars: number): number {
  return Math.min(MAX_INSTRUCTION_FILE_BYTES, Math.max(1, capChars) * 4);
}

/**
 * The folders whose instruction files apply to a task: the root (''), then each folder on the way to
 * the target folders, outermost first (nested files are more specific, so they come later).
 */
export function instructionFolders(targetDirs: readonly string[]): string[] {
  const folders = new Set<string>(['']);
  for (const target of targetDirs) {
    const parts = target.split('/').filter((p) => p && p !== '.');
    for (let i = 1; i <= parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  return [...folders];
}

/**
 * Find and read the project's instruction files (see `readInstructionFiles`) at the project root,
 * then in each folder on the way to the task's target folders, capped at `capChars`.
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
  const files = await readInstructionFiles(rootDir, instructionFolders(targetDirs), instructionBytesFor(capChars));
  return joinInstructions(files, capChars);
}

/** Folders (project-relative) of the given files, without duplicates: the targets for nested instructions. */
export function foldersOf(paths: readonly string[]): string[] {
  return [...new Set(paths.map((p) => posix.dirname(p)).filter((d) => d !== '.'))];
}
