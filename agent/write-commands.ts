import type { CommandRules } from '../config/settings-commands.js';
import { decideCommand, type CommandApproval } from '../utils/shell/approval.js';
import { runCommand, sandboxFor, type CommandResult } from '../utils/shell/run.js';
import { InterruptedError } from '../utils/errors.js';
import { detectSandbox, type SandboxStatus } from '../utils/shell/sandbox.js';
import { loadShellParser } from '../utils/shell/parse.js';
import { guardTree, type GuardOutcome, type TreeGuard } from '../utils/shell/tree-guard.js';
import type { AgentEmitter } from './events.js';

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
  /** the approval decision (utils/shell/approval.ts) and its reason; absent for dry runs */
  decision?: CommandApproval['type'];
  reason?: string;
  /** true when it ran inside the OS sandbox */
  sandboxed?: boolean;
  /**
   * project files an unasked command changed, replaced or removed, all put back (utils/shell/tree-guard.ts), in one
   * line; the command counts as failed
   */
  restored?: string;
  /** a control path the command changed (utils/shell/run.ts); the command counts as failed */
  controlChanged?: string;
  /** why the sandbox stopped it for taking more of the disk than its cap (utils/shell/disk-watch.ts) */
  diskExceeded?: string;
  /** Full captured output (bounded by utils/shell/run.ts). */
  stdout?: string;
  stderr?: string;
  ms?: number;
}

/** The flags and settings a command verdict depends on. */
export interface CommandPolicy {
  /** Absolute project root (paths a command names are judged against it). */
  rootDir: string;
  /** `--run-commands`: run the allow-listed commands without asking. */
  runCommands: boolean;
  /** Allow/deny rules from (trusted) settings: deny refuses, allow adds to the allow-list (checks still apply). */
  rules?: CommandRules;
  /** `--allow-network`: keep the network inside the sandbox for this run. */
  allowNetwork?: boolean;
}

/**
 * Decide one plan command with the shell-parsed allow-list (utils/shell/approval.ts): `reject` never
 * runs, `ask-user` needs a person's yes for this command, `auto-approve` runs with `--run-commands` (or
 * after one yes for the batch). Loads the shell parser and probes the sandbox.
 *
 * @returns the verdict in the shape of the Codex CLI's `canAutoApprove`
 */
export async function approveCommand(command: string, policy: CommandPolicy): Promise<CommandApproval> {
  const [parse, sandbox] = await Promise.all([loadShellParser(), detectSandbox(process.env, policy.rootDir)]);
  return decideCommand(command, {
    rootDir: policy.rootDir,
    parse,
    rules: policy.rules ?? { allow: [], deny: [] },
    sandboxed: sandbox.available,
  });
}

/**
 * A question for the person about commands: the batch of allow-listed commands, or one command that
 * needs a yes of its own (its answer defaults to no).
 */
export type CommandQuestion =
  { type: 'batch'; commands: string[] } | { type: 'single'; command: string; reason: string };

/** What the command step tells the surface, in order (the CLI prints them; the TUI may ignore them). */
export type CommandNotice =
  | { type: 'commands_listed'; commands: string[]; dryRun: boolean }
  | { type: 'no_sandbox'; reason: string }
  | { type: 'commands_need_flag' }
  | { type: 'command_refused'; command: string; reason: string; by: 'rule' | 'policy' }
  | { type: 'command_needs_terminal'; command: string; reason: string }
  | { type: 'command_declined'; command: string }
  | { type: 'command_started'; command: string }
  | { type: 'command_finished'; command: string; result: CommandResult };

/** Inputs of {@link runPlanCommands}. */
export interface CommandStepOptions extends CommandPolicy {
  commands: readonly string[];
  /** Project-relative paths the plan wrote: an unasked command may change them (formatters), no other file. */
  planFiles?: readonly string[];
  /** Asks the person; undefined when nobody can be asked (no terminal, --json). */
  ask?: (question: CommandQuestion) => Promise<boolean>;
  /** Per-command timeout in ms (default: utils/shell/run.ts). */
  timeoutMs?: number;
  signal?: AbortSignal;
  emitter?: AgentEmitter;
  onNotice?: (notice: CommandNotice) => void;
}

const byRule = (d: CommandApproval): boolean =>
  d.type === 'auto-approve' && d.reason.startsWith('allowed by a settings rule');

/**
 * Run the plan's commands that the policy and the person allow. Each command is decided by
 * decideCommand: `reject` never runs; `ask-user` runs only after a person's yes for that command (never
 * without a terminal, whatever the flags); `auto-approve` runs with `--run-commands` (or an allow rule),
 * else after one yes for the batch. Commands run inside the bubblewrap sandbox (utils/shell/sandbox.ts); where
 * there is none, that is said once and every command is asked about. Emits `run_tests` and
 * `command_done` per command that runs.
 *
 * @returns one report per command, in plan order; a failing command does not stop the next ones
 * @throws InterruptedError when `signal` aborts (also while a command runs)
 */
