import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The clawcode home folder: `$CLAWCODE_HOME` when set and non-empty, else `~/.clawcode`.
 * Holds config.json, memory/, runs/ (journal), index/, plans/ (each project's last plan), replies/ (model
 * replies that gave no plan) and recent-projects.json.
 *
 * @param env  environment to read (defaults to process.env); passed in so tests need no globals
 * @returns an absolute path (not created here)
 */
export function clawcodeHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.CLAWCODE_HOME?.trim();
  return fromEnv ? resolve(fromEnv) : join(homedir(), '.clawcode');
}
