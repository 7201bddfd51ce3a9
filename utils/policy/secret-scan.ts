/**
 * Where in a text the secret rules need to look: which rule keywords occur at all, and the lines around them.
 * Redaction runs on every text that is sent, so a rule with a rare keyword must not scan megabytes for it.
 */

import { countBelow } from '../sorted.js';

/** What the scan needs to know of a rule. */
export interface ScannedRule {
  /** lower-case words, one of which every match contains; empty = always run on the whole text */
  keywords: readonly string[];
  /** a match can span many lines: run on the whole text, not on the lines around its keywords */
  multiline?: boolean;
}

/**
 * Which runs of three ASCII characters the last text holds, hashed into 2^16 slots: a slot is set for
 * this text when it holds `stamp` (reused across texts, so nothing is cleared between them).
 */
const tripleSeen = new Int32Array(1 << 16);
let stamp = 0;

/** Slot of the three ASCII character codes a, b, c in `tripleSeen`. */
const tripleSlot = (a: number, b: number, c: number): number => ((a << 9) ^ (b << 5) ^ c ^ (a >> 3)) & 0xffff;

/**
 * The keywords that occur in `lower`, each tested once per text rather than once per rule. A keyword
 * is searched for only when each run of three ASCII characters in it occurs somewhere in the text (one
 * pass over the text fills a table of them): a necessary condition, so the result is exactly what
 * `lower.includes` finds for every keyword, while most of the 250 keywords are ruled out without a
 * search (a search for a keyword whose first letter is common costs ~10 ns per character).
 */
export function presentKeywords(lower: string, keywords: readonly string[]): Set<string> {
  stamp = stamp === 0x7fffffff ? 1 : stamp + 1;
  if (stamp === 1) tripleSeen.fill(0);
  for (let i = 2, a = lower.charCodeAt(0), b = lower.charCodeAt(1); i < lower.length; i++) {
    const c = lower.charCodeAt(i);
    if ((a | b | c) < 128) tripleSeen[tripleSlot(a, b, c)] = stamp;
    a = b;
    b = c;
  }
  const present = new Set<string>();
  for (const k of keywords) {
    let possible = true;
    for (let i = 2; i < k.length && possible; i++) {
      const a = k.charCodeAt(i - 2);
      const b = k.charCodeAt(i - 1);
      const c = k.charCodeAt(i);
      if ((a | b | c) < 128 && tripleSeen[tripleSlot(a, b, c)] !== stamp) possible = false;
    }
    if (possible && lower.includes(k)) present.add(k);
  }
  return present;
}

let lastText: { text: string; breaks: number[] } | undefined;

/** Offsets of every `\n` in `text` (computed once per text). */
function lineBreaks(text: string): number[] {
  if (lastText?.text === text) return lastText.breaks;
  const breaks: number[] = [];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) breaks.push(i);
  lastText = { text, breaks };
  return breaks;
}

/**
 * The parts of `text` a keyword rule needs to see: each line holding one of its keywords and the line
 * after it (a match may run onto the next line), merged; the whole text for rules that span many lines,
 * or when the parts would cover most of it anyway. Every match of these rules contains a keyword, so
 * nothing is missed, and a rule with a common keyword no longer scans megabytes for one hit.
 *
 * @param inText  the keywords that occur in `lower` (from presentKeywords)
 * @returns [from, to) character ranges of `text`, in order; empty when no keyword occurs
 */
export function keywordWindows(
  text: string,
  lower: string,
  rule: ScannedRule,
  inText: ReadonlySet<string>,
): (readonly [number, number])[] {
  if (rule.keywords.length === 0) return [[0, text.length]];
  const present = rule.keywords.filter((k) => inText.has(k));
  if (present.length === 0) return [];
  if (rule.multiline || lower.length !== text.length) return [[0, text.length]];
  const breaks = lineBreaks(text);
  const spans: [number, number][] = [];
  for (const k of present) {
    for (let at = lower.indexOf(k); at !== -1; at = lower.indexOf(k, at + k.length)) {
      // breaks[i] is the first line break at or after `at`: the window runs from the line start to the next line's end.
      const i = countBelow(breaks, at);
      spans.push([i === 0 ? 0 : breaks[i - 1]! + 1, breaks[i + 1] ?? text.length]);
      if (spans.length > 256) return [[0, text.length]]; // a common keyword: one pass is cheaper
    }
  }
  spans.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  let covered = 0;
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push([...span]);
  }
  for (const [from, to] of merged) covered += to - from;
  return covered > text.length / 2 ? [[0, text.length]] : merged;
}
