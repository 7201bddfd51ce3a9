/**
 * The one path policy: which project paths clawcode may send to a provider and which it may write.
 * Every stage asks here — the scanner and context selection, instruction files, plan checks, the journal
 * and undo — so a file is never withheld but patchable, or sent but refused.
 *
 * Four kinds of refusal, decided by name first (pure, no disk) and then by where the path really leads
 * (symlinks resolved, so `notes.txt -> .env` is judged as `.env`):
 * - outside: absolute, `~`, a `..` that climbs out, or a symlink whose real location is outside the root;
 * - control: version-control and clawcode control data (`.git`, `.hg`, `.svn`, `.bzr`, `.jj`, `.clawcode`
 *   at any depth, compared the way case-insensitive file systems do), a `HEAD` file anywhere, git hooks and
 *   what they run (`.husky/`, `.pre-commit-config.yaml`, `.lintstagedrc*`, `lint-staged.config.*`,
 *   `lefthook.yml`), installed packages and the executables of tools (all of `node_modules/`, a whole virtualenv: `.venv/`,
 *   `venv/`, or any folder holding `pyvenv.cfg`), and on disk any folder shaped as a git directory and the
 *   paths the repository's configuration reads or runs (utils/policy/git-control.ts); writing any of these
 *   runs code the next time git, a shell or a tool starts;
 * - secret: dotenv files (not their `.example`/`.sample`/`.template` twins), `.envrc`, private keys and
 *   certificates, credential stores, `*.tfstate`, anything under `.ssh/`, `.aws/`, `.gnupg/`;
 * - binary: file types that are never text.
 */
import type { Stats } from 'node:fs';
import { lstat, stat } from 'node:fs/promises';
import path from 'node:path';
import { gitControlReason } from './git-control.js';
import { hasNulByte, insideVirtualenv, kindOf, realLocation } from './real-path.js';
import { isInsideRoot } from '../path-inside.js';

/** Most bytes in a project-relative path (Linux PATH_MAX is 4096 including the root and the NUL). */
const MAX_PATH_BYTES = 4000;
/** Most bytes in one path segment (NAME_MAX on Linux, macOS and Windows). */
const MAX_SEGMENT_BYTES = 255;

/**
 * Why a path is refused. `path_not_file` covers folders, FIFOs, sockets and devices; `path_missing` is
 * only given when the caller asked for an existing file.
 */
export type PathRefusalCode =
  | 'path_invalid'
  | 'path_too_long'
  | 'path_absolute'
  | 'path_escape'
  | 'path_symlink_escape'
  | 'path_control'
  | 'path_secret'
  | 'path_binary'
  | 'path_not_file'
  | 'path_missing';

/** A refused path: a stable code and one short line for a person (long paths are shortened in it). */
export interface PathRefusal {
  code: PathRefusalCode;
  message: string;
}

/** Result of {@link normalizeRelPath}: a clean project-relative path, or why there is none. */
export type NormalizedPath =
  | { ok: true; path: string }
  | { ok: false; code: 'path_invalid' | 'path_too_long' | 'path_absolute' | 'path_escape'; message: string };

/** A path as shown in a message: at most 80 characters, JSON-quoted when it holds control characters. */
export function shownPath(p: string): string {
  const short = p.length > 80 ? `${p.slice(0, 40)}…${p.slice(-30)} (${p.length} chars)` : p;

  return /[\u0000-\u001f\u007f-\u009f]/.test(short) ? JSON.stringify(short) : short;
}

/**
 * Turn a path from untrusted input into a project-relative path with `/` separators, without touching
 * the disk. Backslashes count as separators; `.` segments and inner `..` that stay inside are resolved.
 *
 * @returns refused: empty or NUL-containing paths, a folder (trailing `/`) or the root itself
 *          (`path_invalid`); over {@link MAX_PATH_BYTES} bytes or a segment over {@link MAX_SEGMENT_BYTES}
 *          (`path_too_long`); `/x`, `C:\x`, `\\server\x`, `~/x` (`path_absolute`); a `..` above the root
 *          (`path_escape`)
 */
