/**
 * Quiet handling of a reader that goes away early (`clawcode … | head -2`, quitting `less`): the
 * first `EPIPE` on stdout or stderr marks that stream as closed and is swallowed, like other CLIs do,
 * instead of surfacing as an unhandled `write EPIPE` with a stack trace. The run itself goes on to its
 * normal end (a write already under way finishes and stays undoable); later writes to the closed
 * stream are dropped. Any other stream error is rethrown as before.
 *
 * @param streams  the streams to watch (default stdout and stderr)
 */
export function ignoreClosedPipes(streams: readonly NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    let closed = false;
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (closed || error.code === 'EPIPE') {
        closed = true;
        return;
      }
      throw error;
    });
  }
}
