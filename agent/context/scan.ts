import { lstatSync, readdirSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { join, sep } from 'node:path';
import type { Ignore } from 'ignore';
import {
  classifyContent,
  DEFAULT_MAX_FILE_BYTES,
  isDefaultIgnored,
  isGeneratedPath,
  type ContentClass,
} from './scan-rules.js';
import { ignore } from '../../utils/lazy-ignore.js';
import { readRegularText } from '../../utils/regular-file.js';
import { findRepository, personIncludeTargets } from '../../utils/git/repo.js';
import { gitControlledFilter } from '../../utils/policy/git-control.js';
import { isInsideRoot } from '../../utils/path-inside.js';
import {
  isBinaryName,
  isControlPath,
  isSecretPath,
  refuseByName,
  virtualenvPrefixes,
} from '../../utils/policy/paths.js';
import {
  attributeTexts,
  blobIdsIdentifyBytes,
  clawcodeIgnoreFilter,
  parseTracked,
  repositoryPaths,
  runGit,
} from './scan-git.js';

/**
 * Project scanning, with no cap on the number of files: list every file that could be
 * context. Inside a git work tree `git ls-files -co --exclude-standard` decides (git's own ignore
 * semantics); elsewhere the `ignore` package applies `.gitignore` files per directory. In both cases
 * `.clawcodeignore` (any directory), DEFAULT_IGNORE_DIRS and the caller's extra patterns also apply.
 */

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

function lstatQuiet(absPath: string): Stats | undefined {
  try {
    return lstatSync(absPath, { throwIfNoEntry: false });
  } catch {
    return undefined; // ENOTDIR (a folder on the path became a file), EACCES...
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
    const local = ['.gitignore', '.clawcodeignore']
      .map((n) => readRegularText(join(abs, n)))
      .filter((t) => t !== undefined);
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

/** What one scan collects, and what every path is judged against. */
interface Collector {
  realRoot: string;
  /** `realRoot` with a trailing separator */
  rootPrefix: string;
  maxBytes: number;
  /** the caller's extra ignore patterns, or null */
  base: Ignore | null;
  options: ScanOptions;
  files: ScannedFile[];
  skipped: ScanResult['skipped'];
}

/** Why a path is refused by its name alone (control folder, secret, generated, binary), or null. */
function nameSkipReason(rel: string): SkipReason | null {
  if (isControlPath(rel)) return 'control';
  if (isSecretPath(rel)) return 'secret';
  if (isGeneratedPath(rel)) return 'generated';
  if (isBinaryName(rel)) return 'binary';
  return null;
}

/**
 * Judge one listed path and add it to `c.files` or `c.skipped` (or neither: ignored, gone, a folder, a dangling
 * link). `oid`: its git blob id when tracked and unmodified; a `tracked` file skips the default ignore folders.
 */
function consider(c: Collector, rel: string, oid: string | undefined, fromGit: boolean, tracked = false): void {
  const { realRoot, rootPrefix, maxBytes, options } = c;
  if ((!tracked && isDefaultIgnored(rel)) || c.base?.ignores(rel)) return;
  const refusedByName = nameSkipReason(rel);
  if (refusedByName) {
    c.skipped.push({ path: rel, reason: refusedByName });
    return;
  }
  // git paths are normalised and '/'-separated: concatenation is path.join without its cost.
  const absPath = fromGit && sep === '/' ? rootPrefix + rel : join(realRoot, rel);
  const known = oid !== undefined && !options.readContent ? options.knownBlob?.(rel, oid) : undefined;
  if (known) {
    if (known.sizeBytes > maxBytes) c.skipped.push({ path: rel, reason: 'too_large' });
    else c.files.push({ path: rel, absPath, sizeBytes: known.sizeBytes, mtimeMs: known.mtimeMs, oid });
    return;
  }
  const st = statFollowingLink(c, rel, absPath);
  if (st === undefined || st.isDirectory()) return;
  // FIFOs, sockets and devices are never opened: reading one can block forever or never end.
  if (!st.isFile()) {
    c.skipped.push({ path: rel, reason: 'not_file' });
    return;
  }
  if (st.size > maxBytes) {
    c.skipped.push({ path: rel, reason: 'too_large' });
    return;
  }
  const file: ScannedFile = { path: rel, absPath, sizeBytes: st.size, mtimeMs: st.mtimeMs };
  if (oid !== undefined) file.oid = oid;
  if (options.readContent) {
    const reason = readInto(file);
    if (reason) {
      c.skipped.push({ path: rel, reason });
      return;
    }
  }
  c.files.push(file);
}

/**
 * The stats of a path, of its target for a symlink. A link is judged by where it leads
 * (`docs/runbook.md -> ../.env` is the secret `.env`): one leading outside the root or to a refused
 * name is added to `c.skipped`. Returns undefined when the path is skipped, gone or dangling.
 */
function statFollowingLink(c: Collector, rel: string, absPath: string): Stats | undefined {
  const st = lstatQuiet(absPath);
  if (st === undefined) return undefined; // deleted since listing
  try {
    if (!st.isSymbolicLink()) return st;
    const target = realpathSync(absPath);
    if (!isInsideRoot(c.realRoot, target)) {
      c.skipped.push({ path: rel, reason: 'symlink_outside' });
      return undefined;
    }
    const refused = refuseByName(target.slice(c.rootPrefix.length).split(sep).join('/'))?.code;
    if (refused) {
      c.skipped.push({
        path: rel,
        reason: refused === 'path_control' ? 'control' : refused === 'path_secret' ? 'secret' : 'binary',
      });
      return undefined;
    }
    return statSync(target);
  } catch {
    return undefined; // dangling link
  }
}

/** Read and classify a file's bytes into `file.content`; returns why it is skipped, or null for text. */
function readInto(file: ScannedFile): SkipReason | null {
  let cls: ContentClass;
  try {
    cls = classifyContent(readFileSync(file.absPath));
  } catch {
    return 'unreadable';
  }
  if (cls.kind !== 'text') return cls.kind;
  file.content = cls.text;
  return null;
}

/** Take paths out of both results (files handled again, or ignored by a .clawcodeignore). */
function drop(c: Collector, gone: (path: string) => boolean): void {
  c.files = c.files.filter((f) => !gone(f.path));
  c.skipped = c.skipped.filter((f) => !gone(f.path));
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
  let realRoot: string;
  try {
    realRoot = realpathSync(rootDir);
  } catch {
    return { files: [], fileList: [], skipped: [], git: false, ms: performance.now() - started };
  }
  // Three git listings run in child processes while this thread loads what the caller needs: the
  // index (instant), the entries modified in the work tree (git stats every file, and compares
  // content where stat data is racy) and the untracked files (a walk). Tracked files are handled
  // as unmodified while git still looks; those it then reports modified are handled again. The
  // last two stay separate processes: on two cores they run side by side (one process doing both
  // took 40 ms longer on prettier/prettier, more than the few ms a spawn costs this thread).
  // The listings need the repository found first (two short git runs); they are spawned before
  // `whileListing` starts, which would otherwise hold this thread while git sat waiting to start.
  // The person's own include targets (read by the control filter at the end) are read meanwhile.
  void personIncludeTargets();
  const repo = await findRepository(realRoot);
  const git = (args: string[]): Promise<string[] | null> =>
    repo ? runGit(repo, ['ls-files', ...args, '-z']) : Promise.resolve(null);
  const indexListing = git(['-c', '-v', '-s']);
  const untrackedListing = git(['-o', '--exclude-standard']);
  const modifiedListing = git(['-m']);
  const gitConfig = repo
    ? runGit(repo, ['config', '-z', '--get-regexp', '^core\\.(autocrlf|eol|attributesfile)$'])
    : Promise.resolve(null);
  options.whileListing?.();
  const c: Collector = {
    realRoot,
    rootPrefix: realRoot.endsWith(sep) ? realRoot : realRoot + sep,
    maxBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    base: options.extraIgnore && options.extraIgnore.length > 0 ? ignore().add([...options.extraIgnore]) : null,
    options,
    files: [],
    skipped: [],
  };
  const indexRecords = await indexListing;
  const tracked = indexRecords === null ? null : parseTracked(indexRecords);
  if (tracked) {
    // `git config --get-regexp` exits 1 when nothing matches: null is "no such settings" here.
    const config = (await gitConfig) ?? [];
    const attributes = attributeTexts(realRoot, tracked.paths, config, repo ? repositoryPaths(repo) : null);
    if (!blobIdsIdentifyBytes(config, attributes)) tracked.blobs.clear();
    const { paths, blobs } = tracked;
    for (let i = 0; i < paths.length; i++) consider(c, paths[i]!, blobs.get(paths[i]!), true, true);
  }
  const [modified, untracked] = await Promise.all([modifiedListing, untrackedListing]);
  // No git, or an empty listing (a folder ignored by an enclosing repository, or empty): walk it.
  const listedByGit =
    tracked !== null && modified !== null && untracked !== null && tracked.paths.length + untracked.length > 0;
  if (listedByGit) {
    const again = new Set(modified.filter((rel) => tracked.blobs.has(rel)));
    if (again.size > 0) {
      drop(c, (path) => again.has(path));
      for (const rel of again) consider(c, rel, undefined, true, true);
    }
    for (let i = 0; i < untracked.length; i++) consider(c, untracked[i]!, undefined, true);
    const claw = clawcodeIgnoreFilter(realRoot, [...tracked.paths, ...untracked]);
    if (claw) drop(c, claw);
  } else {
    c.files = [];
    c.skipped = [];
    for (const rel of walkFiles(realRoot, c.base)) consider(c, rel, undefined, false);
  }
  // Virtualenvs under any name (a folder holding pyvenv.cfg) are installed tools, never context.
  const venvs = virtualenvPrefixes([...c.files.map((f) => f.path), ...c.skipped.map((f) => f.path)]);
  if (venvs.length > 0) drop(c, (p) => venvs.some((prefix) => p.startsWith(prefix)));
  // Git directories under any name and the files git's configuration reads or runs: never context.
  const gitControlled = await gitControlledFilter(realRoot, [
    ...c.files.map((f) => f.path),
    ...c.skipped.map((f) => f.path),
  ]);
  if (gitControlled) drop(c, gitControlled);
  const byPath = (a: { path: string }, b: { path: string }): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  const { files, skipped } = c;
  files.sort(byPath);
  skipped.sort(byPath);
  return { files, fileList: files.map((f) => f.path), skipped, git: listedByGit, ms: performance.now() - started };
}
