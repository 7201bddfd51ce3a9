import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { realOrSelf } from '../executable.js';
import { clawcodeHome } from '../home.js';

/**
 * What a sandboxed command sees of the home folders: nothing, except read-only tool installations and
 * package caches a build needs. The person's home (`$HOME`, the account's home, `/root` for root) and
 * clawcode's home (`$CLAWCODE_HOME`) are each covered by an empty private folder; the folders below are
 * then bound back read-only where they exist, and so is every PATH folder inside a hidden home (with the
 * `lib` beside a `bin`, where node keeps npm). Credentials kept beside a tool (`~/.cargo/credentials.toml`,
 * `~/.m2/settings.xml`, `~/.npmrc`) stay hidden because only the cache or install folder is bound.
 */
const TOOL_DIRS = [
  '.nvm',
  '.volta',
  '.fnm',
  '.local/share/fnm',
  '.local/share/pnpm',
  '.local/share/mise',
  '.asdf',
  '.bun',
  '.deno',
  '.rustup',
  '.cargo/bin',
  '.cargo/registry',
  '.cargo/git',
  'go/pkg/mod',
  'go/bin',
  '.pyenv',
  '.local/bin',
  '.local/lib',
  '.m2/repository',
  '.gradle/caches',
  '.gradle/wrapper',
  '.yarn/berry/cache',
  '.cache/ms-playwright',
  '.cache/Cypress',
  '.cache/puppeteer',
  '.rbenv',
  '.gem',
  '.sdkman/candidates',
  '.dotnet',
  '.nuget/packages',
  '.elan',
  '.ghcup',
];

/** The folders to hide and the ones to bind back read-only, as absolute paths. */
export interface HomeView {
  hidden: string[];
  readOnly: string[];
}

function within(dir: string, target: string): boolean {
  const rel = relative(dir, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The home folders a command must not see and the tool folders inside them it may read.
 *
 * @param env  the person's environment (HOME, CLAWCODE_HOME, PATH)
 * @returns existing folders only, never `/`; tool folders inside a hidden one
 */
export function homeView(env: NodeJS.ProcessEnv): HomeView {
  const candidates = [env.HOME, homedir(), clawcodeHome(env), process.getuid?.() === 0 ? '/root' : undefined];
  // Each by its real path: a home behind a symlink (/home/u -> /data/u, CLAWCODE_HOME -> elsewhere) was left
  // visible, since a symlink is no folder to cover; the folder it leads to is what must be covered.
  const hidden = [
    ...new Set(
      candidates
        .filter((p): p is string => typeof p === 'string' && p.trim() !== '')
        .map((p) => realOrSelf(resolve(p)))
        .filter((p) => p !== '/' && isDir(p)),
    ),
  ];
  const readOnly = new Set<string>();
  for (const home of hidden)
    for (const tool of TOOL_DIRS) if (existsSync(join(home, tool))) readOnly.add(join(home, tool));
  for (const named of (env.PATH ?? '').split(delimiter)) {
    if (!named || !isAbsolute(named)) continue;
    const entry = realOrSelf(named);
    if (!hidden.some((h) => within(h, entry)) || hidden.includes(entry)) continue;
    if (isDir(entry)) readOnly.add(entry);
    const lib = join(dirname(entry), 'lib');
    if (basename(entry) === 'bin' && isDir(lib)) readOnly.add(lib);
  }
  return { hidden, readOnly: [...readOnly].sort() };
}
