import chalk from 'chalk';
import { runCommand } from '../utils/commands.js';
import { decideCommand, type CommandApproval } from '../utils/command-approval.js';
import { detectSandbox, type SandboxStatus } from '../utils/sandbox.js';
import { loadShellParser } from '../utils/shell-parse.js';
import { InterruptedError } from '../utils/errors.js';
import type { CommandRules } from '../config/settings.js';
import type { AgentEmitter } from '../agent/events.js';

/** What happened to one plan command; `ran: false` carries the reason it did not run. */
export interface CommandReport {
  command: string;
  ran: boolean;
  exitCode: number | null;
  timedOut?: boolean;
  /**
   * Why it did not run: `not_confirmed` (no yes for the batch), `needs_confirmation` (this command needs a
   * person's yes and there is no terminal), `declined` (the person said no), `destructive_refused`,
   * `denied_by_rule`, `dry_run`, `verify_failed`.
   */
  skipped?: string;
  /** the approval decision (utils/command-approval.ts) and its reason; absent for dry runs */
  decision?: CommandApproval['type'];
  reason?: string;
  /** true when it ran inside the OS sandbox */
  sandboxed?: boolean;
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
  /** Allow/deny rules from (trusted) settings: deny refuses, allow runs without asking (checks still apply). */
  rules?: CommandRules;
  /** `--allow-network`: keep the network inside the sandbox for this run. */
  allowNetwork?: boolean;
  /** A person can be asked (TTY, not --json). */
  interactive: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Yes/no question; `defaultYes: false` for a command that needs a person's own yes (Enter alone is no). */
  confirm: (message: string, defaultYes?: boolean) => Promise<boolean>;
  /** Where progress and output tails go; undefined in --json mode. */
  print?: (text: string) => void;
  emitter?: AgentEmitter;
}

/**
 * List and (when allowed) run the plan's commands. Each command is decided by decideCommand
 * (utils/command-approval.ts): `reject` never runs; `ask-user` runs only after a person's yes for that
 * command (never without a terminal, whatever the flags); `auto-approve` runs with `--run-commands` (or an
 * allow rule), else after one yes for the batch. Commands run inside the bubblewrap sandbox (utils/sandbox.ts);
 * where there is none, that is said once and every command is asked about.
 *
 * @returns one report per command, in plan order; a failing command does not stop the next ones
 */
export async function runPlanCommands(options: CommandStepOptions): Promise<CommandReport[]> {
  const { commands, print } = options;
  if (commands.length === 0) return [];
  print?.(chalk.bold('\nCommands in the plan:') + '\n' + commands.map((c) => `  $ ${c}`).join('\n'));

  const [parse, sandbox] = await Promise.all([loadShellParser(), detectSandbox()]);
  if (!sandbox.available)
    print?.(`${chalk.yellow('!')} No sandbox for commands: ${sandbox.reason}; every command needs your yes.`);
  const rules = options.rules ?? { allow: [], deny: [] };
  const decisions = commands.map((command) =>
    decideCommand(command, { rootDir: options.rootDir, parse, rules, sandboxed: sandbox.available }),
  );
  const byRule = (d: CommandApproval) => d.type === 'auto-approve' && d.reason.startsWith('allowed by a settings rule');
  const batch = decisions.filter((d) => d.type === 'auto-approve' && !byRule(d)).length;
  let batchYes = options.runCommands;
  if (!batchYes && batch > 0 && options.interactive) {
    batchYes = await options.confirm(
      `Run ${batch === 1 ? 'this command' : `these ${batch} commands`} (in the sandbox)?`,
    );
  }
  if (!batchYes && batch > 0 && !options.interactive)
    print?.(chalk.dim('Commands not run (pass --run-commands to run them).'));

  const reports: CommandReport[] = [];
  for (const [i, command] of commands.entries()) {
    if (options.signal?.aborted) throw new InterruptedError();
    const decision = decisions[i]!;
    const base = { command, ran: false, exitCode: null, decision: decision.type, reason: decision.reason };
    if (decision.type === 'reject') {
      const denied = decision.reason.startsWith('matches a deny rule');
      print?.(`${chalk.red('✗')} refused: ${command} (${decision.reason})`);
      reports.push({ ...base, skipped: denied ? 'denied_by_rule' : 'destructive_refused' });
      continue;
    }
    if (decision.type === 'ask-user') {
      if (!options.interactive) {
        print?.(`${chalk.yellow('✗')} not run, needs your yes in a terminal: ${command} (${decision.reason})`);
        reports.push({ ...base, skipped: 'needs_confirmation' });
        continue;
      }
      const question = `${chalk.yellow('Needs your yes')} (${decision.reason}): ${command}\nRun it?`;
      if (!(await options.confirm(question, false))) {
        print?.(`${chalk.dim('–')} skipped: ${command}`);
        reports.push({ ...base, skipped: 'declined' });
        continue;
      }
    } else if (!batchYes && !byRule(decision)) {
      reports.push({ ...base, skipped: 'not_confirmed' });
      continue;
    }
    reports.push(await runOne(command, decision, sandbox, options));
  }
  return reports;
}

async function runOne(
  command: string,
  decision: CommandApproval,
  sandbox: SandboxStatus,
  options: CommandStepOptions,
): Promise<CommandReport> {
  const { print } = options;
  options.emitter?.emit('run_tests', { command });
  print?.(chalk.dim(`$ ${command}`));
  const result = await runCommand(command, {
    cwd: options.rootDir,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    ...(sandbox.available
      ? {
          sandbox: {
            bwrapPath: sandbox.bwrapPath,
            policy: { rootDir: options.rootDir, allowNetwork: Boolean(options.allowNetwork) },
          },
        }
      : {}),
  });
  // Ctrl-C killed the command: that is an interruption, not a failing command.
  if (options.signal?.aborted) throw new InterruptedError();
  options.emitter?.emit('command_done', { command, exitCode: result.exitCode });
  if (print && result.tail) print(result.tail.replace(/\n$/, ''));
  const mark = result.exitCode === 0 ? chalk.green('✓') : chalk.red('✗');
  print?.(`${mark} ${command} ${result.timedOut ? 'timed out' : `exited ${result.exitCode ?? 'by signal'}`}`);
  return {
    command,
    ran: true,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    stdout: result.stdout,
    stderr: result.stderr,
    ms: result.ms,
    decision: decision.type,
    reason: decision.reason,
    sandboxed: sandbox.available,
  };
}
