import { execFile } from 'node:child_process';
import { isUtf8 } from 'node:buffer';
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import {
  isBinaryName,
  isControlPath,
  isInsideRoot,
  isSecretPath,
  refuseByName,
  virtualenvPrefixes,
} from '../../utils/path-policy.js';

/**
 * Project scanning, with no cap on the number of files: list every file that could be
 * context. Inside a git work tree `git ls-files -co --exclude-standard` decides (git's own ignore
 * semantics); elsewhere the `ignore` package applies `.gitignore` files per directory. In both cases
 * `.clawcodeignore` (any directory), DEFAULT_IGNORE_DIRS and the caller's extra patterns also apply.
 */

/** Folders that are never context, at any depth: dependencies, VCS data, build output, caches. */
export const DEFAULT_IGNORE_DIRS: readonly string[] = [
  'node_modules',
  '.git',
  '.hg',
  '.svn',
  'dist',
  'coverage',
  '.nyc_output',
  '.next',
  '.nuxt',
  '.turbo',
  '.cache',
  '.parcel-cache',
  '__pycache__',
  '.venv',
  'venv',
  '.tox',
  '.mypy_cache',
  '.pytest_cache',
  '.ruff_cache',
  '.gradle',
  '.idea',
  'bower_components',
  'jspm_packages',
  '.yarn',
  '.pnpm-store',
];
/** Folders ignored only at the project root (`build/` is output there, but `scripts/build/` is source). */
const ROOT_ONLY_DIRS = ['build'];
const IGNORED_FILE = /(^|\/)\.DS_Store$|\.py[co]$/;
const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A folder segment (never the file name: it must be followed by '/') that DEFAULT_IGNORE_DIRS names. */
const IGNORED_DIR = new RegExp(
  `(?:^|/)(?:${[...DEFAULT_IGNORE_DIRS.map(escapeRe), '[^/]*\\.egg-info'].join('|')})/|^(?:${ROOT_ONLY_DIRS.map(escapeRe).join('|')})/`,
);

/** Whether DEFAULT_IGNORE_DIRS (or a root `build/`, `*.egg-info/`, `.DS_Store`, `*.pyc`) excludes a path. */
export function isDefaultIgnored(relPath: string): boolean {
  return IGNORED_FILE.test(relPath) || IGNORED_DIR.test(relPath);
}

/** Default per-file size cap in bytes; larger files are skipped as `too_large`. */
export const DEFAULT_MAX_FILE_BYTES = 1_000_000;

const GENERATED = [
  /(^|\/)(package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb?|deno\.lock|Cargo\.lock|poetry\.lock|Pipfile\.lock|uv\.lock|pdm\.lock|Gemfile\.lock|composer\.lock|go\.sum|mix\.lock|flake\.lock|packages\.lock\.json)$/,
  /\.(min|bundle|chunk)\.(js|mjs|cjs|css)$/,
  /\.(map|lock)$/,
  /(^|\/)[^/]*[._-](generated|gen)\.[a-z]+$/i,
  /\.pb\.go$|_pb2(_grpc)?\.py$/,
  // Test-runner snapshots are written by tools, never by hand; prettier's are half its bytes.
  /\.snap$|(^|\/)__snapshots__\//,
];

const GENERATED_ANY = new RegExp(GENERATED.map((re) => `(?:${re.source})`).join('|'), 'i');

/** Why a listed file is not a context candidate. */
export type SkipReason =
  | 'secret'
  | 'control'
  | 'binary'
  | 'too_large'
  | 'generated'
  | 'non_utf8'
  | 'symlink_outside'
  | 'unreadable'
  | 'not_file';

/** One candidate file. `content` is present only when the scan was asked to read files. */
export interface ScannedFile {
  /** project-relative path with `/` separators */
  path: string;
  absPath: string;
  sizeBytes: number;
  mtimeMs: number;
  /**
   * Git blob id of the file when git reports it tracked and unmodified (stage 0, a regular file, not
   * assume-unchanged or skip-worktree): its content is that blob's, a cache key that needs no stat.
   */
  oid?: string;
  /** UTF-8 text of the file (only with `readContent: true`) */
  content?: string;
}

