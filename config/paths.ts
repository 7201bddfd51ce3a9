import { join } from 'node:path';
import { clawcodeHome } from '../utils/home.js';

// The home folder is resolved on the ground floor (utils/home.ts) so the journal and memory can use it.
export { clawcodeHome };

/** Absolute path of the user config file, `<home>/config.json`. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(clawcodeHome(env), 'config.json');
}
