import type { Ora } from 'ora';

/**
 * An ora spinner on `stream` showing `text`, or undefined where none can be drawn: the stream is not a
 * terminal, or a terminal that reports no width (0 or unknown columns, as a pty opened at 0x0). ora divides a
 * line's width by the columns to know how many lines to clear; at 0 that is Infinity, and the clear loop never
 * ended (megabytes of cursor-up sequences, the event loop blocked so no signal could stop it).
 */
export async function startTerminalSpinner(stream: NodeJS.WritableStream, text: string): Promise<Ora | undefined> {
  const tty = stream as Partial<NodeJS.WriteStream>;
  if (!tty.isTTY || !(typeof tty.columns === 'number' && tty.columns > 0)) return undefined;
  const { default: ora } = await import('ora');
  // discardStdin:false keeps a surrounding readline REPL alive (ora #236). isEnabled: ora alone would go quiet
  // whenever CI is set (dev containers set it), and this is a terminal.
  return ora({ text, stream: stream as NodeJS.WriteStream, discardStdin: false, isEnabled: true }).start();
}
