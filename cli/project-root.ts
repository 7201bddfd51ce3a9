import { realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { clawcodeHome } from '../config/paths.js';
import { UsageError } from '../utils/errors.js';
import { isInsideRoot } from '../utils/path-inside.js';
import { isControlPath } from '../utils/policy/paths.js';

/**
 * Resolve and check the project root: `--dir` or the current folder. Kept in its own small module so
 * light commands (`context`, `undo`, `history`) do not load the task flow.
 *
 * @param env  the environment naming the clawcode home (CLAWCODE_HOME)
 * @returns the absolute path
 * @throws UsageError when it does not exist or is not a folder, or when it and the clawcode home overlap (see
 *         refuseHomeOverlap)
 */
export async function resolveProjectRoot(
  dir: string | undefined,
  cwd = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const root = resolve(cwd, dir ?? '.');
  const info = await stat(root).catch(() => undefined);
  if (!info) throw new UsageError(`Project folder not found: ${root}`);
  if (!info.isDirectory())
    throw new UsageError(`Not a folder: ${root}`, { hint: 'Pass the project folder with --dir.' });
  await refuseHomeOverlap(root, env);
  return root;
}

/**
 * The clawcode home (config.json with its keys, the trust store, the run journal) must not be project files:
 * inside the root it would be scanned and sent as context, and a plan could rewrite the provider's URL, the trust
 * store or a journal. A home inside the root (or the root itself) is allowed only where the path policy already
 * keeps it out: a control folder, e.g. `~/.clawcode` when the root is the home folder. A root below the home
 * (CLAWCODE_HOME=/tmp, a project in /tmp/x) is fine.
 *
 * @param root  the project root, absolute
 * @throws UsageError (code `home_in_project`)
 */
export async function refuseHomeOverlap(root: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const home = clawcodeHome(env);
  const realRoot = await realpath(root).catch(() => root);
  const realHome = await realpathOfNearest(home);
  const hint = 'Set CLAWCODE_HOME to a folder outside the project.';
  if (isInsideRoot(realRoot, realHome) && !isControlPath(relative(realRoot, realHome).split(sep).join('/'))) {
    throw new UsageError(`The clawcode home folder ${home} is inside the project ${root}.`, {
      code: 'home_in_project',
      hint,
    });
  }
}

/** The real path of `path`, or of its nearest existing ancestor with the rest appended (a home not made yet). */
async function realpathOfNearest(path: string): Promise<string> {
  const real = await realpath(path).catch(() => undefined);
  if (real !== undefined) return real;
  const parent = dirname(path);
  return parent === path ? path : join(await realpathOfNearest(parent), basename(path));
}