export function normalizeRelPath(p: string): NormalizedPath {
  const shown = shownPath(p);
  if (p.trim() === '' || p.includes('\0'))
    return { ok: false, code: 'path_invalid', message: `invalid path ${JSON.stringify(shown)}` };
  if (Buffer.byteLength(p) > MAX_PATH_BYTES) {
    return { ok: false, code: 'path_too_long', message: `${shown} is too long (over ${MAX_PATH_BYTES} bytes)` };
  }
  const slashed = p.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed) || slashed.startsWith('~')) {
    return {
      ok: false,
      code: 'path_absolute',
      message: `${shown} is an absolute path; plan paths are relative to the project root`,
    };
  }
  if (slashed.endsWith('/')) return { ok: false, code: 'path_invalid', message: `${shown} names a folder, not a file` };
  const out: string[] = [];
  for (const segment of slashed.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) {
      return {
        ok: false,
        code: 'path_too_long',
        message: `${shown} has a name longer than ${MAX_SEGMENT_BYTES} bytes`,
      };
    }
    if (segment === '..') {
      if (out.length === 0)
        return { ok: false, code: 'path_escape', message: `${shown} leads outside the project root` };
      out.pop();
    } else {
      out.push(segment);
    }
  }
  if (out.length === 0)
    return { ok: false, code: 'path_invalid', message: `${shown} names the project root, not a file` };
  return { ok: true, path: out.join('/') };
}

// ---------------------------------------------------------------------------------------------------
// By name (pure)

/** Control folders, at any depth: version-control data and clawcode's own settings. */
const CONTROL_DIRS = new Set(['.git', '.hg', '.svn', '.bzr', '.jj', '.clawcode']);
/** Folders whose whole content belongs to an installed virtualenv (interpreter, scripts, site-packages). */
const VENV_DIRS = new Set(['.venv', 'venv']);

/**
 * A path segment as a case-insensitive file system would compare it: lower case, without the trailing
 * dots and spaces Windows drops, without the zero-width characters HFS+ ignores (the same folding git
 * applies to `.git` in `verify_path`), and the NTFS short name `git~1` read as `.git`.
 */
export function foldSegment(segment: string): string {
  const folded = segment
    .replace(/[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g, '')
    .toLowerCase()
    .replace(/[. ]+$/, '');
  return folded === 'git~1' ? '.git' : folded;
}

/**
 * A necessary condition for a control path, one test instead of folding every segment (10k paths are
 * judged on every scan): an ASCII path folds to lower case without trailing dots and spaces, so one
 * of these names must occur in it; a non-ASCII path may fold to one (zero-width characters are
 * dropped, `K` U+212A lowers to `k`), so it always gets the full check.
 */
const MAYBE_CONTROL =
  /[^\x00-\x7f]|git|hg|svn|bzr|jj|clawcode|venv|node_modules|pyvenv|head|husky|pre-commit|lint-?staged|lefthook/i;
/** Configuration of the tools git hooks run: pre-commit, lint-staged, lefthook (`.husky/` is a folder rule). */
const HOOK_TOOL_FILE =
  /^(\.pre-commit-config\.ya?ml|\.lintstagedrc.*|lint-staged\.config\..*|\.?lefthook(-local)?\.ya?ml)$/;

/**
 * Why a project-relative path is a control path, or undefined when it is not one.
 *
 * @param relPath  project-relative, `/` separators
 * @returns a short reason such as "it is inside .git/" (for messages)
 */
export function controlReason(relPath: string): string | undefined {
  if (!MAYBE_CONTROL.test(relPath)) return undefined;
  const segments = relPath.split('/').map(foldSegment);
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    if (CONTROL_DIRS.has(s)) return `it is inside ${s}/, which clawcode never writes`;
    if (i < segments.length - 1 && VENV_DIRS.has(s))
      return `it is inside the virtualenv ${s}/ (installed tools, not source)`;
    if (s === 'node_modules' && segments[i + 1] === '.bin') return 'it is an installed tool in node_modules/.bin/';
    // Installed packages are code the next `npm test` or linter runs (`.bin/eslint` leads into them).
    if (s === 'node_modules' && i < segments.length - 1)
      return 'it is inside node_modules/, installed packages that tools run';
    if (s === '.husky') return 'it is inside .husky/, the git hooks husky installs';
  }
  const last = segments[segments.length - 1]!;
  if (last === 'pyvenv.cfg') return 'it is the configuration of a virtualenv';
  if (last === 'head') return 'a HEAD file is what makes git take its folder for a git directory';
  if (HOOK_TOOL_FILE.test(last)) return 'it configures what a git hook runs';
  return undefined;
}

