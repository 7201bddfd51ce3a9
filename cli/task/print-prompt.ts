import { buildPrompts } from '../../agent/runner.js';
import { escapeTerminal } from '../../utils/terminal-text.js';
import { sealRequest } from '../../llm/outbound.js';

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
  // A prompt printed for pasting leaves clawcode as surely as a request: it passes the same door.
  const candidates = new Set(prompts.context.fileList);
  const sealed = sealRequest(
    { system: prompts.systemPrompt, user: prompts.userPrompt, files: prompts.context.files.map((f) => f.path) },
    (path) => candidates.has(path),
  );
  const text = options.json
    ? JSON.stringify({ system: sealed.system, user: sealed.user }) + '\n'
    : `${sealed.system}\n\n---\n\n${sealed.user}\n`;
  // On a terminal the project's bytes are shown, never obeyed (an OSC 52 in a README would write the clipboard);
  // into a pipe or a file the prompt goes exactly as it would be sent.
  options.stdout.write((options.stdout as { isTTY?: boolean }).isTTY ? escapeTerminal(text) : text);
}
