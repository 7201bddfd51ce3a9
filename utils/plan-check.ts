/**
 * Checks on a whole plan's target paths before anything is applied (DESIGN.md "Invariants", issue 4):
 * every path stays inside the project root — no absolute path, no `..` that climbs out, no symlink (of the
 * file or of any parent folder) that leads outside — and no patch targets a binary file or a secret file.
 * Symlinks are judged with the real file system (`fs.realpath` on the deepest existing ancestor).
 */
import { lstat, open, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { PatchOp } from './plan.js';

/** Why a plan path was refused. */
export type PlanPathIssueCode =
  | 'path_invalid'
  | 'path_absolute'
  | 'path_escape'
  | 'path_symlink_escape'
  | 'path_not_file'
  | 'path_binary'
  | 'path_secret';

/** One refused patch target. `index` is the patch's 0-based position in the plan. */
export interface PlanPathIssue {
  index: number;
  /** The path as written in the plan. */
  file: string;
  code: PlanPathIssueCode;
  /** One line for a person, naming the path. */
  message: string;
}

/** Result of `normalizePlanPath`: a clean project-relative path, or why there is none. */
export type NormalizedPlanPath =
  | { ok: true; path: string }
  | { ok: false; code: 'path_invalid' | 'path_absolute' | 'path_escape'; message: string };

/**
 * Turn a plan path into a project-relative path with `/` separators, without touching the disk.
 * Backslashes count as separators; `.` segments and inner `..` that stay inside are resolved away.
 * Refused: empty or NUL-containing paths, a directory (trailing `/`) or the root itself (`path_invalid`);
 * `/x`, `C:\x`, `\\server\x`, `~/x` (`path_absolute`); a `..` that climbs above the root (`path_escape`).
 */
export function normalizePlanPath(p: string): NormalizedPlanPath {
  if (p.trim() === '' || p.includes('\0')) return { ok: false, code: 'path_invalid', message: `invalid path ${JSON.stringify(p)}` };
  const slashed = p.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed) || slashed.startsWith('~')) {
    return { ok: false, code: 'path_absolute', message: `${p} is an absolute path; plan paths are relative to the project root` };
  }
  if (slashed.endsWith('/')) return { ok: false, code: 'path_invalid', message: `${p} names a folder, not a file` };
  const out: string[] = [];
  for (const segment of slashed.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) return { ok: false, code: 'path_escape', message: `${p} leads outside the project root` };
      out.pop();
    } else {
      out.push(segment);
    }
  }
  if (out.length === 0) return { ok: false, code: 'path_invalid', message: `${p} names the project root, not a file` };
  return { ok: true, path: out.join('/') };
}

// Secret files are never patched (and never sent to a provider): dotenv files, private keys and
// certificates, credential stores. Matched on the file name; `.ssh/` anywhere in the path too.
const SECRET_NAMES = [
  /^\.env(\..*)?$/i,
  /\.(pem|key|p12|pfx|jks|keystore|asc|gpg)$/i,
  /^id_(rsa|dsa|ecdsa|ed25519)/i,
  /^(credentials|credentials\.json|\.netrc|_netrc|\.git-credentials|\.pgpass|\.pypirc|\.npmrc|secrets?\.(json|ya?ml|toml))$/i,
];

/** Whether a project-relative path names a secret file (`.env*`, `*.pem`, `*.key`, `id_rsa*`, credentials). */
export function isSecretPath(relPath: string): boolean {
  const parts = relPath.split('/');
  const name = parts[parts.length - 1] ?? '';
  return parts.includes('.ssh') || SECRET_NAMES.some((re) => re.test(name));
}

// Extensions of formats that are never text (a patch to one would corrupt it).
const BINARY_EXT = new Set(
  ('png jpg jpeg gif bmp ico webp avif tif tiff psd pdf zip gz tgz bz2 xz 7z rar jar war zst ' +
    'exe dll so dylib o a lib obj class pyc pyo wasm node bin dat db sqlite sqlite3 ' +
    'mp3 mp4 m4a wav ogg flac mov avi mkv webm woff woff2 ttf otf eot')
    .split(' ')
    .map((e) => `.${e}`),
);
/** Bytes read to sniff for NUL (git's heuristic uses the first 8000). */
const SNIFF_BYTES = 8000;

/**
 * Check every patch target of a plan against the project root on disk.
 *
 * @param rootDir  the project root (may itself be reached through a symlink)
 * @param patches  the plan's patches; only `file` is read
 * @returns one issue per refused patch, in plan order; an empty array means every path is safe
 * @throws never for a bad path (that is an issue); I/O errors other than "does not exist" become issues too
 */
export async function checkPlanPaths(rootDir: string, patches: readonly PatchOp[]): Promise<PlanPathIssue[]> {
  const root = await realpath(rootDir);
  const issues: PlanPathIssue[] = [];
  const verdicts = new Map<string, { code: PlanPathIssueCode; message: string } | null>();
  for (const [index, patch] of patches.entries()) {
    const norm = normalizePlanPath(patch.file);
    if (!norm.ok) {
      issues.push({ index, file: patch.file, code: norm.code, message: norm.message });
      continue;
    }
    let verdict = verdicts.get(norm.path);
    if (verdict === undefined) {
      verdict = await checkOne(root, norm.path, patch.file);
      verdicts.set(norm.path, verdict);
    }
    if (verdict) issues.push({ index, file: patch.file, ...verdict });
  }
  return issues;
}

async function checkOne(root: string, rel: string, asWritten: string): Promise<{ code: PlanPathIssueCode; message: string } | null> {
  if (isSecretPath(rel)) return { code: 'path_secret', message: `${asWritten} is a secret file (keys, .env, credentials); clawcode never edits it` };
  const full = path.join(root, ...rel.split('/'));
  const escape = await symlinkEscape(root, full);
  if (escape) return { code: 'path_symlink_escape', message: `${asWritten} leads outside the project root through the symlink ${escape}` };
  if (BINARY_EXT.has(path.extname(rel).toLowerCase())) return { code: 'path_binary', message: `${asWritten} is a binary file type; clawcode only patches text` };
  const stat = await lstat(full).catch(() => undefined);
  if (!stat) return null;
  if (stat.isDirectory()) return { code: 'path_not_file', message: `${asWritten} is a folder, not a file` };
  if (stat.isFile() && (await hasNulByte(full))) return { code: 'path_binary', message: `${asWritten} holds binary data (NUL bytes); clawcode only patches text` };
  return null;
}

/**
 * The first path (relative to root) on the way to `full` whose real location is outside root, or
 * `undefined`. Existing ancestors are resolved with realpath; a dangling symlink is judged by its target.
 */
async function symlinkEscape(root: string, full: string): Promise<string | undefined> {
  const rel = path.relative(root, full).split(path.sep);
  let current = root;
  for (const segment of rel) {
    current = path.join(current, segment);
    const stat = await lstat(current).catch(() => undefined);
    if (!stat) return undefined; // nothing further exists, so nothing further can be a symlink
    if (!stat.isSymbolicLink()) continue;
    const real = await realpath(current).catch(async () => path.resolve(path.dirname(current), await readlink(current)));
    if (!isInside(root, real)) return path.relative(root, current).split(path.sep).join('/');
  }
  return undefined;
}

function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

async function hasNulByte(file: string): Promise<boolean> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return false;
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}