/** Whether a project-relative path is version-control, clawcode or installed-tool control data. */
export function isControlPath(relPath: string): boolean {
  return controlReason(relPath) !== undefined;
}

const SECRET_BASENAME = [
  /^\.env(\..*)?$/, // .env, .env.local, .env.production
  /^\.envrc$/, // direnv runs it as shell code, and it usually exports secrets
  /.\.env$/, // production.env, app.prod.env: the env files Docker Compose's env_file and --env-file read
  /\.(pem|key|p12|pfx|jks|keystore|asc|gpg|ppk)$/,
  /^id_(rsa|dsa|ecdsa|ed25519)([._-].*)?$/,
  /^[._]?(netrc|pgpass|npmrc|pypirc|git-credentials|htpasswd)$/,
  /^credentials(\.(json|ya?ml|xml|ini|toml|csv))?$/,
  /accesskeys\.csv$/, // the AWS console's key export, <user>_accessKeys.csv
  /^(secrets?|service[-_]?account)(\.[\w.-]+)?\.(json|ya?ml|toml|ini|txt|conf|cfg|properties)$/,
  /^(passwords?|api[-_]?keys?|token)\.(txt|json|ya?ml|toml|ini|csv|conf|cfg|properties|pickle)$/, // what the name says
  /^\.[\w-]*history$/, // .bash_history, .psql_history: commands as typed, passwords given on them included
  /^client_secret.*\.json$/,
  /\.tfstate(\.backup)?$/,
];
/** One alternation instead of nine tests per path: scanning 10k paths is on the warm path. */
const SECRET_BASENAME_ANY = new RegExp(SECRET_BASENAME.map((re) => `(?:${re.source})`).join('|'), 'i');
/** Credential folders (everything in them) and the credential files of tools that keep other files beside them. */
const SECRET_DIR = /(^|\/)\.(ssh|aws|gnupg)\/|(^|\/)\.docker\/config\.json$|(^|\/)\.kube\/config$/i;
/** Env templates document variable names and carry no values: sent as context and patchable like source. */
const ENV_TEMPLATE =
  /^\.env(\.[\w-]+)*\.(example|sample|template|dist|defaults)$|^([\w.-]*[._-])?(example|sample|template|defaults)\.env$/i;

/**
 * Whether a project file is a secret: never sent to a provider, never patched.
 *
 * @param relPath  project-relative path with `/` separators
 * @returns true for `.env*` (not `.env.example`, `.env.sample`, `.env.template`, `.env.dist`,
 *          `.env.defaults`), `.envrc`, private keys and certificates, `id_rsa*`, credential and secret config
 *          files, `*.tfstate`, shell and client histories (`.bash_history`), files named for what they hold
 *          (`passwords.txt`, `api_keys.json`, `token.json`), backup and editor copies of any of them (`.env~`,
 *          `server.key.orig`), anything under `.ssh/`, `.aws/`, `.gnupg/`, `.docker/config.json`, `.kube/config`
 */
export function isSecretPath(relPath: string): boolean {
  // A backup or editor copy of a secret is the secret (`.env~`, `server.key.orig`, `.env.swp`).
  const base = relPath
    .slice(relPath.lastIndexOf('/') + 1)
    .replace(/(?:~|\.(?:bak|orig|old|backup|save|swp|swo|tmp))+$/i, '');
  if (ENV_TEMPLATE.test(base)) return false;
  if (SECRET_DIR.test(relPath)) return true;
  return SECRET_BASENAME_ANY.test(base);
}

