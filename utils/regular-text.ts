import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

/** git skips a `.gitattributes` larger than this (100 MiB, since 2.39.1); so do we. */
export const MAX_ATTRIBUTES_FILE_BYTES = 100 * 1024 * 1024;

/**
 * The UTF-8 text of a regular file of at most `maxBytes` bytes, read synchronously without ever blocking: the
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
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (noFollow ? constants.O_NOFOLLOW : 0));
    const info = fstatSync(fd);
    if (!info.isFile() || info.size > maxBytes) return undefined;
    return readFileSync(fd, 'utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
