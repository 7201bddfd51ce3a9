import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Ignore } from 'ignore';
import { recordsInRepo, type GitRepo } from '../../utils/git/repo.js';
import { ignore } from '../../utils/lazy-ignore.js';
import { MAX_ATTRIBUTES_FILE_BYTES, readRegularText } from '../../utils/regular-file.js';

/**
 * The git side of project scanning: running `git ls-files` and friends, parsing the index listing,
 * and deciding whether a blob id still identifies a clean file's bytes (attributes and line-ending
 * settings that make checkout convert content).
 */

/** Most bytes of output kept from one git listing; past it the listing counts as failed. */
const MAX_GIT_OUTPUT_BYTES = 256 * 1024 * 1024;

/**
 * Most ms one git listing may take. git opens every `.gitignore` it meets, and a FIFO there (left by a
 * command or a downloaded archive) blocks it for good; past this the listing counts as failed and the
 * scan walks the tree itself, which reads only regular ignore files.
 */
export const GIT_LISTING_TIMEOUT_MS = 30_000;

/**
 * Run git on a repository found for the project (utils/git/repo.ts: programs off) and split its
 * NUL-separated output, for at most {@link GIT_LISTING_TIMEOUT_MS}. Git is running when this returns.
 *
 * @returns the non-empty records, or null when git fails or times out, or prints over 256 MB
 */
export function runGit(repo: GitRepo, args: string[]): Promise<string[] | null> {
  return recordsInRepo(repo, args, { maxBytes: MAX_GIT_OUTPUT_BYTES, timeoutMs: GIT_LISTING_TIMEOUT_MS });
}

/**
 * The work tree's top folder and the repository's `info/attributes` file, in the shape
 * `attributeTexts` reads (as `git rev-parse --show-toplevel --git-path info/attributes` prints them).
 *
 * @returns one record "top\ninfo-attributes\n"
 */
export function repositoryPaths(repo: GitRepo): string[] {
  return [`${repo.workTree}\n${join(repo.commonDir, 'info', 'attributes')}\n`];
}

/** A tracked listing: each path once, and the blob id of each regular file at stage 0 tagged `H`. */
export interface TrackedListing {
  paths: string[];
  blobs: Map<string, string>;
}

/**
 * Parse `git ls-files -c -v -s -z`: one record "<tag> <mode> <oid> <stage>\t<path>" per index
 * entry. A blob id is kept only with tag `H` (not assume-unchanged, not skip-worktree), stage 0 (no
 * conflict) and a regular file mode; whether the work tree still holds that blob is for
 * `git ls-files -m` to say.
 */
export function parseTracked(records: readonly string[]): TrackedListing {
  const paths: string[] = [];
  const seen = new Set<string>();
  const blobs = new Map<string, string>();
  for (let i = 0; i < records.length; i++) {
    const rec = records[i]!;
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
export function blobIdsIdentifyBytes(config: readonly string[], attributes: readonly string[]): boolean {
  if (process.platform === 'win32') return false;
  for (const rec of config) {
    const [key = '', value = ''] = rec.split('\n');
    if (key === 'core.autocrlf' && value.toLowerCase() === 'true') return false;
    if (key === 'core.eol' && value.toLowerCase() === 'crlf') return false;
  }
  return !attributes.some((text) => CONVERTING_ATTRIBUTE.test(text));
}

/**
 * Texts of the attributes files that apply to a work tree: every tracked `.gitattributes`, the
 * repository's `info/attributes`, the `.gitattributes` of the folders between the repository's top
 * level and a project nested inside it, and the global attributes file (`core.attributesfile`, else
 * `$XDG_CONFIG_HOME/git/attributes`). Unreadable files are left out.
 *
 * @param realRoot      the project root, real path
 * @param trackedPaths  tracked project-relative paths
 * @param config        `git config -z --get-regexp` records (may name core.attributesfile)
 * @param gitPaths      `git rev-parse --show-toplevel --git-path info/attributes` output, or null
 */
export function attributeTexts(
  realRoot: string,
  trackedPaths: readonly string[],
  config: readonly string[],
  gitPaths: readonly string[] | null,
): string[] {
  const attributeFiles = trackedPaths
    .filter((p) => p === '.gitattributes' || p.endsWith('/.gitattributes'))
    .map((p) => join(realRoot, p));
  // The repository's top level, then info/attributes (relative to this folder unless absolute).
  const [top, infoPath] = (gitPaths ?? [])[0]?.split('\n') ?? [];
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
  return attributeFiles
    .map((f) => readRegularText(f, MAX_ATTRIBUTES_FILE_BYTES))
    .filter((t): t is string => t !== undefined);
}

/**
 * `.clawcodeignore` files anywhere in a git listing, applied relative to their own folder.
 *
 * @returns a test that is true for an ignored project-relative path, or null when no such file is listed
 */
export function clawcodeIgnoreFilter(rootDir: string, paths: readonly string[]): ((rel: string) => boolean) | null {
  const rules: { prefix: string; ig: Ignore }[] = [];
  for (let i = 0; i < paths.length; i++) {
    const p = paths[i]!;
    if (p !== '.clawcodeignore' && !p.endsWith('/.clawcodeignore')) continue;
    const text = readRegularText(join(rootDir, p));
    if (text !== undefined)
      rules.push({ prefix: p.slice(0, p.length - '.clawcodeignore'.length), ig: ignore().add(text) });
  }
  if (rules.length === 0) return null;
  return (rel) => rules.some(({ prefix, ig }) => rel.startsWith(prefix) && ig.ignores(rel.slice(prefix.length)));
}
