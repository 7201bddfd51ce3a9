/**
 * The text model behind the patch engine: a file's content with its BOM and CRLF line endings taken out
 * (the "working text"), its lines, per-line comparison keys, and the map from working-text offsets back to
 * raw offsets. Matching happens on the working text; splicing happens on the raw text, so bytes outside a
 * matched span are never touched.
 */
import type { LexState } from './literal.js';
import { countBelow } from '../sorted.js';

/** A file's content prepared for matching. Offsets into `w` are "working offsets". */
export interface TextModel {
  /** The content exactly as given. */
  readonly raw: string;
  /** `'\uFEFF'` when the content starts with a byte order mark, else `''`. */
  readonly bom: string;
  /** The content without BOM, with every `\r\n` turned into `\n`. */
  readonly w: string;
  /** Working offsets of the `\n` characters that were `\r\n` in `raw`, ascending. */
  readonly crlfAt: readonly number[];
  /** `w` split on `\n`. */
  readonly lines: readonly string[];
  /** Working offset where each line starts. */
  readonly lineStarts: readonly number[];
  /** The dominant line ending of the file: CRLF when it has more `\r\n` than lone `\n`. */
  readonly eol: '\n' | '\r\n';
  /** Lazily built per-line comparison keys and indexes (see `lineKeys`). */
  keys?: LineKeys;
  /** Lazily built: whether each line begins inside a multi-line string (utils/patch/literal.ts). */
  literal?: boolean[];
  /** Lazily built with `literal`: the lexer state each line begins in. */
  lexStates?: LexState[];
}

/** Per-line comparison keys of a file, built once and shared by every pass. */
export interface LineKeys {
  /** Trailing whitespace removed. */
  readonly rstrip: readonly string[];
  /** Unicode-folded, trailing whitespace removed (indentation kept). */
  readonly folded: readonly string[];
  /** Unicode-folded and trimmed on both sides: the "content" of a line. */
  readonly content: readonly string[];
  /** Leading whitespace of each line. */
  readonly indent: readonly string[];
  /** Line indexes by `content` key, ascending. */
  readonly byContent: ReadonlyMap<string, readonly number[]>;
  /** The working text with typographic characters folded one for one (same length and offsets as `w`). */
  foldedText(): string;
}

/** Parse content into a text model. Pure; O(n) in characters. */
export function makeTextModel(raw: string): TextModel {
  const bom = raw.startsWith('\uFEFF') ? '\uFEFF' : '';
  const body = bom ? raw.slice(1) : raw;
  const crlfAt: number[] = [];
  let w = body;
  if (body.includes('\r\n')) {
    const parts = body.split('\r\n');
    let offset = 0;
    for (let i = 0; i < parts.length - 1; i++) {
      offset += parts[i]!.length;
      crlfAt.push(offset);
      offset += 1;
    }
    w = parts.join('\n');
  }
  const lines = w.split('\n');
  const lineStarts: number[] = new Array<number>(lines.length);
  let pos = 0;
  for (let i = 0; i < lines.length; i++) {
    lineStarts[i] = pos;
    pos += lines[i]!.length + 1;
  }
  const lfCount = lines.length - 1 - crlfAt.length;
  return { raw, bom, w, crlfAt, lines, lineStarts, eol: crlfAt.length > lfCount ? '\r\n' : '\n' };
}

/** Whether the file mixes LF and CRLF line endings (a file with one kind throughout, or none, does not). */
export function mixedEndings(model: TextModel): boolean {
  return model.crlfAt.length !== 0 && model.crlfAt.length !== model.lines.length - 1;
}

/** Map a working offset to the raw offset of the same position. */
export function rawOffset(model: TextModel, w: number): number {
  return model.bom.length + w + countBelow(model.crlfAt, w);
}

/** The 0-based line index holding working offset `w`. */
export function lineAt(model: TextModel, w: number): number {
  const starts = model.lineStarts;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= w) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Working offset just past the last character of line `i` (before its `\n`). */
export function lineEnd(model: TextModel, i: number): number {
  return model.lineStarts[i]! + model.lines[i]!.length;
}

/**
 * The line ending to write inside a span: the majority ending of the newlines in the span, or the file's
 * dominant ending when the span holds none (keeps mixed files as they are around an edit).
 */
export function eolForSpan(model: TextModel, start: number, end: number): '\n' | '\r\n' {
  const firstLine = lineAt(model, start);
  const lastLine = lineAt(model, end);
  const newlines = lastLine - firstLine;
  if (newlines === 0) return model.eol;
  const crlf = countBelow(model.crlfAt, end) - countBelow(model.crlfAt, start);
  if (crlf * 2 === newlines) return model.eol;
  return crlf * 2 > newlines ? '\r\n' : '\n';
}

/** The raw line ending after line `i` (`\n` or `\r\n`); `\n` for the last line. */
export function lineEnding(model: TextModel, i: number): '\n' | '\r\n' {
  const at = lineEnd(model, i);
  const k = countBelow(model.crlfAt, at);
  return model.crlfAt[k] === at ? '\r\n' : '\n';
}

