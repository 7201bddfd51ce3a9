import chalk from 'chalk';
import { classifyCommand, runCommand } from '../utils/commands.js';
import { InterruptedError } from '../utils/errors.js';
import { isCommandAllowed, type CommandRules } from '../config/settings.js';
import type { AgentEmitter } from '../agent/events.js';

/** What happened to one plan command; `ran: false` carries the reason it did not run. */
export interface CommandReport {
  command: string;
  ran: boolean;
  exitCode: number | null;
  timedOut?: boolean;
  /** Why it did not run: `not_confirmed`, `destructive_refused`, `denied_by_rule`, `dry_run`. */
  skipped?: string;
  /** Full captured output (bounded by utils/commands.ts). */
  stdout?: string;
  stderr?: string;
  ms?: number;
}

/** Inputs of the command step: the policy flags and how to ask and print. */
export interface CommandStepOptions {
  rootDir: string;
  commands: readonly string[];
  /** `--run-commands`: run non-destructive commands without asking. */
  runCommands: boolean;
  /** Allow/deny rules from settings: deny refuses, allow runs without asking (destructive still asks). */
  rules?: CommandRules;
  /** A person can be asked (TTY, not --json). */
  interactive: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
  confirm: (message: string) => Promise<boolean>;
  /** Where progress and output tails go; undefined in --json mode. */
  print?: (text: string) => void;
  emitter?: AgentEmitter;
}

/**
 * List and (when allowed) run the plan's commands. Plain `--yes` never runs them; they run after a
 * confirmation or with `--run-commands`. Destructive commands (utils/commands.ts) are refused unless a
 * person confirms each one, even with `--run-commands`.
 *
 * @returns one report per command, in plan order; a failing command does not stop the next ones
 */
export async function runPlanCommands(options: CommandStepOptions): Promise<CommandReport[]> {
  const { commands, print } = options;
  if (commands.length === 0) return [];
  print?.(chalk.bold('\nCommands in the plan:') + '\n' + commands.map((c) => `  $ ${c}`).join('\n'));

  const rules = options.rules ?? { allow: [], deny: [] };
  const decisions = commands.map((command) => isCommandAllowed(command, rules));
  const needAsking = decisions.some((d) => d === 'ask');
  let runAsked = options.runCommands;
  if (!runAsked && needAsking && options.interactive) {
    const count = decisions.filter((d) => d === 'ask').length;
    runAsked = await options.confirm(`Run ${count === 1 ? 'this command' : `these ${count} commands`}?`);
  }
  if (!runAsked && needAsking && !options.interactive) print?.(chalk.dim('Commands not run (pass --run-commands to run them).'));

  const reports: CommandReport[] = [];
  for (const [i, command] of commands.entries()) {
    if (options.signal?.aborted) throw new InterruptedError();
    if (decisions[i] === 'deny') {
      print?.(`${chalk.red('✗')} refused by a deny rule: ${command}`);
      reports.push({ command, ran: false, exitCode: null, skipped: 'denied_by_rule' });
      continue;
    }
    if (decisions[i] === 'ask' && !runAsked) {
      reports.push({ command, ran: false, exitCode: null, skipped: 'not_confirmed' });
      continue;
    }
    const safety = classifyCommand(command, options.rootDir);
    if (safety.destructive) {
      const why = safety.reason ?? 'destructive';
      const ok = options.interactive && (await options.confirm(`${chalk.red('Destructive')} (${why}): ${command}\nRun it anyway?`));
      if (!ok) {
        print?.(`${chalk.red('✗')} refused: ${command} (${why})`);
        reports.push({ command, ran: false, exitCode: null, skipped: 'destructive_refused' });
        continue;
      }
    }
    options.emitter?.emit('run_tests', { command });
    print?.(chalk.dim(`$ ${command}`));
    const result = await runCommand(command, { cwd: options.rootDir, timeoutMs: options.timeoutMs, signal: options.signal });
    // Ctrl-C killed the command: that is an interruption, not a failing command.
    if (options.signal?.aborted) throw new InterruptedError();
    options.emitter?.emit('command_done', { command, exitCode: result.exitCode });
    if (print && result.tail) print(result.tail.replace(/\n$/, ''));
    const mark = result.exitCode === 0 ? chalk.green('✓') : chalk.red('✗');
    print?.(`${mark} ${command} ${result.timedOut ? 'timed out' : `exited ${result.exitCode ?? 'by signal'}`}`);
    reports.push({ command, ran: true, exitCode: result.exitCode, timedOut: result.timedOut, stdout: result.stdout, stderr: result.stderr, ms: result.ms });
  }
  return reports;
}
