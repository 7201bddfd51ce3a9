import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { GIT_GUARD } from './run.js';
import { isInsideRoot } from '../path-inside.js';

/**
 * What a repository's configuration makes git run, and how clawcode's own git calls switch it off. Built
 * from what git itself lists (`git config -z --list --show-origin`), not from a list of known drivers:
 * every key whose last component names a program (`clean`, `smudge`, `textconv`, `command`, `helper`,
 * `program` …) is overridden on the command line for whatever section and subsection it was written
 * under, the empty subsection of `[filter ""]` included.
 */

/** One configuration entry: the file it came from (absolute; undefined for the command line) and the key. */
export interface ConfigEntry {
  file?: string;
  /** as git prints it: section and name in lower case, the subsection as written */
  key: string;
  value: string;
}

/**
 * Parse `git config -z --list --show-origin`: "origin\0key\nvalue\0" records.
 *
 * @param cwd  the folder relative origins are resolved from: where git read them (a discovered repository's
 *             work tree top folder, since git moves there first)
 */
export function parseConfigList(out: Buffer, cwd: string): ConfigEntry[] {
  const parts = out.toString('utf8').split('\0');
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const origin = parts[i]!;
    const record = parts[i + 1]!;
    const nl = record.indexOf('\n');
    const key = nl === -1 ? record : record.slice(0, nl);
    const value = nl === -1 ? '' : record.slice(nl + 1);
    const file = origin.startsWith('file:') ? resolve(cwd, origin.slice(5)) : undefined;
    entries.push({ file, key, value });
  }
  return entries;
}

/**
 * Last components of keys whose value git runs as a program (or hands to a shell), in any section:
 * drivers (`filter.*.clean`, `diff.*.textconv`, `merge.*.driver`), helpers (`credential.*.helper`),
 * signing (`gpg.*.program`, `gpg.ssh.defaultKeyCommand`), trailers (`trailer.*.command`/`cmd`), transports
 * and hooks of remote commands (`remote.*.uploadpack`, `uploadpack.packObjectsHook`), mail (`sendmailCmd`).
 */
const PROGRAM_NAMES = new Set([
  'clean',
  'smudge',
  'process',
  'textconv',
  'command',
  'cmd',
  'driver',
  'helper',
  'program',
  'fsmonitor',
  'sshcommand',
  'editor',
  'pager',
  'askpass',
  'gitproxy',
  'alternaterefscommand',
  'packobjectshook',
  'uploadpack',
  'receivepack',
  'external',
  'defaultkeycommand',
  'sendmailcmd',
  'smtpserver',
]);

/** Keys the fixed guard of utils/git/run.ts already sets (lower case): never overridden a second time. */
const FIXED = new Set(GIT_GUARD.filter((_, i) => i % 2 === 1).map((kv) => kv.slice(0, kv.indexOf('=')).toLowerCase()));

/** A configuration key split as git splits it: section, subsection (may be empty or absent), name. */
function splitKey(key: string): { section: string; sub: string | undefined; name: string } | null {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first === -1) return null;
  return {
    section: key.slice(0, first).toLowerCase(),
    sub: first === last ? undefined : key.slice(first + 1, last),
    name: key.slice(last + 1).toLowerCase(),
  };
}

/** The `-c` settings that switch off one program-naming key, and whether only commits need them. */
function neutralise(key: string): { settings: string[]; kind: 'always' | 'commit' } | null {
  const parts = splitKey(key);
  if (!parts || !PROGRAM_NAMES.has(parts.name)) {
    // `pager.<command>` names a pager by its last component: the command's name.
    if (parts?.section === 'pager' && parts.sub === undefined) return { settings: [`${key}=false`], kind: 'always' };
    // `protocol.<name>.allow` wins over the guard's `protocol.allow=never`: `ext::` runs any command line, and a
    // partial clone's missing object is fetched by whatever git reads (on a git that ignores GIT_NO_LAZY_FETCH).
    if (parts?.section === 'protocol' && parts.sub !== undefined && parts.name === 'allow')
      return { settings: [`protocol.${parts.sub}.allow=never`], kind: 'always' };
    return null;
  }
  const { section, sub, name } = parts;
  const head = sub === undefined ? section : `${section}.${sub}`;
  if (FIXED.has(`${section}.${name}`) && sub === undefined) return { settings: [], kind: 'always' };
  if (section === 'filter')
    return { settings: ['clean', 'smudge', 'process'].map((n) => `${head}.${n}=`), kind: 'always' };
  if (section === 'diff') return { settings: ['textconv', 'command'].map((n) => `${head}.${n}=`), kind: 'always' };
  // Configured hooks are disabled by name; they run only when the person asked for hooks.
  if (section === 'hook') return { settings: [`${head}.enabled=false`], kind: 'commit' };
  if (section === 'gpg' || name === 'defaultkeycommand') return { settings: [`${head}.${name}=`], kind: 'commit' };
  const value = name === 'editor' ? ':' : name === 'fsmonitor' ? 'false' : name === 'pager' ? 'cat' : '';
  return { settings: [`${head}.${name}=${value}`], kind: 'always' };
}

