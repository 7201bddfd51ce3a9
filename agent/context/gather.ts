import { buildContext, type ContextResult } from './build.js';
import {
  DEFAULT_INSTRUCTIONS_CAP_CHARS,
  foldersOf,
  loadInstructions,
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
}

/**
 * Context selection plus project instructions under one budget: the root instruction files
 * are reserved first (at most half the budget), the context stage fills the rest, and nested
 * instruction files for the top files' folders may use what the context left over.
 *
 * @param options.budgetChars  total characters for file context, outline and instructions
 * @returns the context and the instructions; `context.totalChars + instructions.chars <= budgetChars`
 */
export async function gatherContext(options: GatherContextOptions): Promise<{
  context: ContextResult;
  instructions: ProjectInstructions;
}> {
  const rootInstructions = await loadInstructions(
    options.rootDir,
    [],
    Math.min(DEFAULT_INSTRUCTIONS_CAP_CHARS, Math.floor(options.budgetChars / 2)),
  );
  const context = await buildContext({
    rootDir: options.rootDir,
    task: options.task,
    budgetChars: Math.max(1, options.budgetChars - rootInstructions.chars),
    homeDir: options.homeDir,
    extraIgnore: options.extraIgnore,
    cacheIndex: options.cacheIndex,
    onScan: options.onScan,
    files: options.files,
    kept: options.kept,
  });
  const leftover = options.budgetChars - context.totalChars;
  const instructions = await loadInstructions(
    options.rootDir,
    foldersOf(context.files.slice(0, 3).map((f) => f.path)),
    Math.max(rootInstructions.chars, Math.min(DEFAULT_INSTRUCTIONS_CAP_CHARS, leftover)),
  );
  return { context, instructions };
}
