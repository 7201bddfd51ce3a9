import type { PackCandidate } from './pack.js';
import type { LineRange } from './regions.js';

/**
 * Block scores raised by the task's evidence, before packing: blocks that hold a line the evidence
 * points at, the body of a located definition, its callers and callees, and the rest of a long
 * definition cut into several blocks.
 */

/** Blocks inside a located definition's body score this share of an anchor; bodies longer than this many lines are cut. */
const BODY_WEIGHT = 0.6;
const MAX_BODY_LINES = 240;
/** A block calling a located function, or defining one it calls, scores this share of an anchor. */
const NEIGHBOUR_BLOCK = 0.3;

/**
 * Raise the scores of blocks the evidence points at: a block holding an anchor line gets the
 * anchor's weight times (best block + 1), so a found error message or a frame's function outranks
 * blocks that merely share words; the callers and callees of located functions get a share of that.
 */
export function anchorScores(
  lines: readonly string[],
  chunks: readonly LineRange[],
  scores: number[],
  c: PackCandidate,
): number[] {
  if (!c.anchors?.length) return scores;
  const top = Math.max(0, ...scores) + 1;
  const out = [...scores];
  const chunkOf = (line: number): number => chunks.findIndex(([a, b]) => a <= line && line <= b);
  const located = new Set<number>();
  for (const a of c.anchors) {
    const i = chunkOf(a.line);
    if (i === -1) continue;
    out[i]! += a.weight * top;
    if (a.weight < 1) continue;
    located.add(i);
    // An anchor on a definition covers the definition's body: the blocks below it that are
    // indented deeper (a long function split into several blocks), up to MAX_BODY_LINES.
    const indent = /^\s*/.exec(lines[a.line - 1] ?? '')![0].length;
    if (!/^\s*(async\s+)?(def|class|function|func|fn)\b|\)\s*(:[^{]*)?\{\s*$/.test(lines[a.line - 1] ?? '')) continue;
    let end = a.line;
    for (let l = a.line + 1; l <= Math.min(lines.length, a.line + MAX_BODY_LINES); l++) {
      const t = lines[l - 1] ?? '';
      if (t.trim() === '') continue;
      if (/^\s*/.exec(t)![0].length <= indent && !/^\s*[)\]}]/.test(t)) break;
      end = l;
    }
    for (let j = i + 1; j < chunks.length && chunks[j]![0] <= end; j++) out[j]! += BODY_WEIGHT * a.weight * top;
  }
  const focus = (c.focus ?? []).filter((f) => /^[\w$]+$/.test(f));
  const callees = new Set<string>();
  for (const i of located) {
    const [a, b] = chunks[i]!;
    for (const m of lines
      .slice(a - 1, b)
      .join('\n')
      .matchAll(/\b([A-Za-z_$][\w$]*)\s*\(/g))
      callees.add(m[1]!);
  }
  chunks.forEach(([a, b], i) => {
    if (located.has(i)) return;
    const head = lines.slice(a - 1, Math.min(b, a + 2)).join('\n');
    const body = lines.slice(a - 1, b).join('\n');
    const definesCallee = [...callees].some((n) =>
      new RegExp(`(def|function|func|fn)\\s+${n.replace(/\$/g, '\\$')}\\b`).test(head),
    );
    const callsFocus = focus.some((n) => new RegExp(`\\b${n.replace(/\$/g, '\\$')}\\s*\\(`).test(body));
    if (definesCallee || callsFocus) out[i]! += NEIGHBOUR_BLOCK * top;
  });
  return out;
}

/**
 * A long definition cut into several blocks is one unit of meaning: the edit is often a few lines below
 * the block that matched. Each block of a definition gets CONTINUATION_SHARE of its best block.
 */
const CONTINUATION_SHARE = 0.5;

export function shareWithinDefinitions(
  chunks: readonly LineRange[],
  cont: readonly boolean[],
  scores: number[],
): number[] {
  const out = [...scores];
  for (let i = 0; i < chunks.length;) {
    let j = i + 1;
    while (j < chunks.length && cont[j]) j++;
    if (j - i > 1) {
      const best = Math.max(...scores.slice(i, j));
      for (let k = i; k < j; k++) out[k] = Math.max(out[k]!, CONTINUATION_SHARE * best);
    }
    i = j;
  }
  return out;
}
