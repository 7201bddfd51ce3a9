import chalk from 'chalk';
import { escapeTerminal } from '../../utils/terminal-text.js';
import type { CommandNotice, CommandQuestion } from '../../agent/write-commands.js';

// The command step's policy and runner live in agent/write-commands.ts; this file is its console face.

/** The console wording of a command question. */
export function commandQuestionText(question: CommandQuestion): string {
  if (question.type === 'single')
    return `${chalk.yellow('Needs your yes')} (${field(question.reason)}): ${field(question.command)}\nRun it?`;
  const count = question.commands.length;
  return `Run ${count === 1 ? 'this command' : `these ${count} commands`} (in the sandbox)?`;
}

/** Print one command-step notice on the console (listing, refusals, each command's output tail and outcome). */
export function printCommandNotice(notice: CommandNotice, out: (text: string) => void): void {
  switch (notice.type) {
    case 'commands_listed': {
      const title = notice.dryRun ? 'Commands in the plan (not run):' : 'Commands in the plan:';
      return out(chalk.bold(`\n${title}`) + '\n' + notice.commands.map((c) => `  $ ${field(c)}`).join('\n'));
    }
    case 'commands_need_flag':
      return out(chalk.dim('Commands not run (pass --run-commands to run them).'));
    case 'no_sandbox':
      return out(`${chalk.yellow('!')} No sandbox for commands: ${notice.reason}; every command needs your yes.`);
    case 'command_refused':
      return out(`${chalk.red('✗')} refused: ${field(notice.command)} (${field(notice.reason)})`);
    case 'command_needs_terminal':
      return out(
        `${chalk.yellow('✗')} not run, needs your yes in a terminal: ${field(notice.command)} (${field(notice.reason)})`,
      );
    case 'command_declined':
      return out(`${chalk.dim('–')} skipped: ${field(notice.command)}`);
    case 'command_started':
      return out(chalk.dim(`$ ${field(notice.command)}`));
    case 'command_finished': {
      const { result } = notice;
      // Escaped here: `out` keeps colour sequences, and one left open (conceal) would hide the lines after it.
      if (result.tail) out(escapeTerminal(result.tail.replace(/\n$/, '')));
      const mark =
        result.exitCode === 0 && !result.controlChanged && !result.restored ? chalk.green('✓') : chalk.red('✗');
      out(
        `${mark} ${field(notice.command)} ${result.timedOut ? 'timed out' : `exited ${result.exitCode ?? 'by signal'}`}`,
      );
      if (result.controlChanged) out(`${chalk.red('✗')} ${field(result.controlChanged)}`);
      if (result.restored) out(`${chalk.red('✗')} ${field(result.restored)}`);
      if (result.diskExceeded) out(`${chalk.red('✗')} ${result.diskExceeded}`);
      return;
    }
  }
}

/** A command (or a reason quoting one) inside a printed line: a newline in it cannot start a line of its own. */
function field(text: string): string {
  return escapeTerminal(text, 'line');
}
