import chalk from 'chalk';
import type { TaskFlags } from '../flags.js';
import { askText, pickFromList } from '../console/ask.js';
import { escapeTerminal } from '../../utils/terminal-text.js';
import { runColonCommand } from './colon-commands.js';
import { sessionHandlers, type LiveSession } from './session.js';

/**
 * The question of the "What next?" loop (`clawcode "task"` in a terminal), which takes the shell's
 * `:commands` (cli/interactive/colon-commands.ts) as well as the next task: a line starting with `:` runs
 * there and the question comes back, so `:undo` undoes the last run and never reaches the model.
 *
 * @param live          the loop's session; `:project`, `:provider` and `:model` change it in place
 * @param afterCommand  called after each command, to bring what depends on the session up to date
 *                      (the budget for a new model, the verify command of a new project); what it throws is shown
 * @returns a function asking the question, resolving to the next task, or '' to leave (an empty answer, `:exit`)
 */
export function whatNextPrompt(
  live: LiveSession,
  flags: TaskFlags,
  afterCommand: () => Promise<void>,
): () => Promise<string> {
  const handlers = {
    ...sessionHandlers(live, flags, { ask: true }),
    undo: async (rootDir: string) => {
      const { runUndoCommand } = await import('../commands/undo.js');
      // runUndoCommand prints its own result line.
      await runUndoCommand({ rootDir, interactive: true });
    },
  };
  const io = {
    say: (text: string) => process.stdout.write(`${text}\n`),
    error: (text: string) => process.stdout.write(`${chalk.red(`✖ ${escapeTerminal(text)}`)}\n`),
    pick: pickFromList,
    clearScreen: () => process.stdout.write('\u001b[2J\u001b[3J\u001b[H'),
  };
  return async () => {
    for (;;) {
      const line = await askText('What next? (empty to quit, :help for commands)');
      if (!line.startsWith(':')) return line;
      if ((await runColonCommand(line, live, handlers, io)) === 'exit') return '';
      try {
        await afterCommand();
      } catch (error) {
        io.error(error instanceof Error ? error.message : String(error));
      }
    }
  };
}
