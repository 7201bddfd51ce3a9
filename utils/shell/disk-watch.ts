import { statfsSync } from 'node:fs';

/**
 * A cap on what one sandboxed command may take of the disk that holds the project. The file-size cap
 * (RLIMIT_FSIZE) bounds one file; nothing in the kernel bounds how many files a command writes through a bind
 * mount (quotas are per user and file system, and a command started by root is root on the host), so a loop of
 * 500 MiB files filled the disk. The file system's free blocks and inodes are sampled while the command runs,
 * and the command is stopped once it has taken more than the cap. What other processes write to the same file
 * system meanwhile counts too; the caps sit far above what a build or a test run writes.
 */

/** Most bytes of the project's file system one sandboxed command may take (8 GiB). */
export const SANDBOX_MAX_DISK_BYTES = 8 * 1024 * 1024 * 1024;
/** Most files and folders (inodes) one sandboxed command may create (2 million). */
export const SANDBOX_MAX_DISK_INODES = 2_000_000;
/** How often the file system is sampled, in ms: a write of a few GB/s overshoots by at most a few hundred MB. */
const SAMPLE_MS = 100;

/** A running watch: `stop()` ends it; `exceeded` is a line naming the cap once it was passed. */
export interface DiskWatch {
  stop(): void;
  readonly exceeded: string | undefined;
}

/**
 * Watch the file system holding `path` and call `onExceeded` once when more than `maxBytes` bytes or
 * `maxInodes` inodes were taken since the start.
 *
 * @param path  a folder on the file system to watch (the project root)
 * @returns the watch; one that never fires when the file system cannot be read (statfs fails)
 */
export function watchDisk(
  path: string,
  onExceeded: () => void,
  maxBytes: number = SANDBOX_MAX_DISK_BYTES,
  maxInodes: number = SANDBOX_MAX_DISK_INODES,
): DiskWatch {
  const sample = (): { bytes: number; inodes: number } | undefined => {
    try {
      const s = statfsSync(path);
      return { bytes: s.bfree * s.bsize, inodes: s.ffree };
    } catch {
      return undefined;
    }
  };
  const start = sample();
  let exceeded: string | undefined;
  const timer = start
    ? setInterval(() => {
        const now = sample();
        if (!now || exceeded) return;
        if (start.bytes - now.bytes > maxBytes)
          exceeded = `stopped: the command took more than ${Math.round(maxBytes / 2 ** 20)} MiB of the disk`;
        else if (start.inodes - now.inodes > maxInodes)
          exceeded = `stopped: the command made more than ${maxInodes} files and folders`;
        if (exceeded) onExceeded();
      }, SAMPLE_MS)
    : undefined;
  timer?.unref();
  return {
    stop: () => clearInterval(timer),
    get exceeded() {
      return exceeded;
    },
  };
}
