import { UsageError } from '../utils/errors.js';

/**
 * The smallest `--budget` (characters) accepted: room for the share of the project instructions and
 * at least one region of a file (about 40 lines of code). Below it the selection sends no file at all.
 */
export const MIN_BUDGET_CHARS = 2_000;

/** The smallest `--timeout` (ms) accepted: below a second no provider can answer a plan request. */
export const MIN_TIMEOUT_MS = 1_000;

/**
 * A commander parser for a whole-number flag with a lower bound: `--budget 10` or `--budget lots`
 * end with one line naming the flag, the value and the minimum.
 *
 * @param name  the flag as typed (`--budget`)
 * @param min   the smallest accepted value (inclusive)
 * @param unit  what the number counts, for the message (`characters`, `ms`)
 * @throws UsageError (exit 2) for anything but a whole number >= min
 */
export function wholeNumberAtLeast(name: string, min: number, unit: string) {
  return (value: string): number => {
    const n = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n)) throw new UsageError(`${name} must be a whole number of ${unit}, got "${value}".`);
    if (n < min)
      throw new UsageError(`${name} ${n} is too small: the minimum is ${min.toLocaleString('en-US')} ${unit}.`);
    return n;
  };
}

/** The flags of a task or `apply` that decide whether a person must be asked before writing. */
export interface ConfirmationFlags {
  yes?: boolean;
  dryRun?: boolean;
  json?: boolean;
  events?: boolean;
  printPrompt?: boolean;
  planOut?: string;
}

/**
 * Refuse, before any model call or file read, a run that would end at a yes/no question nobody can
 * answer: no terminal, and none of the flags that say what to do without asking. `--json`, `--events`
 * and `--plan-out` stay allowed: they report (or save) the plan without writing it.
 *
 * @param command   `task` (the main job) or `apply`
 * @param terminal  stdin and stdout are both terminals
 * @throws UsageError (code `no_terminal`, exit 2) naming the flags that fit
 */
export function refuseUnanswerableRun(command: 'task' | 'apply', flags: ConfirmationFlags, terminal: boolean): void {
  if (terminal || flags.yes || flags.dryRun || flags.json || flags.events || flags.printPrompt || flags.planOut) return;
  const writeNothing = command === 'task' ? '--dry-run, --json or --print-prompt' : '--dry-run or --json';
  throw new UsageError(
    `No terminal to confirm in: pass --yes to write the changes, or ${writeNothing} to write nothing.`,
    {
      code: 'no_terminal',
    },
  );
}

/**
 * `--json` and `--events` both own stdout (one report vs one line per event); together they would
 * interleave two formats, so the pair is refused.
 *
 * @throws UsageError (exit 2)
 */
export function refuseJsonWithEvents(flags: { json?: boolean; events?: boolean }): void {
  if (flags.json && flags.events) {
    throw new UsageError('--json and --events both print to stdout; choose one.', {
      hint: '--events ends with a {"event":"report"} line that holds the same report as --json.',
    });
  }
}
