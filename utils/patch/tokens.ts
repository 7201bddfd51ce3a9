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
import { foldUnicode, lineAt, lineEnd, lineKeys, type Candidate, type TextModel } from './text.js';

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
  const strict = regions(model, core, !deletion);
  if (strict === undefined) return undefined;
  const text = deletion ? '' : rcore.replace(/^\s+|\s+$/g, '');
  // Whitespace before find and before replace must agree (both none, or the same): then replace goes where
  // find's first token is. Otherwise whose indentation replace was written in is unknown.
  const leadUnsure = text !== '' && /^\s*/.exec(core)![0] !== /^\s*/.exec(rcore)![0];
  let out = strict.flatMap((c) => {
    if (leadUnsure) return [{ ...c, text, uncertain: 'indent' as const, uncertainLine: 1 }];
    if (deletion || c.firstLine === c.lastLine) return [{ ...c, text }];
    // Over several lines, a replace that changes tokens one for one is written into the file's own layout:
    // the lines it leaves unchanged keep their bytes. Any other replace is the region's new text, written
    // as given, only when the region is whole lines: one that starts or ends inside a line would join that
    // line's untouched text to the lines replace rewrites.
    const rewritten = tokenForToken(model.w.slice(c.start, c.end), core, rcore);
    if (rewritten !== undefined) return [{ ...c, text: rewritten }];
    return wholeLines(model, c) ? [{ ...c, text }] : [];
  });
  // A one-line find over a line the file wraps: the region maps back token for token, and replace changes
  // tokens only (its whitespace is find's), so the changed tokens are written into the file's own layout.
  if (out.length === 0 && !deletion && !core.includes('\n')) {
    // (A line break between two words may end a statement: the file's wrap must fall next to punctuation.)
    out = (regions(model, core, false, false) ?? []).flatMap((c) => {
      const rewritten = tokenForToken(model.w.slice(c.start, c.end), core, rcore);
      return rewritten === undefined ? [] : [{ ...c, text: rewritten }];
    });
  }
  // Line breaks inside a multi-line string are content: there the find's tokens are not the file's.
  const literal = fileLiterals(model);
  out = out.map((c) => {
    for (let i = c.firstLine + 1; i <= c.lastLine; i++)
      if (literal[i]) return { ...c, uncertain: 'literal' as const, uncertainLine: 1 };
    return c;
  });
  if (out.length > MAX_FOUND)
    return { strategy: 'token_stream', candidates: out.slice(0, MAX_FOUND + 1), truncated: true };
  // Only a region over several lines is new here (one line is the inline pass's).
  if (out.length === 0 || out.every((c) => c.firstLine === c.lastLine)) return undefined;
  return { strategy: 'token_stream', candidates: out };
}

/**
 * Every region of the file whose tokens are find's (folded), whole tokens only, with `text` empty. Where find
 * has whitespace the file may have any, line breaks included, unless `sameLine` (spaces and tabs only there;
 * a line break may still stand where find glued two tokens); between two words only with `wordBreaks`. `undefined` when find has no token or its
 * longest word is nowhere in the file (nothing can fit). Stops after `MAX_FOUND + 1` regions.
 */
function regions(model: TextModel, core: string, sameLine: boolean, wordBreaks = !sameLine): Candidate[] | undefined {
  const wordGap = wordBreaks ? '\\s+' : '[ \\t]+';
  const gap = sameLine ? '[ \\t]*' : '\\s*';
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
  const folded = lineKeys(model).foldedText();
  // Cheap refusal first: the find's longest word must be in the file for any region to fit.
  const longest = (tokens.join('').match(/[\p{L}\p{N}_$]+/gu) ?? []).reduce(
    (a, b) => (b.length > a.length ? b : a),
    '',
  );
  if (longest !== '' && !folded.includes(longest)) return undefined;
  const out: Candidate[] = [];
  for (const m of folded.matchAll(new RegExp(pattern, 'gu'))) {
    const start = m.index;
    const end = start + m[0].length;
    // Whole tokens only: the match may not start or end inside a word.
    if (isWord(folded[start - 1] ?? '') && isWord(folded[start]!)) continue;
    if (isWord(folded[end] ?? '') && isWord(folded[end - 1]!)) continue;
    out.push({
      start,
      end,
      firstLine: lineAt(model, start),
      lastLine: lineAt(model, Math.max(start, end - 1)),
      text: '',
    });
    if (out.length > MAX_FOUND) break;
  }
  return out;
}

/** Tokens of a text: runs of word characters, or one other non-space character each, with their offsets. */
function tokenize(s: string): { text: string; start: number; end: number }[] {
  return [...s.matchAll(/[\p{L}\p{N}_$]+|[^\s\p{L}\p{N}_$]/gu)].map((m) => ({
    text: m[0],
    start: m.index,
    end: m.index + m[0].length,
  }));
}

/**
 * The file region `region` with replace's changed tokens written in place of find's, when replace is find
 * with tokens changed one for one (same count, the same whitespace between them, and around) and the region
 * holds find's tokens; `undefined` otherwise.
 */
function tokenForToken(region: string, find: string, replace: string): string | undefined {
  const [f, r, g] = [tokenize(find), tokenize(replace), tokenize(region)];
  if (f.length !== r.length || f.length !== g.length || f.length === 0) return undefined;
  const gaps = (s: string, t: readonly { start: number; end: number }[]) => [
    s.slice(0, t[0]!.start),
    ...t.slice(1).map((x, i) => s.slice(t[i]!.end, x.start)),
    s.slice(t[t.length - 1]!.end),
  ];
  const [fg, rg] = [gaps(find, f), gaps(replace, r)];
  if (fg.some((x, i) => x !== rg[i])) return undefined;
  if (f.some((t, i) => foldUnicode(t.text) !== foldUnicode(g[i]!.text))) return undefined;
  if (f.every((t, i) => t.text === r[i]!.text)) return undefined;
  let out = region;
  for (let i = f.length - 1; i >= 0; i--)
    if (f[i]!.text !== r[i]!.text) out = out.slice(0, g[i]!.start) + r[i]!.text + out.slice(g[i]!.end);
  return out;
}

/** Whether a region begins at its first line's text (after indentation) and ends where its last line does. */
function wholeLines(model: TextModel, c: Candidate): boolean {
  const w = model.w;
  return (
    w.slice(model.lineStarts[c.firstLine]!, c.start).trim() === '' &&
    w.slice(c.end, lineEnd(model, c.lastLine)).trim() === ''
  );
}

function isWord(c: string): boolean {
  return /[\p{L}\p{N}_$]/u.test(c);
}
