import { isCommandAllowed, type CommandRules } from '../config/settings.js';
import { classifyCommand, runCommand, type CommandResult } from '../utils/commands.js';
import { InterruptedError } from '../utils/errors.js';
import type { AgentEmitter } from './events.js';

/** What happened to one plan command; `ran: false` carries the reason it did not run. */
export interface CommandReport {
  command: string;
  ran: boolean;
  exitCode: number | null;
  timedOut?: boolean;
  /** Why it did not run: `not_confirmed`, `destructive_refused`, `denied_by_rule`, `dry_run`, `verify_failed`. */
  skipped?: string;
  /** Full captured output (bounded by utils/commands.ts). */
  stdout?: string;
  stderr?: string;
  ms?: number;
}

/**
 * The policy's verdict on one command, in the shape of the Codex CLI's `canAutoApprove`: run it, ask a
 * person first, or refuse it. On `ask-user`, `scope: 'batch'` means the command is covered by the one
 * "run these commands?" question (asked unless `--run-commands`); `destructive` means it also needs a yes
 * of its own, even after `--run-commands` or an allow rule.
 */
export type CommandApproval =
  | { type: 'auto-approve'; reason: string }
  | { type: 'ask-user'; reason: string; scope: 'batch' | 'alone'; destructive: boolean }
  | { type: 'reject'; reason: string };

/** The flags and settings a command verdict depends on. */
export interface CommandPolicy {
  /** Absolute project root (paths a command names are judged against it). */
  rootDir: string;
  /** `--run-commands`: run commands that stay on this machine and inside the project without asking. */
  runCommands: boolean;
  /** Allow/deny rules from settings: deny refuses, allow runs without asking (destructive still asks). */
  rules?: CommandRules;
}

/**
 * Decide one plan command. The seam for the command classifier: rules first (deny wins), then the
 * safety classification (destructive always needs a person), then `--run-commands`.
 *
 * @returns `reject` (`denied_by_rule`), `ask-user` (not confirmed yet, or destructive) or `auto-approve`
 */
export function approveCommand(command: string, policy: CommandPolicy): CommandApproval {
  const rule = isCommandAllowed(command, policy.rules ?? { allow: [], deny: [] });
  if (rule === 'deny') return { type: 'reject', reason: 'denied_by_rule' };
  const safety = classifyCommand(command, policy.rootDir);
  const covered = rule === 'allow' || policy.runCommands;
  if (safety.destructive) {
    // Without an allow rule or --run-commands, the batch question comes first, then its own question.
    return { type: 'ask-user', reason: safety.reason ?? 'destructive', scope: covered ? 'alone' : 'batch', destructive: true };
  }
  if (rule === 'allow') return { type: 'auto-approve', reason: 'allowed by a settings rule' };
  if (policy.runCommands) return { type: 'auto-approve', reason: '--run-commands' };
  return { type: 'ask-user', reason: 'not_confirmed', scope: 'batch', destructive: false };
}

/**
 * A question for the person about commands: the batch of commands that need a yes, or one destructive
 * command that needs its own yes.
 */
export type CommandQuestion =
  | { type: 'batch'; commands: string[] }
  | { type: 'destructive'; command: string; reason: string };

/** What the command step tells the surface, in order (the CLI prints them; the TUI may ignore them). */
export type CommandNotice =
  | { type: 'commands_listed'; commands: string[]; dryRun: boolean }
  | { type: 'commands_need_flag' }
  | { type: 'command_refused'; command: string; reason: string; by: 'rule' | 'destructive' }
  | { type: 'command_started'; command: string }
  | { type: 'command_finished'; command: string; result: CommandResult };

/** Inputs of {@link runPlanCommands}. */
export interface CommandStepOptions extends CommandPolicy {
  commands: readonly string[];
  /** Asks the person; undefined when nobody can be asked (no terminal, --json). */
  ask?: (question: CommandQuestion) => Promise<boolean>;
  /** Per-command timeout in ms (default: utils/commands.ts). */
  timeoutMs?: number;
  signal?: AbortSignal;
  emitter?: AgentEmitter;
  onNotice?: (notice: CommandNotice) => void;
}

/**
 * Run the plan's commands that the policy and the person allow. Plain `--yes` never runs them; they run
 * after a yes to the batch question or with `--run-commands`. Destructive commands are refused unless a
 * person confirms each one. Emits `run_tests` and `command_done` per command that runs.
 *
 * @returns one report per command, in plan order; a failing command does not stop the next ones
 * @throws InterruptedError when `signal` aborts (also while a command runs)
 */
export async function runPlanCommands(options: CommandStepOptions): Promise<CommandReport[]> {
  const { commands } = options;
  const notify = options.onNotice ?? (() => undefined);
  if (commands.length === 0) return [];
  notify({ type: 'commands_listed', commands: [...commands], dryRun: false });

  const approvals = commands.map((command) => approveCommand(command, options));
  const gated = commands.filter((_, i) => {
    const approval = approvals[i]!;
    return approval.type === 'ask-user' && approval.scope === 'batch';
  });
  let batchYes = false;
  if (gated.length > 0 && options.ask) batchYes = await options.ask({ type: 'batch', commands: gated });
  if (gated.length > 0 && !options.ask) notify({ type: 'commands_need_flag' });

  const reports: CommandReport[] = [];
  for (const [i, command] of commands.entries()) {
    if (options.signal?.aborted) throw new InterruptedError();
    const approval = approvals[i]!;
    if (approval.type === 'reject') {
      notify({ type: 'command_refused', command, reason: approval.reason, by: 'rule' });
      reports.push({ command, ran: false, exitCode: null, skipped: approval.reason });
      continue;
    }
    if (approval.type === 'ask-user') {
      if (approval.scope === 'batch' && !batchYes) {
        reports.push({ command, ran: false, exitCode: null, skipped: 'not_confirmed' });
        continue;
      }
      if (approval.destructive) {
        const yes = options.ask ? await options.ask({ type: 'destructive', command, reason: approval.reason }) : false;
        if (!yes) {
          notify({ type: 'command_refused', command, reason: approval.reason, by: 'destructive' });
          reports.push({ command, ran: false, exitCode: null, skipped: 'destructive_refused' });
          continue;
        }
      }
    }
    reports.push(await runOne(command, options, notify));
  }
  return reports;
}

async function runOne(command: string, options: CommandStepOptions, notify: (n: CommandNotice) => void): Promise<CommandReport> {
  options.emitter?.emit('run_tests', { command });
  notify({ type: 'command_started', command });
  const result = await runCommand(command, { cwd: options.rootDir, timeoutMs: options.timeoutMs, signal: options.signal });
  // Ctrl-C killed the command: that is an interruption, not a failing command.
  if (options.signal?.aborted) throw new InterruptedError();
  options.emitter?.emit('command_done', { command, exitCode: result.exitCode });
  notify({ type: 'command_finished', command, result });
  return { command, ran: true, exitCode: result.exitCode, timedOut: result.timedOut, stdout: result.stdout, stderr: result.stderr, ms: result.ms };
}
