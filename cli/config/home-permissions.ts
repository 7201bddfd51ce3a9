import chalk from 'chalk';
import { configModeOpenToOthers } from '../../config/config.js';
import { configPath } from '../../config/paths.js';

let warned = false;

/**
 * Warn once per process, in one line on `write` (stderr in the CLI), when config.json (which can hold
 * API keys) is readable or writable by other users. Changes nothing: the fix is the person's call.
 */
export async function warnIfConfigOpen(
  env: NodeJS.ProcessEnv = process.env,
  write = (text: string) => process.stderr.write(text),
): Promise<void> {
  if (warned) return;
  const mode = await configModeOpenToOthers(env);
  if (mode === null) return;
  warned = true;
  const file = configPath(env);
  const octal = mode.toString(8).padStart(4, '0');
  write(
    `${chalk.yellow('warning:')} ${file} is readable by other users (mode ${octal}) and may hold API keys; ` +
      `run: chmod 600 ${file}\n`,
  );
}
