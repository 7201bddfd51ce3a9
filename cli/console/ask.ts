/**
 * Read a yes/no answer strictly: `y`, `yes`, `n`, `no` (any case, surrounding blanks ignored), or an
 * empty answer for the default. Anything else (`:undo`, `sure`, a stray paste) is not an answer.
 *
 * @returns true / false, or undefined when the text is not an answer (the caller asks again)
 */
function parseYesNo(text: string, defaultYes = true): boolean | undefined {
  const t = text.trim().toLowerCase();
  if (t === '') return defaultYes;
  if (t === 'y' || t === 'yes') return true;
  if (t === 'n' || t === 'no') return false;
  return undefined;
}

/**
 * The plain yes/no question of the console flows (default yes unless `defaultYes` is false), loaded
 * lazily so commands that never ask do not load inquirer. Only y/yes/n/no/Enter count; other text keeps
 * the question open with a one-line reminder (inquirer's own `confirm` reads any other text as the default).
 */
export async function confirmPrompt(message: string, defaultYes = true): Promise<boolean> {
  const { input } = await import('@inquirer/prompts');
  const answer = await input({
    message: `${message} ${defaultYes ? '(Y/n)' : '(y/N)'}`,
    validate: (value) =>
      parseYesNo(value, defaultYes) !== undefined ||
      `Answer y (yes) or n (no); Enter means ${defaultYes ? 'yes' : 'no'}.`,
  });
  return parseYesNo(answer, defaultYes) ?? defaultYes;
}

/** A one-line text answer, trimmed (used for the task and "What next?"). */
export async function askText(message: string): Promise<string> {
  const { input } = await import('@inquirer/prompts');
  return (await input({ message })).trim();
}

/**
 * Offer a list in the terminal (@inquirer/prompts `search`: type to narrow it, arrows to move, Enter to
 * pick), for `:model`, `:provider` and `:project` without an argument.
 *
 * @param choices  `name` is shown (with `description` under the highlighted one), `value` returned
 * @returns the value picked; Ctrl-C rejects with inquirer's ExitPromptError (the callers' "Cancelled.")
 */
export async function pickFromList(
  message: string,
  choices: readonly { name: string; value: string; description?: string }[],
): Promise<string> {
  const { search } = await import('@inquirer/prompts');
  return search<string>({
    message,
    pageSize: 10,
    source: (term) => {
      const words = (term ?? '').toLowerCase().split(/\s+/).filter(Boolean);
      return choices.filter((c) => words.every((w) => c.name.toLowerCase().includes(w)));
    },
  });
}
