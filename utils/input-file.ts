import { constants as fsConstants } from 'node:fs';
import { open } from 'node:fs/promises';
import { Socket } from 'node:net';

/**
 * Most bytes of a file the person names as input (a plan for `apply`/`check`, a `--task-file`), or of standard
 * input in its place: far above any plan a provider may send (4,000,000 characters) or any task a model's window
 * holds, and small enough that `apply /dev/zero`-like input (a pipe that never ends) stops long before memory
 * does.
 */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

/** Why an input file gave no text; `message` completes "Plan file x …" / "Task file x …". */
export class InputFileError extends Error {
  /** `input_not_file` (a device, a socket…), `input_too_large` or `input_not_utf8` */
  readonly code: 'input_not_file' | 'input_too_large' | 'input_not_utf8';

  constructor(code: InputFileError['code'], message: string) {
    super(message);
    this.name = 'InputFileError';
    this.code = code;
  }
}

/**
 * Read a regular file or a named pipe (FIFO) the person named, never blocking a libuv worker: the file is opened
 * with O_NONBLOCK (a FIFO with no writer would otherwise hold the open in a worker thread, and an exiting process
 * waits for its workers, so even SIGTERM could not end it), and a pipe is read on the event loop, where
 * `signal` can stop the wait. A FIFO still waits for its first writer (Linux reports no hang-up until one came and
 * went), so `apply <(…)` and `mkfifo` both work.
 *
 * @param path      absolute path
 * @param options   `maxBytes` (default MAX_INPUT_BYTES); `signal` aborts a pipe's wait (rejects with its reason)
 * @returns the bytes
 * @throws the open's errno error (ENOENT, EISDIR, EACCES…) as is; InputFileError `input_not_file` for a device
 *         or socket, `input_too_large` past `maxBytes`; `signal.reason` when aborted
 */
export async function readInputFile(
  path: string,
  options: { maxBytes?: number; signal?: AbortSignal } = {},
): Promise<Buffer> {
  const maxBytes = options.maxBytes ?? MAX_INPUT_BYTES;
  options.signal?.throwIfAborted();
  // O_NOCTTY: a terminal named as the input never becomes this process's controlling terminal.
  const handle = await open(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK | (fsConstants.O_NOCTTY ?? 0));
  let handedOver = false;
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    if (info.isFIFO()) {
      handedOver = true;
      return await readStream(
        new Socket({ fd: handle.fd, readable: true, writable: false }),
        maxBytes,
        options.signal,
        () => {
          void handle.close().catch(() => undefined);
        },
      );
    }
    if (!info.isFile()) {
      const kind = info.isSocket()
        ? 'a socket'
        : info.isCharacterDevice() || info.isBlockDevice()
          ? 'a device'
          : 'not a file';
      throw new InputFileError('input_not_file', `is ${kind}, not a file or a pipe`);
    }
    if (info.size > maxBytes) throw tooLarge(maxBytes);
    const bytes = await handle.readFile();
    if (bytes.length > maxBytes) throw tooLarge(maxBytes);
    return bytes;
  } finally {
    if (!handedOver) await handle.close();
  }
}

/**
 * Read a stream (standard input) to its end, at most `maxBytes`, stopping when `signal` aborts.
 *
 * @throws InputFileError `input_too_large` past `maxBytes` (the stream is destroyed); `signal.reason` when aborted
 */
export async function readInputStream(
  stream: NodeJS.ReadableStream,
  options: { maxBytes?: number; signal?: AbortSignal } = {},
): Promise<Buffer> {
  return readStream(stream, options.maxBytes ?? MAX_INPUT_BYTES, options.signal);
}

async function readStream(
  stream: NodeJS.ReadableStream,
  maxBytes: number,
  signal: AbortSignal | undefined,
  done?: () => void,
): Promise<Buffer> {
  const destroy = (): void => {
    (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
  };
  try {
    signal?.throwIfAborted();
    return await new Promise<Buffer>((resolvePromise, reject) => {
      const chunks: Buffer[] = [];
      let total = 0;
      const onAbort = (): void => {
        finish();
        reject(signal?.reason);
      };
      const finish = (): void => {
        signal?.removeEventListener('abort', onAbort);
        stream.removeAllListeners('data');
        destroy();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      stream.on('data', (chunk: Buffer | string) => {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        total += bytes.length;
        if (total > maxBytes) {
          finish();
          reject(tooLarge(maxBytes));
          return;
        }
        chunks.push(bytes);
      });
      stream.once('end', () => {
        signal?.removeEventListener('abort', onAbort);
        resolvePromise(Buffer.concat(chunks));
      });
      stream.once('error', (error: Error) => {
        finish();
        reject(error);
      });
    });
  } finally {
    done?.();
  }
}

/**
 * Bytes as UTF-8 text, refusing bytes that are not UTF-8 (a Latin-1 file decoded anyway turns each accented letter
 * into U+FFFD, which a plan would then write into the project). A leading byte-order mark is kept for the caller.
 *
 * @throws InputFileError `input_not_utf8` naming the 1-based line of the first bad byte
 */
export function decodeUtf8Input(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  // Each character before a U+FFFD was decoded from valid bytes, so it re-encodes to exactly those bytes.
  let offset = 0;
  let from = 0;
  for (let at = text.indexOf('\uFFFD'); at !== -1; at = text.indexOf('\uFFFD', at + 1)) {
    offset += Buffer.byteLength(text.slice(from, at));
    from = at + 1;
    if (bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd) {
      offset += 3;
      continue;
    }
    const line = text.slice(0, at).split('\n').length;
    throw new InputFileError('input_not_utf8', `is not UTF-8 text (line ${line} holds a byte that is not UTF-8)`);
  }
  return text;
}

function tooLarge(maxBytes: number): InputFileError {
  return new InputFileError('input_too_large', `is over ${maxBytes / (1024 * 1024)} MiB, too large for one input`);
}
