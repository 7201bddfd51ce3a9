import chalk from 'chalk';
import { ClawcodeError } from '../../utils/errors.js';
import { escapeTerminal } from '../../utils/terminal-text.js';

/**
 * The one way an error reads on the console, wherever it ends up (the entry, the What-next loop, a task's
 * report): `clawcode: <message>`, then its hint on a dimmed line. Anything that is not a ClawcodeError is a bug
 * and says so, with its stack under `--debug`. Messages can quote the model or a file: controls are shown, not
 * obeyed.
 *
 * @returns the lines, each ending in a newline
 */
export function errorText(error: unknown, debug: boolean): string {
  if (error instanceof ClawcodeError) {
    let text = `${chalk.red('clawcode:')} ${escapeTerminal(error.message)}\n`;
    if (error.hint) text += `${chalk.dim(escapeTerminal(error.hint))}\n`;
    if (debug && error.cause instanceof Error) text += `${error.cause.stack ?? error.cause.message}\n`;
    return text;
  }
  const message = error instanceof Error ? error.message : String(error);
  const text = `${chalk.red('clawcode:')} internal error, please report: ${escapeTerminal(message)}\n`;
  if (debug && error instanceof Error && error.stack) return `${text}${error.stack}\n`;
  return `${text}${chalk.dim('(run again with --debug for the stack trace)')}\n`;
}

/** A one-line failure that has no error object (a task report's `error`), in the same style. */
export function errorLine(message: string): string {
  return `${chalk.red('clawcode:')} ${escapeTerminal(message)}\n`;
}
