import { InterruptedError } from '../../utils/errors.js';

/** Exit code of a run ended by SIGTERM: 128 + 15, what a shell reports for a process the signal killed. */
export const TERMINATED_EXIT_CODE = 143;

/**
 * How long a run aborted by SIGTERM may take to unwind (provider request cancelled, commands stopped, lock
 * released) before the process exits anyway: a run waiting at a prompt has nothing that notices the abort.
 */
const TERMINATE_GRACE_MS = 3_000;

/** The runs in progress that SIGTERM aborts (added by `withInterrupt`). */
const running = new Set<AbortController>();
let terminating = false;

/**
 * Make SIGTERM end clawcode with exit 143 wherever it is: a running task is aborted like a Ctrl-C (the
 * provider request and commands stop, the project lock is released on the way out) and the process exits
 * once it has unwound, or after a short grace; anywhere else it exits at once. The project lock also goes
 * on a plain `process.exit` (utils/journal/lock.ts). Install once, from the entry.
 */
export function endOnSigterm(): void {
  process.on('SIGTERM', () => {
    terminating = true;
    const live = [...running].filter((c) => !c.signal.aborted);
    if (live.length === 0) process.exit(TERMINATED_EXIT_CODE);
    for (const controller of live) controller.abort(new InterruptedError('Terminated'));
    setTimeout(() => process.exit(TERMINATED_EXIT_CODE), TERMINATE_GRACE_MS).unref();
  });
}

/** True once SIGTERM arrived: the run is ending, whatever exit code its parts report (the entry exits 143). */
export function isTerminating(): boolean {
  return terminating;
}

/**
 * Run `fn` with an AbortSignal that the first Ctrl-C (SIGINT) or a SIGTERM aborts, so the provider request and
 * running commands stop and the task ends with InterruptedError (exit 130; 143 for SIGTERM, set by the entry); a
 * second Ctrl-C exits at once with 130. The SIGINT handler is removed when `fn` settles.
 */
export async function withInterrupt<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onSigint = (): void => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort(new InterruptedError());
  };
  process.on('SIGINT', onSigint);
  running.add(controller);
  try {
    return await fn(controller.signal);
  } finally {
    process.off('SIGINT', onSigint);
    running.delete(controller);
  }
}

/** @inquirer/prompts throws ExitPromptError (Ctrl-C at a prompt) or AbortPromptError: a cancellation. */
export function isPromptExit(error: unknown): boolean {
  return error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError');
}
