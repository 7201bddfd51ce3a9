import { createHash } from 'node:crypto';
import { resolve } from 'node:path';

/**
 * Stable id of a project folder: the first 16 hex characters of SHA-256 over the resolved absolute
 * path. Used to name per-project files under CLAWCODE_HOME (memory/sessions/<hash>.json, runs/<hash>/,
 * index/<hash>...), so it must never change for an existing folder.
 *
 * @param projectRoot  any path to the project root; it is resolved first
 * @returns 16 lowercase hex characters
 */
export function getProjectHash(projectRoot: string): string {
  return createHash('sha256').update(resolve(projectRoot)).digest('hex').slice(0, 16);
}
