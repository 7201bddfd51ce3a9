import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { realOrSelf } from '../executable.js';
import { clawcodeHome } from '../home.js';
import { SECRET_NAME } from './command-env.js';
import { isInsideRoot } from '../path-inside.js';

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

/** The folders to hide and the ones to bind back read-only, and the files to hide, as absolute paths. */
export interface HomeView {
  hidden: string[];
  readOnly: string[];
  /**
   * folders and files a credential variable (`GOOGLE_APPLICATION_CREDENTIALS=/secrets/sa.json`) or an XDG base
   * variable names outside the home folders: shown empty, unless they are or hold the project root
   */
  hiddenNamed: string[];
  hiddenFiles: string[];
}

/** System folders and what lies in them (a variable naming a program, `GIT_ASKPASS=/usr/bin/…`): never hidden. */
const SYSTEM = /^\/(usr|bin|sbin|lib\w*|etc|opt|proc|sys|dev|boot|snap|nix)(\/|$)/;

/** The person's own folders by the XDG base-directory rules, wherever they are set to be. */
const XDG_HOMES = ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME'];

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
  // A variable named as a credential never reaches the command (command-env.ts); nor does the file or folder it
  // names (GOOGLE_APPLICATION_CREDENTIALS, AWS_SHARED_CREDENTIALS_FILE, SSH_AUTH_SOCK), nor the XDG folders.
  const named = Object.entries(env)
    .filter(([name, value]) => (SECRET_NAME.test(name) || XDG_HOMES.includes(name)) && value && isAbsolute(value))
    .map(([, value]) => value!);
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
  for (const written of (env.PATH ?? '').split(delimiter)) {
    if (!written || !isAbsolute(written)) continue;
    const entry = realOrSelf(written);
    if (!hidden.some((h) => isInsideRoot(h, entry)) || hidden.includes(entry)) continue;
    if (isDir(entry)) readOnly.add(entry);
    const lib = join(dirname(entry), 'lib');
    if (basename(entry) === 'bin' && isDir(lib)) readOnly.add(lib);
  }
  const elsewhere = [...new Set(named.map((p) => realOrSelf(resolve(p))))].filter(
    (p) => p !== '/' && existsSync(p) && !SYSTEM.test(p) && !hidden.some((h) => isInsideRoot(h, p)),
  );
  return {
    hidden,
    readOnly: [...readOnly].sort(),
    hiddenNamed: elsewhere.filter(isDir),
    hiddenFiles: elsewhere.filter((p) => !isDir(p)),
  };
}
