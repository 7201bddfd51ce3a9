import { realpath } from 'node:fs/promises';
import { ConfigError } from '../utils/errors.js';
import { resolveProjectPath } from '../utils/policy/paths.js';
import { readRegularFile } from '../utils/regular-file.js';

/** Project settings file, relative to the project root; meant to be committed. */
export const PROJECT_SETTINGS_FILE = '.clawcode/settings.json';

/** Personal project settings file, relative to the project root (the 'local' layer; the person keeps it out of git). */
export const LOCAL_SETTINGS_FILE = '.clawcode/settings.local.json';

/** Most bytes of a project settings file: a few keys; a bigger one is refused, never read whole. */
const MAX_PROJECT_SETTINGS_BYTES = 1 << 20;

/** The two project settings files, the control paths they may be read as. */
const isSettingsFile = (rel: string): boolean => rel === PROJECT_SETTINGS_FILE || rel === LOCAL_SETTINGS_FILE;

/**
 * The text of a project settings file, read through the one path policy as instruction files are: the file
 * comes with the project, so a symlink out of the root (or into a control folder), a FIFO or a device is
 * refused and never opened (a FIFO or `/dev/tty` would block the run for good), and at most
 * MAX_PROJECT_SETTINGS_BYTES are read.
 *
 * @param root  the project root (absolute)
 * @param rel   PROJECT_SETTINGS_FILE or LOCAL_SETTINGS_FILE
 * @returns the text, or undefined when nothing is there
 * @throws ConfigError (`settings_refused`) when the policy refuses the path, the entry is not a regular
 *         file or it is too large
 */
export async function readProjectSettingsText(root: string, rel: string): Promise<string | undefined> {
  const realRoot = await realpath(root).catch(() => root);
  const resolved = await resolveProjectPath(realRoot, rel, { mustExist: true, allowControl: isSettingsFile });
  const hint = 'Project settings must be a regular file inside the project (a few keys of JSON).';
  if (!resolved.ok) {
    if (resolved.code === 'path_missing') return undefined;
    throw new ConfigError(`Project settings refused: ${resolved.message}`, { code: 'settings_refused', hint });
  }
  const read = await readRegularFile(resolved.realAbs, MAX_PROJECT_SETTINGS_BYTES);
  if (!read)
    throw new ConfigError(`Cannot read ${rel}: not a readable regular file`, { code: 'settings_refused', hint });
  if (read.truncated) {
    throw new ConfigError(`Project settings refused: ${rel} is over ${MAX_PROJECT_SETTINGS_BYTES} bytes`, {
      code: 'settings_refused',
      hint,
    });
  }
  return read.bytes.toString('utf8');
}
