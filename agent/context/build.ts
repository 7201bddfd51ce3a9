import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { clawcodeHome } from '../../config/paths.js';
import { classifyContent } from './scan-rules.js';
import { scanProject, type ScanResult, type ScannedFile } from './scan.js';
import { redactSecrets } from '../../utils/policy/secrets.js';
import { indexFile, loadIndex, saveIndex, type IndexedDoc } from './search-index.js';
import { issueText, readIssue, type IssueEvidence } from './issue.js';
import { buildOutline, outlineSizeBound } from './outline.js';
import { resolveMentions, resolvePathspecs, unmatchedPinError } from './pins.js';
import { extractImports, resolveImport } from './symbols.js';
import type { RankDoc, RankedFile } from './rank.js';
import { rankAndPack, type ContextFile } from './select.js';

/**
 * The context stage: scan → index → rank → budget → outline → redaction. The result is
 * what the prompt builder sends: `files[].text` then `outline`, `totalChars ≤ budget` always.
 */

/** Result of `buildContext` (shared contract). */
export interface ContextResult {
  files: ContextFile[];
  /** project file list (and some symbols) within the budget; '' when it does not fit */
  outline: string;
  /** every candidate path (sorted), for validating paths a plan names */
  fileList: string[];
  /** Σ files[].chars + outline.length, ≤ budget */
  totalChars: number;
  budget: number;
  scannedFiles: number;
  ms: number;
  /** secrets replaced in what is sent, per file and kind */
  redactions: { path: string; kind: string; count: number }[];
  /** files the index had to (re)tokenize this run; 0 on a fully warm run */
  indexedFiles: number;
  /** the pinned paths that were candidates: `--files` first, then `@path` mentions of the task */
  pinned: string[];
}

/** Options of `buildContext`. */
export interface BuildContextOptions {
  rootDir: string;
  task: string;
  /** characters, > 0 */
  budgetChars: number;
  /** clawcode home for the index (default clawcodeHome()) */
  homeDir?: string;
  /** more gitignore-style patterns */
  extraIgnore?: string[];
  /** Save the refreshed index under the clawcode home (default true; false writes nothing there). */
  cacheIndex?: boolean;
  /** Called once the scan is done: candidate files and the scan's wall time in ms. */
  onScan?: (scan: { files: number; ms: number }) => void;
  /**
   * Pathspecs or globs the person pinned (`--files`, `:add`), resolved with `resolvePathspecs`:
   * their files are sent first. A spec matching no sendable file is a UsageError.
   */
  files?: readonly string[];
  /** project paths kept from the previous task of a session: sent after the pins */
  kept?: readonly string[];
  /** The project's scan when the caller already made one (a wide task's): it is not repeated. */
  scan?: ScanResult;
}

/**
 * The project map's share of the budget: at most MAP_SHARE. MAP_RESERVE of it (at most
 * MAP_RESERVE_MAX_CHARS, and no more than the full map needs) is set aside before files are chosen;
 * the rest only from what the files leave over, since file content is worth more than names.
 */
const MAP_SHARE = 0.1;
const MAP_RESERVE = 0.05;
const MAP_RESERVE_MAX_CHARS = 2500;
/** Top-ranked files whose defined symbols the map shows, and how many symbols each. */
const SYMBOL_FILES = 12;
const SYMBOLS_PER_FILE = 6;

/**
 * Build the context for one task.
 *
 * @returns the selection, the outline and what was redacted; `ms` is wall time of the whole stage
 * @throws UsageError when a `files` spec matches no sendable file; never for unreadable files (they
 *         are skipped); an unreadable root yields an empty context
 */
export async function buildContext(options: BuildContextOptions): Promise<ContextResult> {
  const started = performance.now();
  const rootDir = resolve(options.rootDir);
  const budget = Math.max(0, Math.floor(options.budgetChars));
  const home = options.homeDir ?? clawcodeHome();
  // git lists files in child processes while this thread parses the cached index; unmodified tracked
  // files whose blob id the index knows are then taken from it without a stat.
  let cached = new Map<string, IndexedDoc>();
  if (options.scan) cached = loadIndex(home, rootDir);
  const scan =
    options.scan ??
    (await scanProject(rootDir, {
      extraIgnore: options.extraIgnore,
      whileListing: () => {
        cached = loadIndex(home, rootDir);
      },
      knownBlob: (path, oid) => {
        const doc = cached.get(path);
        return doc?.oid === oid ? doc : undefined;
      },
    }));
  options.onScan?.({ files: scan.files.length, ms: Math.round(performance.now() - started) });
  const { index, indexed, changed } = refreshIndex(scan.files, scan.git, cached);
  if (changed && options.cacheIndex !== false) saveIndex(home, rootDir, index);

  const docs: RankDoc[] = [];
  index.forEach((doc, path) => {
    if (doc.kind === 'text') docs.push({ path, doc });
  });
  const fileSet = new Set(docs.map((d) => d.path));
  const bySuffix = suffixLookup(fileSet);
  const readText = (path: string): string | null => readProjectText(rootDir, path);
  const redactionsByPath = new Map<string, { kind: string; count: number }[]>();
  const outlineReserve = Math.min(
    Math.floor(budget * MAP_RESERVE),
    MAP_RESERVE_MAX_CHARS,
    outlineSizeBound(docs.map((d) => d.path)),
  );
  // The task is read for evidence once: its `@path` mentions are pins, the rest guides ranking.
  const issue = readIssue(issueText(options.task));
  const pinned = await resolvePins(rootDir, options, fileSet, issue.mentions);
  const selection = rankAndPack(options.task, docs, {
    issue,
    pinned,
    kept: (options.kept ?? []).filter((p) => fileSet.has(p) && !pinned.includes(p)),
    budgetChars: budget - outlineReserve,
    readText,
    transform: (path, text) => {
      const r = redactSecrets(text, path);
      if (r.redactions.length > 0) redactionsByPath.set(path, r.redactions);
      return r.text;
    },
    // Imports are read from the text of the few top files, not indexed: cheaper than parsing every file.
    importsOf: (path) =>
      extractImports(readText(path) ?? '').flatMap((spec) => resolveImport(spec, path, fileSet, bySuffix)),
  });

  const sent = new Set(selection.files.map((f) => f.path));
  const outline = buildOutline({
    paths: selection.ranked.map((r) => r.path),
    sent,
    symbols: outlineSymbols(selection.ranked, sent),
    maxChars: Math.min(budget - selection.usedChars, Math.floor(budget * MAP_SHARE)),
  });
  const redactions = selection.files.flatMap((f) =>
    (redactionsByPath.get(f.path) ?? []).map((r) => ({ path: f.path, ...r })),
  );
  return {
    files: selection.files,
    outline,
    fileList: scan.fileList,
    totalChars: selection.usedChars + outline.length,
    budget,
    scannedFiles: scan.files.length,
    ms: Math.round(performance.now() - started),
    redactions,
    indexedFiles: indexed,
    pinned,
  };
}

