import { buildPrompts } from '../../agent/runner.js';

/**
 * `--print-prompt`: print the exact system and user prompts for a task, for pasting into any chat
 * model; its JSON answer can then go to `clawcode apply -`. No provider is needed or called.
 * With `json`, one object `{ system, user }`.
 */
export async function printPrompt(options: {
  rootDir: string;
  task: string;
  budgetChars: number;
  extraIgnore?: string[];
  files?: string[];
  json?: boolean;
  stdout: NodeJS.WritableStream;
}): Promise<void> {
  // Showing a prompt leaves no trace: no index cache, no memory, nothing under the clawcode home.
  const prompts = await buildPrompts({
    rootDir: options.rootDir,
    task: options.task,
    budgetChars: options.budgetChars,
    extraIgnore: options.extraIgnore,
    files: options.files,
    cacheIndex: false,
  });
  options.stdout.write(
    options.json
      ? JSON.stringify({ system: prompts.systemPrompt, user: prompts.userPrompt }) + '\n'
      : `${prompts.systemPrompt}\n\n---\n\n${prompts.userPrompt}\n`,
  );
}
