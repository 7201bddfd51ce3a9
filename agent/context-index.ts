import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyContent } from '../utils/scanner.js';
import { analyzeText } from './context-symbols.js';
import { getProjectHash } from '../memory/project-hash.js';

/**
 * The on-disk context index (issue 5 "Index"): per project, per file, what ranking needs so that a
 * warm run does not re-read or re-tokenize unchanged files. Entries are keyed by path and are valid
 * while the file's mtime and size are unchanged (the way Aider caches its tags by mtime).
 */

/** Bump when the stored shape or the tokenizer changes; older files are ignored and rewritten. */
export const INDEX_VERSION = 5;

/** What the index keeps per file. `kind` other than 'text' means the file is never sent. */
export interface IndexedDoc {
  mtimeMs: number;
  sizeBytes: number;
  kind: 'text' | 'binary' | 'non_utf8' | 'generated' | 'unreadable';
  /** document length in tokens (BM25 |d|) */
  tokens: number;
  lines: number;
  /** "\nterm count\nterm count\n": looked up with indexOf, never parsed whole (fast warm loads) */
  terms: string;
  /** defined symbol names, original case */
  defs: string[];
}

/** Build the index entry of one text file. */
export function indexText(text: string, mtimeMs: number, sizeBytes: number): IndexedDoc {
  const { counts, total, defs } = analyzeText(text);
  let terms = '\n';
  for (const [t, c] of counts) terms += `${t} ${c}\n`;
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return { mtimeMs, sizeBytes, kind: 'text', tokens: total, lines, terms, defs };
}

/**
 * Read, classify and index one file. Binary, non-UTF-8 and minified files get an entry without terms
 * (so they are not re-read until they change); an unreadable file gets kind 'unreadable'.
 */
export function indexFile(absPath: string, mtimeMs: number, sizeBytes: number): IndexedDoc {
  const empty = { mtimeMs, sizeBytes, tokens: 0, lines: 0, terms: '\n', defs: [] };
  let buf: Buffer;
  try {
    buf = readFileSync(absPath);
  } catch {
    return { ...empty, kind: 'unreadable' };
  }
  const cls = classifyContent(buf);
  return cls.kind === 'text' ? indexText(cls.text, mtimeMs, sizeBytes) : { ...empty, kind: cls.kind };
}

/** Term frequency of `term` in an indexed document (0 when absent). */
export function termFrequency(doc: IndexedDoc, term: string): number {
  const at = doc.terms.indexOf(`\n${term} `);
  if (at === -1) return 0;
  const start = at + term.length + 2;
  return Number.parseInt(doc.terms.slice(start, doc.terms.indexOf('\n', start)), 10);
}

type Row = [number, number, IndexedDoc['kind'], number, number, string, string[]];

/** Path of a project's index file under the clawcode home. */
export function indexPath(homeDir: string, rootDir: string): string {
  return join(homeDir, 'index', `${getProjectHash(rootDir)}.v${INDEX_VERSION}.json`);
}

/**
 * Load a project's index. A missing, unreadable or foreign-version file yields an empty map: the
 * index is a cache, so any problem with it costs time, never correctness.
 */
export function loadIndex(homeDir: string, rootDir: string): Map<string, IndexedDoc> {
  const docs = new Map<string, IndexedDoc>();
  try {
    const raw = JSON.parse(readFileSync(indexPath(homeDir, rootDir), 'utf8')) as { version?: number; docs?: Record<string, Row> };
    if (raw.version !== INDEX_VERSION || !raw.docs) return docs;
    for (const [path, r] of Object.entries(raw.docs)) {
      if (!Array.isArray(r) || typeof r[0] !== 'number' || typeof r[1] !== 'number' || typeof r[5] !== 'string' || !Array.isArray(r[6])) continue;
      docs.set(path, { mtimeMs: r[0], sizeBytes: r[1], kind: r[2], tokens: r[3], lines: r[4], terms: r[5], defs: r[6] });
    }
  } catch {
    // no index yet, or a damaged one: rebuild
  }
  return docs;
}

/**
 * Write a project's index atomically (temp file + rename), so a crash never leaves half a file.
 * @throws never: failing to cache is not an error of the run
 */
export function saveIndex(homeDir: string, rootDir: string, docs: ReadonlyMap<string, IndexedDoc>): void {
  const out: Record<string, Row> = {};
  for (const [p, d] of docs) out[p] = [d.mtimeMs, d.sizeBytes, d.kind, d.tokens, d.lines, d.terms, d.defs];
  const target = indexPath(homeDir, rootDir);
  try {
    mkdirSync(join(homeDir, 'index'), { recursive: true });
    const tmp = `${target}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ version: INDEX_VERSION, root: rootDir, docs: out }));
    renameSync(tmp, target);
  } catch {
    // read-only home or full disk: the next run re-tokenizes
  }
}