/**
 * The index for the scanned files: cached entries that are still fresh, the rest tokenized again.
 *
 * @param files   the scan's candidate files
 * @param git     whether git listed them (then a blob id decides freshness, else mtime and size)
 * @param cached  the index as loaded from disk
 * @returns the refreshed index, how many files were tokenized, and whether it differs from `cached`
 */
function refreshIndex(
  files: readonly ScannedFile[],
  git: boolean,
  cached: ReadonlyMap<string, IndexedDoc>,
): { index: Map<string, IndexedDoc>; indexed: number; changed: boolean } {
  const index = new Map<string, IndexedDoc>();
  const stale: ScannedFile[] = [];
  let learned = 0;
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    const doc = cached.get(f.path);
    // With git, an entry indexed from a blob is fresh exactly while git reports that blob unmodified;
    // otherwise (no git, or indexed while modified) mtime and size decide.
    const fresh =
      doc !== undefined &&
      (git && doc.oid !== undefined ? doc.oid === f.oid : doc.mtimeMs === f.mtimeMs && doc.sizeBytes === f.sizeBytes);
    if (!fresh) stale.push(f);
    else if (f.oid !== undefined && doc.oid === undefined) {
      // Indexed while modified, committed since: keep the entry, learn its blob id (saved by the caller).
      index.set(f.path, { ...doc, oid: f.oid });
      learned++;
    } else index.set(f.path, doc);
  }
  // One thread: a worker-thread split was measured slower here (7.7k files: 0.68 s vs 0.57 s).
  for (const f of stale) index.set(f.path, indexFile(f.absPath, f.mtimeMs, f.sizeBytes, f.oid));
  const indexed = stale.length;
  return { index, indexed, changed: indexed > 0 || learned > 0 || cached.size !== index.size };
}

/**
 * Paths by file name, for resolving imports by suffix: the returned function gives the paths equal
 * to `suffix` or ending in `/suffix`. The name map is built on the first call.
 */
function suffixLookup(fileSet: ReadonlySet<string>): (suffix: string) => string[] {
  let byBase: Map<string, string[]> | undefined;
  return (suffix) => {
    if (!byBase) {
      byBase = new Map();
      for (const p of fileSet) {
        const base = p.slice(p.lastIndexOf('/') + 1);
        const same = byBase.get(base);
        if (same) same.push(p);
        else byBase.set(base, [p]);
      }
    }
    return (byBase.get(suffix.slice(suffix.lastIndexOf('/') + 1)) ?? []).filter(
      (p) => p === suffix || p.endsWith(`/${suffix}`),
    );
  };
}

/** A project file's text, or null when it cannot be read or is not UTF-8 text. */
function readProjectText(rootDir: string, path: string): string | null {
  try {
    const cls = classifyContent(readFileSync(join(rootDir, path)));
    return cls.kind === 'text' ? cls.text : null;
  } catch {
    return null;
  }
}

/**
 * The pinned paths: the `files` specs' matches first, then the task's `@path` mentions, each once.
 *
 * @throws UsageError (from `unmatchedPinError`) when a spec matches no file of `fileSet`
 */
async function resolvePins(
  rootDir: string,
  options: BuildContextOptions,
  fileSet: ReadonlySet<string>,
  mentions: IssueEvidence['mentions'],
): Promise<string[]> {
  const fromSpecs = options.files?.length
    ? await resolvePathspecs(rootDir, options.files, [...fileSet].sort())
    : { paths: [], unmatched: [] };
  if (fromSpecs.unmatched.length > 0) {
    throw unmatchedPinError(fromSpecs.unmatched);
  }
  return [...new Set([...fromSpecs.paths, ...(mentions.length > 0 ? resolveMentions(mentions, [...fileSet]) : [])])];
}

/** Symbols the outline shows: for up to SYMBOL_FILES matched files not sent, their first definitions. */
function outlineSymbols(ranked: readonly RankedFile[], sent: ReadonlySet<string>): Map<string, string[]> {
  const symbols = new Map<string, string[]>();
  for (const r of ranked) {
    if (symbols.size >= SYMBOL_FILES || r.score <= 0) break;
    if (!sent.has(r.path) && r.doc.defs.length > 0) symbols.set(r.path, r.doc.defs.slice(0, SYMBOLS_PER_FILE));
  }
  return symbols;
}
