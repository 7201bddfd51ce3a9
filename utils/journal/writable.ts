import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, relative, sep } from 'node:path';
import { IoError } from '../errors.js';

/** A file a run would write that this process may not (or should not) write. Exit 1, nothing written. */
export class PermissionDeniedError extends IoError {
  /** The project-relative path refused first. */
  readonly path: string;
  constructor(path: string, why: string) {
    super(`Cannot write ${path}: ${why}; nothing was written.`, {
      code: 'permission_denied',
      hint: `Make it writable (chmod u+w ${path}) and run again, or leave it out of the task.`,
    });
    this.path = path;
  }
}

/**
 * Refuse, before anything is written, a run whose targets this process cannot write: an existing file with
 * no write permission for this user, or a folder where the new file (the atomic write's temp file and its
 * rename) cannot be made. A file with no write bit at all is refused even for root, who could write it: the
 * owner marked it read-only, as `rm` and editors respect.
 *
 * @param realRoot  the project root, real path
 * @param targets   absolute paths of the files to write (real, inside the root), with their mode (null: new file)
 * @throws PermissionDeniedError (exit 1) naming the first such file and why
 */
export async function refuseUnwritable(
  realRoot: string,
  targets: readonly { abs: string; mode: number | null }[],
): Promise<void> {
  for (const t of targets) {
    const why = await whyUnwritable(realRoot, t.abs, t.mode);
    if (why) throw new PermissionDeniedError(relative(realRoot, t.abs).split(sep).join('/'), why);
  }
}

async function whyUnwritable(realRoot: string, abs: string, mode: number | null): Promise<string | undefined> {
  if (mode !== null) {
    const octal = `mode ${mode.toString(8).padStart(4, '0')}`;
    if ((mode & 0o222) === 0) return `it is read-only (${octal})`;
    if (!(await allowed(abs, constants.W_OK))) return `this user may not write it (${octal})`;
  }
  const folder = await nearestFolder(realRoot, dirname(abs));
  if (!(await allowed(folder, constants.W_OK | constants.X_OK))) {
    const name = relative(realRoot, folder).split(sep).join('/') || 'the project folder';
    return `${name === 'the project folder' ? name : `its folder ${name}`} is not writable`;
  }
  return undefined;
}

/** The closest existing folder at or above `dir`, not above the root (new files' folders are made first). */
async function nearestFolder(realRoot: string, dir: string): Promise<string> {
  let current = dir;
  while (current !== realRoot && current.startsWith(realRoot + sep)) {
    if ((await stat(current).catch(() => null))?.isDirectory()) return current;
    current = dirname(current);
  }
  return realRoot;
}

async function allowed(path: string, how: number): Promise<boolean> {
  return access(path, how).then(
    () => true,
    () => false,
  );
}