/** Result of `scanProject`. `fileList` is the sorted list of candidate paths (same order as `files`). */
export interface ScanResult {
  files: ScannedFile[];
  fileList: string[];
  skipped: { path: string; reason: SkipReason }[];
  /** true when `git ls-files` listed the files */
  git: boolean;
  ms: number;
}

/** Options of `scanProject`. */
export interface ScanOptions {
  /** more gitignore-style patterns, relative to the root */
  extraIgnore?: readonly string[];
  /** per-file cap in bytes (default DEFAULT_MAX_FILE_BYTES) */
  maxFileBytes?: number;
  /** read and classify every file (binary, non-UTF-8, minified); default false: paths and stats only */
  readContent?: boolean;
  /** Work to overlap with the listing (git runs in child processes meanwhile), e.g. loading a cache. */
  whileListing?: () => void;
  /**
   * Size and mtime the caller already knows for an unmodified tracked file with blob id `oid` (from
   * a cache keyed by blob id). When it answers, that file is not stat'ed: unless `git ls-files -m`
   * then reports it modified (in which case it is stat'ed after all, and gets no `oid`), its bytes
   * are the blob's. Called after `whileListing`.
   */
  knownBlob?: (relPath: string, oid: string) => { sizeBytes: number; mtimeMs: number } | undefined;
}

/** Content class of a file's bytes. */
export type ContentClass = { kind: 'text'; text: string } | { kind: 'binary' | 'non_utf8' | 'generated' };

/**
 * Classify file bytes: NUL in the first 8,000 bytes = binary (git's own heuristic), invalid UTF-8 =
 * non_utf8, a minified look (mean line over 300 characters in a file over 5,000) = generated.
 */
export function classifyContent(buf: Buffer): ContentClass {
  const head = buf.subarray(0, 8000);
  if (head.includes(0)) return { kind: 'binary' };
  if (!isUtf8(buf)) return { kind: 'non_utf8' };
  let text = buf.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length > 5000) {
    let lines = 1;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
    if (text.length / lines > 300) return { kind: 'generated' };
  }
  return { kind: 'text', text };
}

/** Whether a path names a lockfile, minified bundle, source map or generated source. */
export function isGeneratedPath(relPath: string): boolean {
  return GENERATED_ANY.test(relPath);
}

function runGit(rootDir: string, args: string[]): Promise<string[] | null> {
  return new Promise((resolvePaths) => {
    execFile(
      'git',
      args,
      {
        cwd: rootDir,
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
        maxBuffer: 256 * 1024 * 1024,
        encoding: 'utf8',
      },
      (err, stdout) => resolvePaths(err ? null : stdout.split('\0').filter((p) => p !== '')),
    );
  });
}

/** A tracked listing: each path once, and the blob id of each regular file at stage 0 tagged `H`. */
interface TrackedListing {
  paths: string[];
  blobs: Map<string, string>;
}

/**
 * Parse `git ls-files -c -v -s -z`: one record "<tag> <mode> <oid> <stage>\t<path>" per index
 * entry. A blob id is kept only with tag `H` (not assume-unchanged, not skip-worktree), stage 0 (no
 * conflict) and a regular file mode; whether the work tree still holds that blob is for
 * `git ls-files -m` to say.
 */
function parseTracked(records: readonly string[]): TrackedListing {
  const paths: string[] = [];
  const seen = new Set<string>();
  const blobs = new Map<string, string>();
  for (const rec of records) {
    const tab = rec.indexOf('\t');
    if (tab === -1) continue;
    const path = rec.slice(tab + 1);
    if (seen.has(path)) continue;
    seen.add(path);
    paths.push(path);
    // "H 100644 <40 or 64 hex> 0": the oid runs from index 9 to the space before the stage.
    const sp = rec.lastIndexOf(' ', tab);
    if ((rec.startsWith('H 100644 ') || rec.startsWith('H 100755 ')) && rec.slice(sp + 1, tab) === '0') {
      blobs.set(path, rec.slice(9, sp));
    }
  }
  return { paths, blobs };
}

