import { close, constants as fsConstants, fstat, open, read } from 'node:fs';
import { Socket } from 'node:net';
import { promisify } from 'node:util';

const openFd = promisify(open);
const fstatFd = promisify(fstat);
const closeFd = promisify(close);
const readFd = promisify(read);
/** Bytes read per call from a regular input file. */
const READ_CHUNK_BYTES = 1024 * 1024;

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
  // A plain descriptor, not a FileHandle: a pipe's descriptor is handed to a Socket, which closes it, and a
  // FileHandle would close the same number again (when collected), perhaps after it was reused.
  // O_NOCTTY: a terminal named as the input never becomes this process's controlling terminal.
  const fd = await openFd(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK | (fsConstants.O_NOCTTY ?? 0));
  let socket: Socket | undefined;
  try {
    const info = await fstatFd(fd);
    if (info.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    if (info.isFIFO()) socket = new Socket({ fd, readable: true, writable: false });
    else if (!info.isFile()) {
      const kind = info.isSocket()
        ? 'a socket'
        : info.isCharacterDevice() || info.isBlockDevice()
          ? 'a device'
          : 'not a file';
      throw new InputFileError('input_not_file', `is ${kind}, not a file or a pipe`);
    }
  } catch (error) {
    await closeFd(fd).catch(() => undefined);
    throw error;
  }
  if (socket) return readStream(socket, maxBytes, options.signal);
  try {
    return await readBounded(fd, maxBytes);
  } finally {
    await closeFd(fd).catch(() => undefined);
  }
}

/** A regular file's bytes, read until its end but never past `maxBytes` (a file may grow while it is read). */
async function readBounded(fd: number, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.alloc(Math.min(READ_CHUNK_BYTES, maxBytes + 1 - total));
    const { bytesRead } = await readFd(fd, chunk, 0, chunk.length, null);
    if (bytesRead === 0) return Buffer.concat(chunks);
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
    if (total > maxBytes) throw tooLarge(maxBytes);
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

/** Read `stream` to its end (at most `maxBytes`); the stream is destroyed once done, whichever way it ends. */
function readStream(stream: NodeJS.ReadableStream, maxBytes: number, signal: AbortSignal | undefined): Promise<Buffer> {
  return new Promise<Buffer>((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const settle = (error: unknown, bytes?: Buffer): void => {
      signal?.removeEventListener('abort', onAbort);
      stream.removeAllListeners('data');
      (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      if (bytes) resolvePromise(bytes);
      else reject(error);
    };
    const onAbort = (): void => settle(signal?.reason);
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    stream.on('data', (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      total += bytes.length;
      if (total > maxBytes) settle(tooLarge(maxBytes));
      else chunks.push(bytes);
    });
    stream.once('end', () => settle(undefined, Buffer.concat(chunks)));
    stream.once('error', (error: Error) => settle(error));
  });
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