export async function runPlanCommands(options: CommandStepOptions): Promise<CommandReport[]> {
  const { commands } = options;
  const notify = options.onNotice ?? (() => undefined);
  if (commands.length === 0) return [];
  notify({ type: 'commands_listed', commands: [...commands], dryRun: false });

  const [parse, sandbox] = await Promise.all([loadShellParser(), detectSandbox(process.env, options.rootDir)]);
  if (!sandbox.available) notify({ type: 'no_sandbox', reason: sandbox.reason });
  const rules = options.rules ?? { allow: [], deny: [] };
  const decisions = commands.map((command) =>
    decideCommand(command, { rootDir: options.rootDir, parse, rules, sandboxed: sandbox.available }),
  );
  const batch = commands.filter((_, i) => decisions[i]!.type === 'auto-approve' && !byRule(decisions[i]!));
  let batchYes = options.runCommands;
  if (!batchYes && batch.length > 0 && options.ask) batchYes = await options.ask({ type: 'batch', commands: batch });
  if (!batchYes && batch.length > 0 && !options.ask) notify({ type: 'commands_need_flag' });

  const reports: CommandReport[] = [];
  for (const [i, command] of commands.entries()) {
    if (options.signal?.aborted) throw new InterruptedError();
    const decision = decisions[i]!;
    const base = { command, ran: false, exitCode: null, decision: decision.type, reason: decision.reason };
    if (decision.type === 'reject') {
      const denied = decision.reason.startsWith('matches a deny rule');
      notify({ type: 'command_refused', command, reason: decision.reason, by: denied ? 'rule' : 'policy' });
      reports.push({ ...base, skipped: denied ? 'denied_by_rule' : 'destructive_refused' });
      continue;
    }
    if (decision.type === 'ask-user') {
      if (!options.ask) {
        notify({ type: 'command_needs_terminal', command, reason: decision.reason });
        reports.push({ ...base, skipped: 'needs_confirmation' });
        continue;
      }
      if (!(await options.ask({ type: 'single', command, reason: decision.reason }))) {
        notify({ type: 'command_declined', command });
        reports.push({ ...base, skipped: 'declined' });
        continue;
      }
    } else if (!batchYes && !byRule(decision)) {
      reports.push({ ...base, skipped: 'not_confirmed' });
      continue;
    }
    // An unasked command may add files and change the plan's and generated ones; the rest is kept and put back.
    let guard: TreeGuard | undefined;
    if (decision.type === 'auto-approve') {
      const taken = await guardTree(options.rootDir, new Set(options.planFiles ?? []));
      if (typeof taken === 'string') {
        const reason = `${taken}; it runs only after your yes`;
        if (!options.ask || !(await options.ask({ type: 'single', command, reason }))) {
          notify({ type: 'command_needs_terminal', command, reason });
          reports.push({ ...base, reason, skipped: 'needs_confirmation' });
          continue;
        }
      } else guard = taken;
    }
    reports.push(await runOne(command, decision, sandbox, options, notify, guard));
  }
  return reports;
}

async function runOne(
  command: string,
  decision: CommandApproval,
  sandbox: SandboxStatus,
  options: CommandStepOptions,
  notify: (n: CommandNotice) => void,
  guard?: TreeGuard,
): Promise<CommandReport> {
  options.emitter?.emit('run_tests', { command });
  notify({ type: 'command_started', command });
  const result = await runCommand(command, {
    cwd: options.rootDir,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    ...unaskedSandbox(sandboxFor(sandbox, options.rootDir, options.allowNetwork), guard !== undefined),
  });
  const restored = guard ? restoredLine(await guard.check()) : undefined;
  if (restored) result.restored = restored;
  // Ctrl-C killed the command: that is an interruption, not a failing command.
  if (options.signal?.aborted) throw new InterruptedError();
  options.emitter?.emit('command_done', { command, exitCode: result.exitCode });
  notify({ type: 'command_finished', command, result });
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
    ...(result.controlChanged ? { controlChanged: result.controlChanged } : {}),
    ...(restored ? { restored } : {}),
    ...(result.diskExceeded ? { diskExceeded: result.diskExceeded } : {}),
  };
}

/** One line for what the tree guard put back, or undefined when the command kept to its rule. */
function restoredLine(outcome: GuardOutcome): string | undefined {
  const { changed, removed, failed } = outcome;
  if (changed.length === 0) return undefined;
  const more = changed.length > 1 ? ` and ${changed.length - 1} more` : '';
  const added =
    removed.length > 0 ? `, and the ${removed.length} file${removed.length === 1 ? '' : 's'} it added removed` : '';
  const lost = failed.length > 0 ? `; could not put back: ${failed.slice(0, 3).join(', ')}` : '';
  return `the command changed ${changed[0]}${more}, which an unasked command may not change: put back as it was${added}${lost}`;
}

/** An unasked command's sandbox also keeps the installed dependencies read-only (utils/shell/sandbox-deps.ts). */
function unaskedSandbox(options: ReturnType<typeof sandboxFor>, unasked: boolean): ReturnType<typeof sandboxFor> {
  if (!unasked || !options.sandbox) return options;
  return { sandbox: { ...options.sandbox, policy: { ...options.sandbox.policy, dependenciesReadOnly: true } } };
}