function lstatQuiet(absPath: string): Stats | undefined {
  try {
    return lstatSync(absPath, { throwIfNoEntry: false });
  } catch {
    return undefined; // ENOTDIR (a folder on the path became a file), EACCES...
  }
}

/** Attribute settings under which checkout can write bytes other than the blob's. */
const CONVERTING_ATTRIBUTE = /(^|\s)(filter|ident|working-tree-encoding)(=|\s|$)|(^|\s)eol=crlf(\s|$)/m;

/**
 * Whether a blob id identifies a clean file's bytes in this work tree: not when checkout converts
 * content (clean/smudge filters such as Git LFS or git-crypt, `ident`, `working-tree-encoding`, CRLF
 * line endings from `core.autocrlf=true`, `core.eol=crlf`, `eol=crlf` or Windows), because then the
 * same blob can be checked out as other bytes (an LFS pull, a git-crypt unlock) while git still calls
 * the file unmodified. Conservative: one such line in any attributes file turns it off for the tree.
 *
 * @param config       `git config -z --get-regexp` records for core.autocrlf / core.eol / core.attributesfile
 * @param attributes   texts of the attributes files that apply (tracked .gitattributes, info/attributes, global)
 */
function blobIdsIdentifyBytes(config: readonly string[], attributes: readonly string[]): boolean {
  if (process.platform === 'win32') return false;
  for (const rec of config) {
    const [key = '', value = ''] = rec.split('\n');
    if (key === 'core.autocrlf' && value.toLowerCase() === 'true') return false;
    if (key === 'core.eol' && value.toLowerCase() === 'crlf') return false;
  }
  return !attributes.some((text) => CONVERTING_ATTRIBUTE.test(text));
}

/** A text file's content (ignore rules, attributes), or null when it cannot be read. */
function readTextOrNull(absPath: string): string | null {
  try {
    return readFileSync(absPath, 'utf8');
  } catch {
    return null;
  }
}

/** Walk without git: nested `.gitignore` / `.clawcodeignore` per directory, deeper files win. */
function walkFiles(rootDir: string, base: Ignore | null): string[] {
  const out: string[] = [];
  const stack: { dir: string; rules: { prefix: string; ig: Ignore }[] }[] = [{ dir: '', rules: [] }];
  const ignored = (rules: { prefix: string; ig: Ignore }[], rel: string): boolean => {
    if (isDefaultIgnored(rel) || base?.ignores(rel)) return true;
    let state = false;
    for (const { prefix, ig } of rules) {
      const r = ig.test(rel.slice(prefix.length));
      if (r.ignored) state = true;
      else if (r.unignored) state = false;
    }
    return state;
  };
  while (stack.length > 0) {
    const { dir, rules: parentRules } = stack.pop()!;
    const abs = dir === '' ? rootDir : join(rootDir, dir);
    let entries;
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      continue;
    }
    let rules = parentRules;
    const local = ['.gitignore', '.clawcodeignore'].map((n) => readTextOrNull(join(abs, n))).filter((t) => t !== null);
    if (local.length > 0)
      rules = [...parentRules, { prefix: dir === '' ? '' : `${dir}/`, ig: ignore().add(local.join('\n')) }];
    for (const e of entries) {
      const rel = dir === '' ? e.name : `${dir}/${e.name}`;
      if (e.isDirectory()) {
        if (e.name !== '.git' && !ignored(rules, `${rel}/`)) stack.push({ dir: rel, rules });
      } else if (!ignored(rules, rel)) out.push(rel);
    }
  }
  return out;
}

/** `.clawcodeignore` files anywhere in a git listing, applied relative to their own folder. */
function clawcodeIgnoreFilter(rootDir: string, paths: readonly string[]): ((rel: string) => boolean) | null {
  const rules: { prefix: string; ig: Ignore }[] = [];
  for (const p of paths) {
    if (p !== '.clawcodeignore' && !p.endsWith('/.clawcodeignore')) continue;
    const text = readTextOrNull(join(rootDir, p));
    if (text !== null) rules.push({ prefix: p.slice(0, p.length - '.clawcodeignore'.length), ig: ignore().add(text) });
  }
  if (rules.length === 0) return null;
  return (rel) => rules.some(({ prefix, ig }) => rel.startsWith(prefix) && ig.ignores(rel.slice(prefix.length)));
}

