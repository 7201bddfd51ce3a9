/**
 * The token-stream pass of the matcher cascade (utils/patch/match.ts): find located by its tokens in order,
 * across line breaks, with whitespace ignored only where it cannot change meaning. A run of whitespace
 * between two word characters must be there (any width, line breaks included) in both the find and the
 * file; next to punctuation it may be missing on either side (`f(){return 1;}` finds `f() {\n  return 1;\n}`).
 * Typographic quotes and dashes are folded. It applies only where the replacement needs no indentation
 * frame: an empty replace (a deletion), or a replace of one line written as given; a region whose line
 * breaks fall inside a multi-line string (where they are content) is refused.
 */
import type { PassOutcome } from './match.js';
import { fileLiterals } from './literal.js';
import { foldUnicode, lineAt, lineKeys, type Candidate, type TextModel } from './text.js';

/** More locations than this and the pass stops counting (the find is ambiguous anyway). */
const MAX_FOUND = 20;

/**
 * Every location whose tokens equal find's (see the module comment), replaced by `rcore`.
 *
 * @param model  the file
 * @param core   find without blank edge lines (LF)
 * @param rcore  replace trimmed like core (LF); must be empty or one line
 * @returns the `token_stream` outcome, or undefined when the pass does not apply or finds nothing
 */
export function tokenStream(model: TextModel, core: string, rcore: string): PassOutcome | undefined {
  if (rcore.includes('\n')) return undefined;
  // A line break may end a statement (Python, shell, Go): where find has whitespace, a replacement spans
  // only spaces and tabs; a line break may stand where find glued two tokens (`){`), and anywhere for a
  // deletion.
  const deletion = rcore.trim() === '';
  const wordGap = deletion ? '\\s+' : '[ \\t]+';
  const gap = deletion ? '\\s*' : '[ \\t]*';
  // Code points, not UTF-16 units: a character outside the BMP is one token character.
  const tokens = Array.from(foldUnicode(core).trim());
  if (tokens.length === 0) return undefined;
  let pattern = '';
  for (let i = 0; i < tokens.length; i++) {
    const c = tokens[i]!;
    if (/\s/.test(c)) {
      const before = tokens[i - 1] ?? '';
      while (/\s/.test(tokens[i + 1] ?? '')) i++;
      pattern += isWord(before) && isWord(tokens[i + 1] ?? '') ? wordGap : gap;
      continue;
    }
    const prev = tokens[i - 1] ?? '';
    if (i > 0 && !/\s/.test(prev) && !(isWord(prev) && isWord(c))) pattern += '\\s*';
    pattern += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  const text = rcore.trim() === '' ? '' : rcore.replace(/^\s+|\s+$/g, '');
  // Whitespace before find and before replace must agree (both none, or the same): then replace goes where
  // find's first token is. Otherwise whose indentation replace was written in is unknown.
  const lead = /^\s*/.exec(core)![0];
  const rlead = /^\s*/.exec(rcore)![0];
  const leadUnsure = text !== '' && lead !== rlead;
  const folded = lineKeys(model).foldedText();
  // Cheap refusal first: the find's longest word must be in the file for any region to fit.
  const longest = (tokens.join('').match(/[\p{L}\p{N}_$]+/gu) ?? []).reduce(
    (a, b) => (b.length > a.length ? b : a),
    '',
  );
  if (longest !== '' && !folded.includes(longest)) return undefined;
  const out: Candidate[] = [];
  const re = new RegExp(pattern, 'gu');
  for (const m of folded.matchAll(re)) {
    const start = m.index;
    const end = start + m[0].length;
    // Whole tokens only: the match may not start or end inside a word.
    if (isWord(folded[start - 1] ?? '') && isWord(folded[start]!)) continue;
    if (isWord(folded[end] ?? '') && isWord(folded[end - 1]!)) continue;
    const firstLine = lineAt(model, start);
    const lastLine = lineAt(model, Math.max(start, end - 1));
    const found: Candidate = { start, end, firstLine, lastLine, text };
    if (leadUnsure) Object.assign(found, { uncertain: 'indent', uncertainLine: 1 });
    // Line breaks inside a multi-line string are content: there the find's tokens are not the file's.
    const literal = fileLiterals(model);
    for (let i = firstLine + 1; i <= lastLine; i++)
      if (literal[i]) Object.assign(found, { uncertain: 'literal', uncertainLine: 1 });
    out.push(found);
    if (out.length > MAX_FOUND) return { strategy: 'token_stream', candidates: out, truncated: true };
  }
  // Only a region over several lines is new here (one line is the inline pass's).
  if (out.length === 0 || out.every((c) => c.firstLine === c.lastLine)) return undefined;
  return { strategy: 'token_stream', candidates: out };
}

function isWord(c: string): boolean {
  return /[\p{L}\p{N}_$]/u.test(c);
}
