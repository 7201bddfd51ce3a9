import { lstatSync, readdirSync, readFileSync, readlinkSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { realOrSelf } from '../executable.js';
import { gitRecords } from '../git/repo.js';
import { isControlPath } from '../policy/paths.js';
import { BUILD_FOLDERS } from './safety.js';
import { foldersOf, pruneNewFolders, removeNewFiles, restoreEntry } from './tree-restore.js';

/**
 * The wall between a command that runs without a person's yes and the project's own files. The sandbox lets a
 * command write anywhere in the project root (tests write caches, builds write outputs), so an allow-listed tool
 * handed a project path by option (`pytest --basetemp=src`, `eslint -o src/a.js`, `tsc --outDir src`), a formatter
 * run over files the plan did not touch, or a project script (`npm test`, `make`) could empty or overwrite them,
 * and no undo brings that back. Before such a command the files it may not change are listed and kept
 * ({@link guardTree}); afterwards ({@link TreeGuard.check}) any of them it changed, replaced or removed is put back
 * byte for byte, and then the files it added beside the project's own are removed too, so the tree is as it was.
 *
 * A command may change: the files the plan wrote, generated folders ({@link GENERATED_FOLDERS}: build outputs,
 * dependency and tool caches, virtualenvs) and generated files ({@link GENERATED_FILE}: lint and compiler caches).
 * Everything else present before it ran is kept: what git tracks or would add, the files git ignores one by one
 * (a `.env`, a local configuration), and folders git ignores that are not generated ones (walked file by file, so
 * an ignore rule a plan writes cannot take a folder out of the guard).
 */

/** Folders a command may change freely wherever they are: build outputs, caches, dependency folders. */
export const GENERATED_FOLDERS: ReadonlySet<string> = new Set([
  ...BUILD_FOLDERS,
  '.venv',
  'venv',
  '.tox',
  '.nox',
  '.ruff_cache',
  '.hypothesis',
  '.benchmarks',
  '.eggs',
  '.angular',
  '.docusaurus',
  '.expo',
  '.dart_tool',
  '.stack-work',
  'zig-cache',
  '.zig-cache',
  'zig-out',
]);

/** Files a command may rewrite: caches of linters, formatters and compilers, coverage data, editor swap files. */
export const GENERATED_FILE =
  /(^|\/)(\.eslintcache|\.stylelintcache|\.prettiercache|[^/]*\.tsbuildinfo|\.coverage(\.[^/]*)?|[^/]*\.py[co])$/;

/** Most bytes of the project's files kept for one command (256 MiB); past it the command is not run unasked. */
export const GUARD_MAX_BYTES = 256 * 1024 * 1024;
/** Most files kept for one command (200,000). */
export const GUARD_MAX_FILES = 200_000;

/** One kept entry: what it was, and its bytes or link target. */
export interface KeptEntry {
  kind: 'file' | 'link';
  /** permission bits */
  mode: number;
  /** `dev:ino:size:mtimeNs:ctimeNs`: unchanged entries are not read again */
  stamp: string;
  content?: Buffer;
  target?: string;
  /** a file the plan wrote: its bytes and mode may change, not its kind, nor may it go */
  rewritable?: boolean;
}

/** What {@link TreeGuard.check} found and did. */
export interface GuardOutcome {
  /** project-relative paths the command changed, replaced or removed (each put back), sorted */
  changed: string[];
  /** files the command added that were removed again, because it broke the rule */
  removed: string[];
  /** paths that could not be put back (a write failed): named to the person */
  failed: string[];
}

/** A taken snapshot: call `check()` once the command has exited. */
export interface TreeGuard {
  /** how many files are kept */
  readonly files: number;
  check(): Promise<GuardOutcome>;
}

function stamp(info: BigIntStats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

function lstatBig(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true });
  } catch {
    return undefined;
  }
}

/** Whether a project-relative path is free for a command to change (generated, or a control path, which is read-only). */
export function isFreeToChange(rel: string): boolean {
  const parts = rel.split('/');
  return parts.slice(0, -1).some((p) => GENERATED_FOLDERS.has(p)) || GENERATED_FILE.test(rel) || isControlPath(rel);
}

/** A generated folder by name or shape (a virtualenv under any name holds `pyvenv.cfg`). */
function generatedFolder(root: string, rel: string): boolean {
  const name = rel.replace(/\/$/, '').split('/').pop() ?? '';
  return GENERATED_FOLDERS.has(name) || lstatBig(join(root, rel, 'pyvenv.cfg')) !== undefined;
}

/** Every file and symlink below `rel` (a folder), skipping generated folders and control paths; null past `max`. */
function walk(root: string, rel: string, out: string[], max: number): boolean {
  let names: string[];
  try {
    names = readdirSync(join(root, rel));
  } catch {
    return true;
  }
  for (const name of names) {
    const child = rel === '' ? name : `${rel}/${name}`;
    if (isControlPath(child)) continue;
    const info = lstatBig(join(root, child));
    if (info?.isDirectory()) {
      if (!generatedFolder(root, child) && !walk(root, child, out, max)) return false;
    } else if (info) {
      out.push(child);
      if (out.length > max) return false;
    }
  }
  return true;
}

