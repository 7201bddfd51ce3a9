/**
 * The file-system side of the path policy (utils/policy/paths.ts): where a path really leads, whether it
 * sits inside a virtualenv, and what kind of entry it is (the reading of regular files without blocking is the ground file
 * utils/regular-file.ts).
 */
import type { Stats } from 'node:fs';
import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { readRegularFile } from '../regular-file.js';

const MAX_LINK_HOPS = 40;

/**
 * Where an absolute path really leads: `realpath` for what exists; for a dangling symlink, where its
 * target would be created; for a missing tail, the real parent plus the tail.
 *
 * @param abs   an absolute path
 * @param hops  symlinks followed so far (gives up after MAX_LINK_HOPS, answering `abs`)
 * @returns an absolute path; never throws
 */
export async function realLocation(abs: string, hops = 0): Promise<string> {
  try {
    return await realpath(abs);
  } catch {
    if (hops > MAX_LINK_HOPS) return abs;
    const info = await lstat(abs).catch(() => undefined);
    if (info?.isSymbolicLink()) {
      const target = await readlink(abs).catch(() => undefined);
      if (target !== undefined) return realLocation(path.resolve(path.dirname(abs), target), hops + 1);
    }
    const parent = path.dirname(abs);
    if (parent === abs) return abs;
    return path.join(await realLocation(parent, hops + 1), path.basename(abs));
  }
}

/**
 * Whether a folder between the root and `realRel` holds a `pyvenv.cfg` (a virtualenv under any name).
 *
 * @returns that folder, project-relative, or undefined
 */
export async function insideVirtualenv(root: string, realRel: string): Promise<string | undefined> {
  const segments = realRel.split('/');
  for (let i = 1; i < segments.length; i++) {
    const folder = segments.slice(0, i).join('/');
    const found = await lstat(path.join(root, folder, 'pyvenv.cfg')).catch(() => undefined);
    if (found?.isFile()) return folder;
  }
  return undefined;
}

/** What a non-regular file is, for a message: "a folder", "a FIFO (named pipe)", "a socket", "a device". */
export function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a folder';
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** Bytes read to sniff for NUL (git's heuristic uses the first 8000). */
const SNIFF_BYTES = 8000;

/** Whether the first SNIFF_BYTES of a regular file hold a NUL byte (false when it cannot be read). */
export async function hasNulByte(file: string): Promise<boolean> {
  const head = await readRegularFile(file, SNIFF_BYTES);
  return head !== undefined && head.bytes.includes(0);
}
