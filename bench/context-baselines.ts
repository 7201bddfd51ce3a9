import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { indexText } from '../agent/context/search-index.js';
import { wholeFileText } from '../agent/context/pack-text.js';
import type { RankDoc } from '../agent/context/rank.js';
import { rankAndPack, type ContextFile } from '../agent/context/select.js';
import { scanProject } from '../agent/context/scan.js';
import { classifyContent } from '../agent/context/scan-rules.js';

/**
 * The two baselines clawcode's selector is compared against, run side by side with it:
 * a keyword scorer (`referenceSelect`) and plain code-aware BM25 over whole files.
 */

/** The keyword scorer's text extensions (common source and text extensions) and its 500-file cap. */
const TEXT_EXT =
  /\.(ts|tsx|js|jsx|mjs|cjs|json|md|py|go|rs|java|rb|php|c|h|cpp|hpp|cs|css|scss|html|yml|yaml|toml|txt|sh|vue|svelte)$|(^|\/)Dockerfile$/;
const MAX_FILES = 500;

/** Loaded tree for the baselines: text files with content, in scan order. */
export interface LoadedTree {
  files: { path: string; text: string }[];
}

/** Read a tree's text files once (shared by both baselines). */
export async function loadTree(root: string): Promise<LoadedTree> {
  const scan = await scanProject(root);
  const files: LoadedTree['files'] = [];
  for (const f of scan.files) {
    try {
      const cls = classifyContent(readFileSync(join(root, f.path)));
      if (cls.kind === 'text') files.push({ path: f.path, text: cls.text });
    } catch {
      // unreadable: not a candidate for either baseline
    }
  }
  return { files };
}

/**
 * The reference scorer: each task keyword adds +10 when in the path and +2 when in the content,
 * minus min(size/1000, 5); whole files greedily under the budget, at most 12; first 500 files only.
 */
export function referenceSelect(task: string, tree: LoadedTree, budgetChars: number): ContextFile[] {
  const keywords = [
    ...new Set(
      task
        .toLowerCase()
        .split(/[^a-z0-9_]+/)
        .filter((w) => w.length > 2),
    ),
  ];
  const pool = tree.files.filter((f) => TEXT_EXT.test(f.path)).slice(0, MAX_FILES);
  const scored = pool.map((f) => {
    const p = f.path.toLowerCase();
    const c = f.text.toLowerCase();
    let s = 0;
    for (const k of keywords) {
      if (p.includes(k)) s += 10;
      if (c.includes(k)) s += 2;
    }
    return { f, s: s - Math.min(f.text.length / 1000, 5) };
  });
  scored.sort((a, b) => b.s - a.s);
  const out: ContextFile[] = [];
  let used = 0;
  for (const { f, s } of scored) {
    if (out.length >= 12) break;
    const text = wholeFileText(f.path, f.text);
    if (used + text.length > budgetChars) continue;
    out.push({ path: f.path, score: s, chars: text.length, ranges: null, text });
    used += text.length;
  }
  return out;
}

/** Plain BM25 (code-aware tokens) over whole files, greedy under the budget. */
export function bm25Select(
  task: string,
  tree: LoadedTree,
  budgetChars: number,
  docs?: RankDoc[],
): { files: ContextFile[]; docs: RankDoc[] } {
  const d = docs ?? tree.files.map((f) => ({ path: f.path, doc: indexText(f.text, 0, f.text.length) }));
  const texts = new Map(tree.files.map((f) => [f.path, f.text]));
  const sel = rankAndPack(task, d, {
    budgetChars,
    readText: (p) => texts.get(p) ?? null,
    plainBm25: true,
    wholeOnly: true,
  });
  return { files: sel.files, docs: d };
}