/**
 * `-c` settings that switch off every program the configuration names, whatever the section and
 * subsection it is written under (`[filter ""] clean = …` lists as `filter..clean` and gets
 * `filter..clean=`): an empty driver means none (a `required` filter then fails the call instead of
 * running), configured hooks and signing programs are kept apart, for commits the person asked hooks for.
 *
 * @param keys  configuration keys as `git config --list` prints them
 * @returns the settings, or null when a key cannot be written after `-c` (its subsection holds `=` or a
 *          newline), so the repository is not used at all
 */
export function driverGuard(keys: readonly string[]): { always: string[]; commit: string[] } | null {
  const always = new Set<string>();
  const commit = new Set<string>();
  for (const key of keys) {
    const off = neutralise(key);
    if (!off) continue;
    if (/[=\n]/.test(key)) return null;
    for (const s of off.settings) (off.kind === 'always' ? always : commit).add(s);
  }
  const args = (set: Set<string>): string[] => [...set].flatMap((kv) => ['-c', kv]);
  return { always: args(always), commit: args(commit) };
}

/**
 * Where a path really leads, also when its tail does not exist yet: the real location of its longest
 * existing ancestor with the rest appended (`.githooks -> scripts/hooks` makes `.githooks/pre-push`
 * `scripts/hooks/pre-push`).
 */
export function realTail(path: string): string {
  let head = path;
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(head), ...rest);
    } catch {
      const up = dirname(head);
      if (up === head) return path;
      rest.unshift(basename(head));
      head = up;
    }
  }
}

/** The words of a command line, quotes removed (enough to find the paths it names, not a shell parser). */
function words(value: string): string[] {
  const out: string[] = [];
  for (const m of value.replace(/^\s*!/, '').matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

/**
 * Paths inside the work tree (outside the git directory) that git reads as configuration or runs: every
 * configuration file listed as an origin, every include target (also one not written yet), the hooks
 * folder, and each word of a program-naming value that names a path in the tree (`filter.x.clean = sh
 * tools/strip.sh` protects `tools/strip.sh`, not only `sh`). Each is given as written and as where it
 * really leads (a symlinked hooks folder or include folder protects its target too).
 *
 * @returns absolute paths
 */
export function configControlPaths(
  entries: readonly ConfigEntry[],
  workTree: string,
  gitDir: string,
  commonDir: string,
): string[] {
  const out = new Set<string>();
  const inTree = (p: string): boolean =>
    isInsideRoot(workTree, p) && !isInsideRoot(gitDir, p) && !isInsideRoot(commonDir, p);
  const add = (p: string): void => {
    for (const q of [p, realTail(p)]) if (inTree(q)) out.add(q);
  };
  const home = (v: string): string => v.replace(/^~(?=\/)/, process.env.HOME ?? '~');
  for (const { file, key, value } of entries) {
    if (file) add(file);
    // An include that names a file not written yet: a file created there later would be read too.
    if ((key === 'include.path' || /^includeif\..*\.path$/.test(key)) && value && file)
      add(resolve(dirname(file), home(value)));
    if (key === 'core.hookspath' && value) add(resolve(workTree, home(value)));
    const name = splitKey(key)?.name;
    if (!name || !PROGRAM_NAMES.has(name)) continue;
    for (const word of words(value)) {
      if (word.startsWith('-')) continue;
      const abs = resolve(workTree, home(word));
      if (abs !== workTree && (word.includes('/') || existsSync(abs))) add(abs);
    }
  }
  return [...out];
}
