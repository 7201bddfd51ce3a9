/** Flags of the main job, as commander parses them. */
export interface TaskFlags {
  dir?: string;
  provider?: string;
  model?: string;
  budget?: number;
  timeout?: number;
  dryRun?: boolean;
  yes?: boolean;
  runCommands?: boolean;
  /** `--allow-network`: plan and verify commands keep the network inside the sandbox. */
  allowNetwork?: boolean;
  json?: boolean;
  debug?: boolean;
  shell?: boolean;
  ui?: boolean;
  color?: boolean;
  events?: boolean;
  planOut?: string;
  printPrompt?: boolean;
  /** `-q, --quiet`: print questions, warnings, errors and the outcome only. */
  quiet?: boolean;
  /** `--any-folder`: scan a folder that is no project (or the home folder) without asking. */
  anyFolder?: boolean;
  /** `--task-file <path>`: the task is this file's text (`-`: standard input). */
  taskFile?: string;
  /** `--verify`: run the project's test command (or the settings' verifyCommand) after writing. */
  verify?: boolean;
  /** `--verify-cmd <command>`: verify with this command. */
  verifyCmd?: string;
  rollbackOnFail?: boolean;
  commit?: boolean;
  /** `--commit-hooks`: git runs the repository's commit hooks (and signs) for `--commit`; default neither. */
  commitHooks?: boolean;
  /** `--files <pathspec...>`: files pinned into the context first; split into shards when they exceed the budget. */
  files?: string[];
  /** `--grep <regex>` (repeatable): files with matching lines, and the regions around the matches. */
  grep?: string[];
  /** `--wide`: one scope request finds the files, then sharded plans. */
  wide?: boolean;
  concurrency?: number;
  partial?: boolean;
  /** `--no-repair` sets false: no repair round for refused patches. */
  repair?: boolean;
}
