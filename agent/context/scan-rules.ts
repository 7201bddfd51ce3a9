import { isUtf8 } from 'node:buffer';

/**
 * What is never context, by path or by content: dependency, VCS, build and cache folders, lockfiles,
 * bundles and generated sources, binary and non-UTF-8 bytes, minified text.
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