/** The project-relative paths to keep: git's listing (tracked, untracked, ignored one by one), else a walk. */
async function listKept(root: string, max: number): Promise<string[] | null> {
  const own = await gitRecords(root, ['ls-files', '-z', '--cached', '--others', '--exclude-standard']);
  if (own === null) {
    const out: string[] = [];
    return walk(root, '', out, max) ? out : null;
  }
  const ignored = await gitRecords(root, [
    'ls-files',
    '-z',
    '--others',
    '--ignored',
    '--exclude-standard',
    '--directory',
  ]);
  if (ignored === null) return null;
  const out: string[] = [];
  // A submodule (a gitlink) and a nested repository git does not enter are listed as folders: walked, their
  // files are the project's too.
  for (const entry of own) {
    if (!lstatBig(join(root, entry))?.isDirectory()) out.push(entry);
    else if (!walk(root, entry.replace(/\/$/, ''), out, max)) return null;
  }
  for (const entry of ignored) {
    if (!entry.endsWith('/')) out.push(entry);
    else if (!generatedFolder(root, entry) && !walk(root, entry.slice(0, -1), out, max)) return null;
    if (out.length > max) return null;
  }
  return out;
}

/**
 * Keep the project's files before a command that runs without a person's yes.
 *
 * @param rootDir  the project root
 * @param free     project-relative paths the command may change (the files the plan wrote)
 * @returns the guard, or a one-line reason when the files cannot all be kept (over {@link GUARD_MAX_BYTES} or
 *          {@link GUARD_MAX_FILES}, or git could not list them); never throws
 */
export async function guardTree(rootDir: string, free: ReadonlySet<string>): Promise<TreeGuard | string> {
  const root = realOrSelf(rootDir);
  const listed = await listKept(root, GUARD_MAX_FILES);
  if (listed === null)
    return `the project has more than ${GUARD_MAX_FILES} files to keep safe, or git could not list them`;
  const kept = new Map<string, KeptEntry>();
  let bytes = 0;
  // The plan's files are kept too, as what they must stay: a formatter rewrites one, nothing makes it a symlink
  // out of the project (which undo then refuses to write through), a folder, or removes it.
  for (const rel of new Set([...listed, ...free])) {
    if (isFreeToChange(rel)) continue;
    const info = lstatBig(join(root, rel));
    if (!info || !(info.isFile() || info.isSymbolicLink())) continue;
    const entry: KeptEntry = {
      kind: info.isFile() ? 'file' : 'link',
      mode: Number(info.mode & 0o7777n),
      stamp: stamp(info),
      ...(free.has(rel) ? { rewritable: true } : {}),
    };
    try {
      if (info.isFile()) {
        bytes += Number(info.size);
        if (bytes > GUARD_MAX_BYTES)
          return `the project holds more than ${GUARD_MAX_BYTES / 2 ** 20} MiB of files to keep safe`;
        entry.content = readFileSync(join(root, rel));
      } else entry.target = readlinkSync(join(root, rel));
    } catch {
      continue; // unreadable (a socket, no permission): nothing to put back
    }
    kept.set(rel, entry);
  }
  const before = new Set([...listed, ...free]);
  return { files: kept.size, check: () => checkTree(root, kept, before) };
}

function unchanged(root: string, rel: string, entry: KeptEntry): boolean {
  const path = join(root, rel);
  const info = lstatBig(path);
  if (!info) return false;
  if (stamp(info) === entry.stamp) return true;
  if (entry.rewritable) return entry.kind === 'file' ? info.isFile() : info.isSymbolicLink();
  if (Number(info.mode & 0o7777n) !== entry.mode) return false;
  try {
    if (entry.kind === 'link') return info.isSymbolicLink() && readlinkSync(path) === entry.target;
    return info.isFile() && Number(info.size) === entry.content!.length && readFileSync(path).equals(entry.content!);
  } catch {
    return false;
  }
}

/** Put back what changed; then remove the files that were not there before (`before`: every path listed, and the plan's). */
async function checkTree(
  root: string,
  kept: Map<string, KeptEntry>,
  before: ReadonlySet<string>,
): Promise<GuardOutcome> {
  const changed = [...kept].filter(([rel, entry]) => !unchanged(root, rel, entry)).map(([rel]) => rel);
  if (changed.length === 0) return { changed, removed: [], failed: [] };
  const failed = changed.filter((rel) => !restoreEntry(root, rel, kept.get(rel)!));
  const now = (await listKept(root, GUARD_MAX_FILES * 2)) ?? [];
  const removed = removeNewFiles(
    root,
    now.filter((rel) => !before.has(rel) && !isFreeToChange(rel)),
    before,
  );
  // Empty folders it made where it broke the rule (a tool's temp folders under --basetemp=src) go too.
  const keptDirs = foldersOf(before);
  for (const top of new Set([...changed, ...removed].map((rel) => rel.split('/')[0]!)))
    if (keptDirs.has(top)) pruneNewFolders(root, top, keptDirs, (rel) => isFreeToChange(`${rel}/x`));
  return { changed: changed.sort(), removed, failed };
}
