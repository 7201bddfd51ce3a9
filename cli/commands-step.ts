import chalk from 'chalk';
import type { CommandNotice, CommandQuestion } from '../agent/write-commands.js';

// The command step's policy and runner live in agent/write-commands.ts; this file is its console face.
export type { CommandReport } from '../agent/write-commands.js';

/** The console wording of a command question. */
export function commandQuestionText(question: CommandQuestion): string {
  if (question.type === 'destructive') return `${chalk.red('Destructive')} (${question.reason}): ${question.command}\nRun it anyway?`;
  const count = question.commands.length;
  return `Run ${count === 1 ? 'this command' : `these ${count} commands`}?`;
}

/** Print one command-step notice on the console (listing, refusals, each command's output tail and outcome). */
export function printCommandNotice(notice: CommandNotice, out: (text: string) => void): void {
  switch (notice.type) {
    case 'commands_listed': {
      const title = notice.dryRun ? 'Commands in the plan (not run):' : 'Commands in the plan:';
      return out(chalk.bold(`\n${title}`) + '\n' + notice.commands.map((c) => `  $ ${c}`).join('\n'));
    }
    case 'commands_need_flag':
      return out(chalk.dim('Commands not run (pass --run-commands to run them).'));
    case 'command_refused':
      if (notice.by === 'rule') return out(`${chalk.red('✗')} refused by a deny rule: ${notice.command}`);
      return out(`${chalk.red('✗')} refused: ${notice.command} (${notice.reason})`);
    case 'command_started':
      return out(chalk.dim(`$ ${notice.command}`));
    case 'command_finished': {
      const { result } = notice;
      if (result.tail) out(result.tail.replace(/\n$/, ''));
      const mark = result.exitCode === 0 ? chalk.green('✓') : chalk.red('✗');
      return out(`${mark} ${notice.command} ${result.timedOut ? 'timed out' : `exited ${result.exitCode ?? 'by signal'}`}`);
    }
  }
}