const BINARY_EXT = new Set(
  (
    'png jpg jpeg gif bmp ico icns webp avif tif tiff psd svgz pdf zip gz tgz bz2 xz 7z rar zst jar war ear ' +
    'class dll exe so dylib o a lib obj wasm node woff woff2 ttf otf eot mp3 mp4 m4a wav ogg flac mov avi mkv ' +
    'webm db sqlite sqlite3 bin dat pyc pyo whl egg deb rpm dmg iso parquet pickle pkl npy npz onnx pt'
  ).split(' '),
);

/** Whether a path's extension names a format that is never text (images, archives, objects, media, fonts). */
export function isBinaryName(relPath: string): boolean {
  const dot = relPath.lastIndexOf('.');
  return dot > relPath.lastIndexOf('/') && BINARY_EXT.has(relPath.slice(dot + 1).toLowerCase());
}

/**
 * Judge a normalized project-relative path by its name alone.
 *
 * @param shown         the path as written, for the message
 * @param allowControl  control paths to let through (e.g. `.clawcode/instructions.md` when reading instructions)
 * @returns the refusal (control, then secret, then binary), or undefined when the name is fine
 */
export function refuseByName(
  relPath: string,
  shown: string = relPath,
  allowControl?: (relPath: string) => boolean,
): PathRefusal | undefined {
  const control = controlReason(relPath);
  if (control && !allowControl?.(relPath))
    return { code: 'path_control', message: `${shownPath(shown)} is refused: ${control}` };
  if (isSecretPath(relPath)) {
    return {
      code: 'path_secret',
      message: `${shownPath(shown)} is a secret file (keys, .env, credentials); clawcode never edits or sends it`,
    };
  }
  if (isBinaryName(relPath))
    return { code: 'path_binary', message: `${shownPath(shown)} is a binary file type; clawcode only patches text` };
  return undefined;
}

/**
 * Folders of a file listing that hold a `pyvenv.cfg` (virtualenvs under any name), each with a trailing `/`.
 * A `pyvenv.cfg` at the root itself is ignored: the project is not refused as a whole.
 */
export function virtualenvPrefixes(paths: readonly string[]): string[] {
  return paths.filter((p) => p.endsWith('/pyvenv.cfg')).map((p) => p.slice(0, -'pyvenv.cfg'.length));
}

// ---------------------------------------------------------------------------------------------------
// On disk

/** A project path that passed the policy. */
export interface ResolvedProjectPath {
  ok: true;
  /** normalized project-relative path as asked */
  rel: string;
  /** absolute path under the real root, as asked (symlinks not followed) */
  abs: string;
  /** where the path really leads, relative to the real root (differs from `rel` through symlinks) */
  realRel: string;
  /** the real location, absolute */
  realAbs: string;
  /** stat of the real location (symlinks followed), undefined when nothing exists there yet */
  stat: Stats | undefined;
}

/** Options of {@link resolveProjectPath}. */
export interface ResolveOptions {
  /** also read the first 8,000 bytes of an existing file and refuse it when they hold a NUL (default false) */
  sniffBinary?: boolean;
  /** the path must exist (default false: a write may create it) */
  mustExist?: boolean;
  /**
   * control paths let through, asked for the path and for its real location
   * (`.clawcode/instructions.md` read as instructions)
   */
  allowControl?: (realRel: string) => boolean;
}

const LOOP_MESSAGE = (p: string): string => `${shownPath(p)} leads through a symlink loop or too many symlinks`;

/** The first symlink on the way from root to `rel` whose real location is outside root (project-relative). */
async function firstEscapingLink(root: string, rel: string): Promise<string | undefined> {
  let current = root;
  const segments = rel.split('/');
  for (let i = 0; i < segments.length; i++) {
    current = path.join(current, segments[i]!);
    const info = await lstat(current).catch(() => undefined);
    if (!info) return undefined;
    if (info.isSymbolicLink() && !isInsideRoot(root, await realLocation(current)))
      return segments.slice(0, i + 1).join('/');
  }
  return undefined;
}

