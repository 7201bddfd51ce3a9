import { closeSync, constants as fsConstants, fstatSync, openSync, readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * Reading a regular file that may not be one: a path in the project, the journal or a git directory can be a FIFO,
 * a device or a symlink put there by whoever wrote the tree. Opened non-blocking and checked with fstat before any
 * read, so none of them can hold the process.
 */

/**
 * Read at most `maxBytes` of a regular file without ever blocking on a FIFO or device: opened
 * non-blocking and without following a final symlink, then checked with fstat before any read.
 *
 * @param abs  absolute path, normally `realAbs` from the path policy's `resolveProjectPath`
 * @returns the bytes and whether the file was longer than `maxBytes`; undefined when it is missing,
 *          not a regular file, or unreadable
 */
export async function readRegularFile(
  abs: string,
  maxBytes: number,
): Promise<{ bytes: Buffer; truncated: boolean } | undefined> {
  const flags = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) | (fsConstants.O_NOFOLLOW ?? 0);
  const handle = await open(abs, flags).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const info = await handle.stat();
    if (!info.isFile()) return undefined;
    const size = Math.min(info.size, maxBytes);
    const bytes = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const { bytesRead } = await handle.read(bytes, read, size - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return { bytes: bytes.subarray(0, read), truncated: info.size > maxBytes };
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/** git skips a `.gitattributes` larger than this (100 MiB, since 2.39.1); so do we. */
export const MAX_ATTRIBUTES_FILE_BYTES = 100 * 1024 * 1024;

/**
 * The UTF-8 text of a regular file of at most `maxBytes` bytes: `readRegularFile` for synchronous callers (the
 * scan, repository discovery), which want text and no bound by default. Never blocks: the
 * open is non-blocking, so a FIFO or device put where a rules file is expected is rejected by fstat before any
 * read instead of holding the process for good.
 *
 * @param path      absolute path
 * @param maxBytes  the largest size read, in bytes; a longer file yields undefined (not a truncated text). No
 *                  bound by default: an ignore file left unread would send what it keeps out
 * @param noFollow  refuse a final symlink (a `gitdir` file of a git directory is read where it is, never through
 *                  a link)
 * @returns the text, or undefined when the path is missing, no regular file, too long or unreadable
 */
export function readRegularText(
  path: string,
  maxBytes = Number.POSITIVE_INFINITY,
  noFollow = false,
): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK | (noFollow ? fsConstants.O_NOFOLLOW : 0));
    const info = fstatSync(fd);
    if (!info.isFile() || info.size > maxBytes) return undefined;
    return readFileSync(fd, 'utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
