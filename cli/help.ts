// `clawcode help [command]`, and what a task of one word meant: the words that are commands, not tasks.
import type { Command } from 'commander';
import { UsageError } from '../utils/errors.js';

/**
 * Words typed as a whole task that other command-line tools answer as commands, and clawcode's command for
 * each (`clawcode status` wants the runs of this project, as `git status` shows a repository's state).
 */
const OTHER_TOOLS_WORDS: Readonly<Record<string, string>> = {
  version: '--version',
  status: 'history',
  log: 'history',
  revert: 'undo',
};

/**
 * The command a one-word task most likely meant: a subcommand's name, one edit away from one (a letter added,
 * dropped, changed, or two neighbours swapped: `udno` → `undo`), or a word from {@link OTHER_TOOLS_WORDS}.
 * A task of more than one word, or a word two edits from every command, is a task.
 *
 * @param words     the task's words as given on the command line
 * @param commands  the subcommand names (`undo`, `history`, …)
 * @returns what to run instead (`undo`, `--version`), or undefined when the task is a task
 * Source: the optimal-string-alignment distance commander uses for its own "Did you mean" (suggestSimilar.js).
 */
function commandForTask(words: readonly string[], commands: readonly string[]): string | undefined {
  if (words.length !== 1) return undefined;
  const word = words[0]!.trim().toLowerCase();
  if (!/^[a-z-]+$/.test(word)) return undefined;
  if (commands.includes(word)) return word;
  if (OTHER_TOOLS_WORDS[word]) return OTHER_TOOLS_WORDS[word];
  // Three letters or fewer are one edit from too much ("add" → "apply" is not, but "ui" → "init" could be).
  if (word.length < 4) return undefined;
  return commands.find((name) => editDistance(word, name) <= 1);
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps, each 1. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
      }
    }
  }
  return d[a.length]![b.length]!;
}

/** The names of `program`'s subcommands, `help` included. */
export function commandNames(program: Command): string[] {
  return program.commands.map((c) => c.name());
}

/**
 * Register `clawcode help [command]` on `program`: the program's help, or one command's (exit 0). Register it
 * after the other commands; a task that starts with the word help goes in quotes, as for every command name.
 *
 * @throws UsageError (exit 2) for a name that is no command, with the command it most likely meant
 */
export function addHelpCommand(program: Command): void {
  program
    .command('help')
    .description('show help for clawcode, or for one command')
    .argument('[command]', 'the command to explain (config, apply, undo, …)')
    .allowExcessArguments()
    .action((name: string | undefined, _options: unknown, self: Command) => {
      if (!name) program.help();
      if (self.args.length > 1) {
        throw new UsageError(`help takes one command name, got ${self.args.length} words.`, {
          code: 'unknown_command',
          hint: `A task that starts with "help" goes in quotes: clawcode "help ${self.args.join(' ')}"`,
        });
      }
      const command = program.commands.find((c) => c.name() === name && c.name() !== 'help');
      if (command) command.help();
      const meant = commandForTask([name!], commandNames(program));
      throw new UsageError(`No command "${name}"${meant ? `; did you mean \`${meant}\`?` : '.'}`, {
        code: 'unknown_command',
        hint: `Commands: ${commandNames(program).join(', ')}. A task that starts with "help" goes in quotes.`,
      });
    });
}

/**
 * Refuse a task of one word that names a command (`udno`, `status`, `version`), before anything is read or
 * sent: it was meant for clawcode, not for the model.
 *
 * @throws UsageError (code `task_is_a_command`, exit 2) naming the command
 */
export function refuseCommandLikeTask(words: readonly string[], commands: readonly string[]): void {
  const meant = commandForTask(words, commands);
  if (meant === undefined) return;
  throw new UsageError(`Did you mean \`clawcode ${meant}\`? "${words[0]}" was not sent to the model.`, {
    code: 'task_is_a_command',
    hint: 'To send a task of one word, say more: clawcode "rename the status field".',
  });
}