/**
 * Judge one project path against the real file system: the name, then where it really leads (every
 * symlink on the way resolved), then what is there. The same answer for plan checks, the journal,
 * undo and instruction files.
 *
 * @param realRoot  the project root as a real path (`fs.realpath` of it)
 * @param p         the path as written (project-relative; untrusted)
 * @returns the resolved path, or the refusal: name refusals first, then `path_symlink_escape`, then
 *          control/secret/binary by the real location, then `path_not_file` for folders, FIFOs, sockets
 *          and devices (never opened), a path through a file (`README.md/x`) or through a symlink loop (or
 *          more symlinks than the kernel follows), `path_too_long` when
 *          the file system finds the whole path too long, `path_binary` for NUL bytes when `sniffBinary`
 * @throws never: an unreadable entry counts as missing
 */
export async function resolveProjectPath(
  realRoot: string,
  p: string,
  options: ResolveOptions = {},
): Promise<ResolvedProjectPath | ({ ok: false } & PathRefusal)> {
  const norm = normalizeRelPath(p);
  if (!norm.ok) return { ok: false, code: norm.code, message: norm.message };
  const rel = norm.path;
  const byName = refuseByName(rel, p, options.allowControl);
  if (byName) return { ok: false, ...byName };
  const abs = path.join(realRoot, ...rel.split('/'));
  const realAbs = await realLocation(abs);
  // A real location never is a symlink unless the resolution gave up (a loop, or more hops than the kernel
  // follows): where the path leads is unknown, so it is refused, never judged by the link where it stopped.
  if ((await lstat(realAbs).catch(() => undefined))?.isSymbolicLink())
    return { ok: false, code: 'path_not_file', message: LOOP_MESSAGE(p) };
  if (!isInsideRoot(realRoot, realAbs)) {
    const link = await firstEscapingLink(realRoot, rel);
    const through = link ? ` through the symlink ${shownPath(link)}` : ' through a symlink';
    return {
      ok: false,
      code: 'path_symlink_escape',
      message: `${shownPath(p)} leads outside the project root${through}`,
    };
  }
  const realRel = path.relative(realRoot, realAbs).split(path.sep).join('/');
  if (realRel !== rel) {
    const target = refuseByName(realRel, realRel, options.allowControl);
    if (target) {
      return {
        ok: false,
        code: target.code,
        message: `${shownPath(p)} is a symlink to ${shownPath(realRel)}: ${target.message}`,
      };
    }
  }
  const venv = await insideVirtualenv(realRoot, realRel);
  if (venv)
    return {
      ok: false,
      code: 'path_control',
      message: `${shownPath(p)} is refused: it is inside the virtualenv ${shownPath(venv)}/`,
    };
  const git = options.allowControl?.(realRel) ? undefined : await gitControlReason(realRoot, realRel, rel);
  if (git) return { ok: false, code: 'path_control', message: `${shownPath(p)} is refused: ${git}` };
  let missing: string | undefined;
  const info = await stat(realAbs).catch((error: NodeJS.ErrnoException) => void (missing = error.code));
  // A file where a folder of the path should be: nothing can ever be created or read there.
  if (missing === 'ENOTDIR')
    return { ok: false, code: 'path_not_file', message: `${shownPath(p)} runs through a file, not a folder` };
  if (missing === 'ELOOP') return { ok: false, code: 'path_not_file', message: LOOP_MESSAGE(p) };
  // Short enough as a project path, too long once joined to a deep project folder: refused before any write.
  if (missing === 'ENAMETOOLONG')
    return { ok: false, code: 'path_too_long', message: `${shownPath(p)} is too long for the file system here` };
  if (!info) {
    if (options.mustExist) return { ok: false, code: 'path_missing', message: `${shownPath(p)} does not exist` };
    return { ok: true, rel, abs, realRel, realAbs, stat: undefined };
  }
  if (!info.isFile())
    return { ok: false, code: 'path_not_file', message: `${shownPath(p)} is ${kindOf(info)}, not a regular file` };
  if (options.sniffBinary && (await hasNulByte(realAbs))) {
    return {
      ok: false,
      code: 'path_binary',
      message: `${shownPath(p)} holds binary data (NUL bytes); clawcode only patches text`,
    };
  }
  return { ok: true, rel, abs, realRel, realAbs, stat: info };
}