/**
 * List the candidate context files of a project.
 *
 * @param rootDir  project root (absolute or relative to cwd)
 * @returns candidates sorted by path, plus what was skipped and why (secrets are reported as skipped,
 *          never read). Symlinks are kept only when they resolve to a file inside the root.
 * @throws never for unreadable entries (they are skipped); an unreadable root yields an empty result
 */
export async function scanProject(rootDir: string, options: ScanOptions = {}): Promise<ScanResult> {
  const started = performance.now();
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const base = options.extraIgnore && options.extraIgnore.length > 0 ? ignore().add([...options.extraIgnore]) : null;
  let realRoot: string;
  try {
    realRoot = realpathSync(rootDir);
  } catch {
    return { files: [], fileList: [], skipped: [], git: false, ms: performance.now() - started };
  }
  // Three git listings run in child processes while this thread loads what the caller needs: the
  // index (instant), the entries modified in the work tree (git stats every file, and compares
  // content where stat data is racy) and the untracked files (a walk). Tracked files are handled
  // as unmodified while git still looks; those it then reports modified are handled again.
  const git = (args: string[]): Promise<string[] | null> => runGit(realRoot, ['ls-files', ...args, '-z']);
  const indexListing = git(['-c', '-v', '-s']);
  const gitConfig = runGit(realRoot, ['config', '-z', '--get-regexp', '^core\\.(autocrlf|eol|attributesfile)$']);
  const gitPaths = runGit(realRoot, ['rev-parse', '--show-toplevel', '--git-path', 'info/attributes']);
  const modifiedListing = git(['-m']);
  const untrackedListing = git(['-o', '--exclude-standard']);
  options.whileListing?.();
  let files: ScannedFile[] = [];
  let skipped: ScanResult['skipped'] = [];
  const rootPrefix = realRoot.endsWith(sep) ? realRoot : realRoot + sep;
  const consider = (rel: string, oid: string | undefined, fromGit: boolean): void => {
    if (isDefaultIgnored(rel) || base?.ignores(rel)) return;
    if (isControlPath(rel)) {
      skipped.push({ path: rel, reason: 'control' });
      return;
    }
    if (isSecretPath(rel)) {
      skipped.push({ path: rel, reason: 'secret' });
      return;
    }
    if (isGeneratedPath(rel)) {
      skipped.push({ path: rel, reason: 'generated' });
      return;
    }
    if (isBinaryName(rel)) {
      skipped.push({ path: rel, reason: 'binary' });
      return;
    }
    // git paths are normalised and '/'-separated: concatenation is path.join without its cost.
    const absPath = fromGit && sep === '/' ? rootPrefix + rel : join(realRoot, rel);
    const known = oid !== undefined && !options.readContent ? options.knownBlob?.(rel, oid) : undefined;
    if (known) {
      if (known.sizeBytes > maxBytes) skipped.push({ path: rel, reason: 'too_large' });
      else files.push({ path: rel, absPath, sizeBytes: known.sizeBytes, mtimeMs: known.mtimeMs, oid });
      return;
    }
    let st = lstatQuiet(absPath);
    if (st === undefined) return; // deleted since listing
    try {
      if (st.isSymbolicLink()) {
        // Judged by where it leads: `docs/runbook.md -> ../.env` is the secret `.env`.
        const target = realpathSync(absPath);
        if (!isInsideRoot(realRoot, target)) {
          skipped.push({ path: rel, reason: 'symlink_outside' });
          return;
        }
        const refused = refuseByName(target.slice(rootPrefix.length).split(sep).join('/'))?.code;
        if (refused) {
          skipped.push({
            path: rel,
            reason: refused === 'path_control' ? 'control' : refused === 'path_secret' ? 'secret' : 'binary',
          });
          return;
        }
        st = statSync(target);
      }
    } catch {
      return; // dangling link
    }
    if (st.isDirectory()) return;
    // FIFOs, sockets and devices are never opened: reading one can block forever or never end.
    if (!st.isFile()) {
      skipped.push({ path: rel, reason: 'not_file' });
      return;
    }
    if (st.size > maxBytes) {
      skipped.push({ path: rel, reason: 'too_large' });
      return;
    }
    const file: ScannedFile = { path: rel, absPath, sizeBytes: st.size, mtimeMs: st.mtimeMs };
    if (oid !== undefined) file.oid = oid;
    if (options.readContent) {
      let cls: ContentClass;
      try {
        cls = classifyContent(readFileSync(absPath));
      } catch {
        skipped.push({ path: rel, reason: 'unreadable' });
        return;
      }
      if (cls.kind !== 'text') {
        skipped.push({ path: rel, reason: cls.kind });
        return;
      }
      file.content = cls.text;
    }
    files.push(file);
  };

  /** Take paths out of both results (files handled again, or ignored by a .clawcodeignore). */
  const drop = (gone: (path: string) => boolean): void => {
    files = files.filter((f) => !gone(f.path));
    skipped = skipped.filter((f) => !gone(f.path));
  };

  const indexRecords = await indexListing;
  const tracked = indexRecords === null ? null : parseTracked(indexRecords);
  if (tracked) {
    // `git config --get-regexp` exits 1 when nothing matches: null is "no such settings" here.
    const config = (await gitConfig) ?? [];
    const attributeFiles = tracked.paths
      .filter((p) => p === '.gitattributes' || p.endsWith('/.gitattributes'))
      .map((p) => join(realRoot, p));
    // The repository's top level, then info/attributes (relative to this folder unless absolute).
    const [top, infoPath] = ((await gitPaths) ?? [])[0]?.split('\n') ?? [];
    if (infoPath) attributeFiles.push(resolve(realRoot, infoPath));
    // A project inside a larger repository also gets the .gitattributes of the folders above it.
    if (top && realRoot.startsWith(`${top}/`)) {
      for (let dir = dirname(realRoot); dir.length >= top.length; dir = dirname(dir)) {
        attributeFiles.push(join(dir, '.gitattributes'));
        if (dir === top) break;
      }
    }
    const globalFile = config.map((r) => r.split('\n')).find(([k]) => k === 'core.attributesfile')?.[1];
    attributeFiles.push(
      globalFile
        ? resolve(realRoot, globalFile.replace(/^~(?=\/)/, homedir()))
        : join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'git', 'attributes'),
    );
    const attributes = attributeFiles.map(readTextOrNull).filter((t): t is string => t !== null);
    if (!blobIdsIdentifyBytes(config, attributes)) tracked.blobs.clear();
    for (const rel of tracked.paths) consider(rel, tracked.blobs.get(rel), true);
  }
  const [modified, untracked] = await Promise.all([modifiedListing, untrackedListing]);
  // No git, or an empty listing (a folder ignored by an enclosing repository, or empty): walk it.
  const listedByGit =
    tracked !== null && modified !== null && untracked !== null && tracked.paths.length + untracked.length > 0;
  if (listedByGit) {
    const again = new Set(modified.filter((rel) => tracked.blobs.has(rel)));
    if (again.size > 0) {
      drop((path) => again.has(path));
      for (const rel of again) consider(rel, undefined, true);
    }
    for (const rel of untracked) consider(rel, undefined, true);
    const claw = clawcodeIgnoreFilter(realRoot, [...tracked.paths, ...untracked]);
    if (claw) drop(claw);
  } else {
    files = [];
    skipped = [];
    for (const rel of walkFiles(realRoot, base)) consider(rel, undefined, false);
  }
  // Virtualenvs under any name (a folder holding pyvenv.cfg) are installed tools, never context.
  const venvs = virtualenvPrefixes([...files.map((f) => f.path), ...skipped.map((f) => f.path)]);
  if (venvs.length > 0) drop((p) => venvs.some((prefix) => p.startsWith(prefix)));
  const byPath = (a: { path: string }, b: { path: string }): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  files.sort(byPath);
  skipped.sort(byPath);
  return { files, fileList: files.map((f) => f.path), skipped, git: listedByGit, ms: performance.now() - started };
}