// Typographic characters models swap in for ASCII ones (Codex `seek_sequence.rs` list, plus U+2212 and
// the odd spaces). Zero-width characters and the BOM are dropped.
const FOLD: Record<string, string> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201A': "'",
  '\u201B': "'",
  '\u2032': "'",
  '\u201C': '"',
  '\u201D': '"',
  '\u201E': '"',
  '\u201F': '"',
  '\u2033': '"',
  '\u00AB': '"',
  '\u00BB': '"',
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2013': '-',
  '\u2014': '-',
  '\u2015': '-',
  '\u2212': '-',
  '\u00A0': ' ',
  '\u2002': ' ',
  '\u2003': ' ',
  '\u2004': ' ',
  '\u2005': ' ',
  '\u2006': ' ',
  '\u2007': ' ',
  '\u2008': ' ',
  '\u2009': ' ',
  '\u200A': ' ',
  '\u202F': ' ',
  '\u205F': ' ',
  '\u3000': ' ',
  '\u2000': ' ',
  '\u2001': ' ',
  '\u200B': '',
  '\u200C': '',
  '\u200D': '',
  '\u2060': '',
  '\uFEFF': '',
};
const FOLD_CLASS =
  '[\u2018\u2019\u201A\u201B\u2032\u201C-\u201F\u2033\u00AB\u00BB\u2010-\u2015\u2212\u00A0\u2000-\u200D\u202F\u205F\u2060\u3000\uFEFF]';
const FOLD_RE = new RegExp(FOLD_CLASS, 'g');
const FOLD_TEST = new RegExp(FOLD_CLASS);

/** Fold typographic quotes, dashes and odd spaces to ASCII; drop zero-width characters. */
export function foldUnicode(s: string): string {
  return FOLD_TEST.test(s) ? s.replace(FOLD_RE, (c) => FOLD[c] ?? c) : s;
}

/** Remove trailing spaces, tabs and other whitespace (including a stray `\r`). */
export function rstrip(s: string): string {
  let end = s.length;
  for (;;) {
    const c = s.charCodeAt(end - 1);
    // ASCII whitespace by hand (the common case, and the regex is slow on long lines); the rest by `\s`.
    if (c === 32 || (c >= 9 && c <= 13)) end--;
    else if (c > 127 && /\s/.test(s[end - 1]!)) end--;
    else break;
  }
  return end === s.length ? s : s.slice(0, end);
}

/** The leading run of spaces and tabs. */
export function indentOf(s: string): string {
  let i = 0;
  while (i < s.length && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9)) i++;
  return s.slice(0, i);
}

/** Key of a line with indentation kept: folded, trailing whitespace removed. */
export function foldedKey(s: string): string {
  return rstrip(foldUnicode(s));
}

/** Key of a line's content: folded and trimmed on both sides. */
export function contentKey(s: string): string {
  return foldUnicode(s).trim();
}

/** Build (once) and return the per-line keys of a model. */
export function lineKeys(model: TextModel): LineKeys {
  if (model.keys) return model.keys;
  const n = model.lines.length;
  const rs: string[] = new Array<string>(n);
  const folded: string[] = new Array<string>(n);
  const content: string[] = new Array<string>(n);
  const indent: string[] = new Array<string>(n);
  const byContent = new Map<string, number[]>();
  for (let i = 0; i < n; i++) {
    const line = model.lines[i]!;
    rs[i] = rstrip(line);
    folded[i] = rstrip(foldUnicode(line));
    content[i] = folded[i]!.trim();
    indent[i] = indentOf(line);
    const list = byContent.get(content[i]!);
    if (list) list.push(i);
    else byContent.set(content[i]!, [i]);
  }
  let foldedText: string | undefined;
  model.keys = {
    rstrip: rs,
    folded,
    content,
    indent,
    byContent,
    foldedText: () =>
      (foldedText ??= FOLD_TEST.test(model.w)
        ? model.w.replace(FOLD_RE, (c) => (FOLD[c]?.length === 1 ? FOLD[c]! : c))
        : model.w),
  };
  return model.keys;
}

/**
 * Key of a line with whitespace that cannot change its meaning taken out: folded, trimmed, a run of spaces
 * and tabs between two word characters written as one space, any other run removed (`a = b` → `a=b`).
 */
export function squashKey(s: string): string {
  const t = foldUnicode(s).trim();
  return t.replace(/[ \t]+/g, (run, at: number) =>
    WORD.test(t[at - 1] ?? '') && WORD.test(t[at + run.length] ?? '') ? ' ' : '',
  );
}
const WORD = /[\p{L}\p{N}_$]/u;

/** Fewer non-whitespace characters than this and only the exact passes run (Gemini CLI and Aider use 10). */
export const SHORT_FIND_CHARS = 10;

/** Count of non-whitespace characters. */
export function nonWsLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) n++;
  }
  return n;
}

/** One location where a pass matched, in working offsets (see `TextModel`). */
export interface Candidate {
  /** Working offset of the first matched character. */
  start: number;
  /** Working offset just past the last matched character. */
  end: number;
  /** 0-based first and last line of the span. */
  firstLine: number;
  lastLine: number;
  /** Replacement for the span, in working text (LF line endings). */
  text: string;
  /** Set when a replacement line could not be written with certainty: its 1-based line in replace. */
  uncertainLine?: number;
  /**
   * Why: its indentation in the file's frame is unknown, it sits inside a multi-line string, blank lines, or
   * the spacing inside a line it keeps differs from the file's.
   */
  uncertain?: 'indent' | 'literal' | 'blank' | 'spacing';
  /** For each line of `text`, the file line copied verbatim into it (its own line ending is kept). */
  sources?: readonly (number | undefined)[];
}

/** A whole-line span from line `first` to line `last` (inclusive) replaced by `text`. */
export function spanCandidate(model: TextModel, first: number, last: number, text: string): Candidate {
  return { start: model.lineStarts[first]!, end: lineEnd(model, last), firstLine: first, lastLine: last, text };
}
