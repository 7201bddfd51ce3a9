import { InterruptedError } from '../../utils/errors.js';

/**
 * Run `fn` with an AbortSignal that the first Ctrl-C (SIGINT) aborts, so the provider request and
 * running commands stop and the task ends with InterruptedError (exit 130); a second Ctrl-C exits
 * at once with 130. The SIGINT handler is removed when `fn` settles.
 */
export async function withInterrupt<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onSigint = (): void => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort(new InterruptedError());
  };
  process.on('SIGINT', onSigint);
  try {
    return await fn(controller.signal);
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** @inquirer/prompts throws ExitPromptError (Ctrl-C at a prompt) or AbortPromptError: a cancellation. */
export function isPromptExit(error: unknown): boolean {
  return error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError');
}
