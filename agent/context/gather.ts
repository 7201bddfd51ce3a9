import { budgetAfterTask } from '../task-size.js';
import { buildContext, type ContextResult } from './build.js';
import type { ScanResult } from './scan.js';
import {
  DEFAULT_INSTRUCTIONS_CAP_CHARS,
  foldersOf,
  instructionBytesFor,
  instructionFolders,
  joinInstructions,
  readInstructionFiles,
  type ProjectInstructions,
} from './instructions.js';

/** Inputs of {@link gatherContext}; `budgetChars` in characters, `extraIgnore` in gitignore syntax. */
export interface GatherContextOptions {
  rootDir: string;
  task: string;
  budgetChars: number;
  homeDir?: string;
  extraIgnore?: string[];
  /** Passed to buildContext: `false` keeps the index cache unwritten. */
  cacheIndex?: boolean;
  /** Passed to buildContext: called once the scan is done. */
  onScan?: (scan: { files: number; ms: number }) => void;
  /** pinned pathspecs (`--files`, `:add`): sent first */
  files?: readonly string[];
  /** paths kept from the previous task of a session */
  kept?: readonly string[];
  /** Passed to buildContext: the project's scan when the caller already made one. */
  scan?: ScanResult;
}

/**
 * Context selection plus project instructions under one budget that also counts the task (it goes out with
 * them): the root instruction files are reserved first (at most half of what the task leaves), the context
 * stage fills the rest, and nested instruction files for the top files' folders may use what the context
 * left over.
 *
 * @param options.budgetChars  total characters for the task, file context, outline and instructions
 * @returns the context and the instructions; `task.length + context.totalChars + instructions.chars <=
 *          budgetChars`; `context.budget` is reported without the task's share (as the person set it, less
 *          the root instructions)
 * @throws TaskTooLongError (exit 2) when the task takes more than half the budget (agent/task-size.ts)
 */
export async function gatherContext(options: GatherContextOptions): Promise<{
  context: ContextResult;
  instructions: ProjectInstructions;
}> {
  const budgetChars = budgetAfterTask(options.task, options.budgetChars);
  // The root's files are read once, for the largest cap either step can use, and cut to each step's cap.
  const rootFiles = await readInstructionFiles(
    options.rootDir,
    [''],
    instructionBytesFor(DEFAULT_INSTRUCTIONS_CAP_CHARS),
  );
  const rootInstructions = joinInstructions(
    rootFiles,
    Math.min(DEFAULT_INSTRUCTIONS_CAP_CHARS, Math.floor(budgetChars / 2)),
  );
  const selected = await buildContext({
    rootDir: options.rootDir,
    task: options.task,
    budgetChars: Math.max(1, budgetChars - rootInstructions.chars),
    homeDir: options.homeDir,
    extraIgnore: options.extraIgnore,
    cacheIndex: options.cacheIndex,
    onScan: options.onScan,
    files: options.files,
    kept: options.kept,
    scan: options.scan,
  });
  const context = { ...selected, budget: Math.max(1, options.budgetChars - rootInstructions.chars) };
  const leftover = budgetChars - context.totalChars;
  const cap = Math.max(rootInstructions.chars, Math.min(DEFAULT_INSTRUCTIONS_CAP_CHARS, leftover));
  const nested = instructionFolders(foldersOf(context.files.slice(0, 3).map((f) => f.path))).slice(1);
  const nestedFiles =
    nested.length > 0 ? await readInstructionFiles(options.rootDir, nested, instructionBytesFor(cap)) : undefined;
  const instructions = joinInstructions(
    nestedFiles
      ? {
          found: [...rootFiles.found, ...nestedFiles.found],
          refused: [...rootFiles.refused, ...nestedFiles.refused],
          redactions: [...rootFiles.redactions, ...nestedFiles.redactions],
        }
      : rootFiles,
    cap,
  );
  return { context, instructions };
}
