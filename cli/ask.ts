/**
 * The plain yes/no question of the console flows (@inquirer/prompts `confirm`, default yes unless
 * `defaultYes` is false), loaded lazily so commands that never ask do not load inquirer.
 */
export async function confirmPrompt(message: string, defaultYes = true): Promise<boolean> {
  const { confirm } = await import('@inquirer/prompts');
  return confirm({ message, default: defaultYes });
}

/** A one-line text answer, trimmed (used for the task and "What next?"). */
export async function askText(message: string): Promise<string> {
  const { input } = await import('@inquirer/prompts');
  return (await input({ message })).trim();
}
