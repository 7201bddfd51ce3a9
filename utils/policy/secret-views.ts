/**
 * What a text says, as well as how it is written. A key split into string literals joined by `+` (or by nothing,
 * as Python and C join adjacent literals), a literal spelled with escapes (`"\u0073k-…"`, a JSON string holding
 * JSON), a key encoded as base64, hex or percent-escapes, or one with invisible characters inside it reaches a
 * model whole: the model reads it as the program would. The redactor therefore also scans these *views* of a text,
 * each a derived text with a map from its characters back to the original, and redacts in the original what a
 * view reveals.
 */

/** A derived text and, for each of its characters, the original span it came from. */
export interface View {
  text: string;
  /** original offset where view character i starts */
  starts: Int32Array;
  /** original offset where view character i ends (exclusive) */
  ends: Int32Array;
}

/** At most this many literal runs and encoded runs are scanned per text (each is a small scan of its own). */
const MAX_VIEWS = 4_000;
/** Characters of a line kept before a joined literal, so the name it is assigned to is read with it. */
const PREFIX_CHARS = 120;

/** A view built piece by piece: each piece of text with the original span of every character. */
class ViewBuilder {
  private text = '';
  private starts: number[] = [];
  private ends: number[] = [];

  /** Append `text` copied from the original at `at` (one view character per original character). */
  copy(text: string, at: number): void {
    this.text += text;
    for (let i = 0; i < text.length; i++) {
      this.starts.push(at + i);
      this.ends.push(at + i + 1);
    }
  }

  /** Append one character that stands for the original span [start, end). */
  add(char: string, start: number, end: number): void {
    for (let i = 0; i < char.length; i++) {
      this.text += char[i];
      this.starts.push(start);
      this.ends.push(end);
    }
  }

  done(): View {
    return { text: this.text, starts: Int32Array.from(this.starts), ends: Int32Array.from(this.ends) };
  }
}

const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', 0: '\0' };

/**
 * Decode the content of one string literal (JSON, JavaScript, Python and C escapes: `\uXXXX`, `\u{…}`, `\xXX`,
 * `\n`, `\"`, `\/`…) into `out`, each decoded character mapped to its escape in the original.
 */
function decodeLiteral(content: string, at: number, out: ViewBuilder): void {
  for (let i = 0; i < content.length; i++) {
    const c = content[i]!;
    if (c !== '\\' || i + 1 >= content.length) {
      out.add(c, at + i, at + i + 1);
      continue;
    }
    const next = content[i + 1]!;
    const hex =
      next === 'u' && content[i + 2] === '{'
        ? /^u\{([0-9a-fA-F]{1,6})\}/.exec(content.slice(i + 1, i + 11))
        : next === 'u'
          ? /^u([0-9a-fA-F]{4})/.exec(content.slice(i + 1, i + 6))
          : next === 'x'
            ? /^x([0-9a-fA-F]{2})/.exec(content.slice(i + 1, i + 4))
            : null;
    if (hex) {
      const code = parseInt(hex[1]!, 16);
      out.add(code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd', at + i, at + i + 1 + hex[0].length);
      i += hex[0].length;
    } else {
      out.add(SIMPLE_ESCAPES[next] ?? next, at + i, at + i + 2);
      i++;
    }
  }
}

/** One string literal: `"…"`, `'…'`, or a template literal whose every `${…}` holds a string literal. */
const LITERAL =
  /"((?:[^"\\\n]|\\.){0,4000})"|'((?:[^'\\\n]|\\.){0,4000})'|`((?:[^`\\$]|\\.|\$(?!\{)|\$\{\s*(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')\s*\}){0,4000})`/g;
/** What joins two literals into one string: blanks and at most one operator (`+`, PHP `.`, Lua `..`, VB `&`, D `~`). */
const GLUE = /^\s{0,200}(?:\+|\.\.?|&|~)?\s{0,200}$/;
/** Escapes that stand for a character a rule reads: a code point, a quote, a slash. */
const HIDING_ESCAPE = /\\(?:u[0-9a-fA-F{]|x[0-9a-fA-F]|["'/])/;
/** An interpolation of a string literal inside a template literal. */
const INTERPOLATED = /\$\{\s*(["'])((?:(?!\1)[^\\\n]|\\.)*)\1\s*\}/g;

/** Append a template literal's content: its text, and each `${"literal"}` as the literal's content. */
function decodeTemplate(content: string, at: number, out: ViewBuilder): void {
  let last = 0;
  for (const m of content.matchAll(INTERPOLATED)) {
    decodeLiteral(content.slice(last, m.index), at + last, out);
    decodeLiteral(m[2]!, at + m.index + m[0].indexOf(m[1]!) + 1, out);
    last = m.index + m[0].length;
  }
  decodeLiteral(content.slice(last), at + last, out);
}

/**
 * Views of string literals as the program reads them: each run of literals joined by concatenation (two or more)
 * and each literal written with escapes, decoded and joined into one literal, after the text its line holds
 * before it (so `KEY = "sk-" + "…"` reads `KEY = "sk-…"`).
 */
function literalViews(text: string, views: View[]): void {
  let run: RegExpExecArray[] = [];
  const flush = (): void => {
    // One literal is worth a view only when its escapes hide characters or quotes (`\u0073`, `\x73`, `\"` of JSON
    // inside JSON, `\/` of a URL) or a template interpolates a literal; `\n` and `\t` alone change nothing a rule reads.
    const escaped = run.some((m) => HIDING_ESCAPE.test(m[0]) || (m[3] !== undefined && m[3].includes('${')));
    if (run.length >= 2 || (run.length === 1 && escaped)) {
      const first = run[0]!;
      // Looked for among the last PREFIX_CHARS only: a minified line of many literals stays linear.
      const from = Math.max(0, first.index - PREFIX_CHARS);
      const lineStart = from + text.slice(from, first.index).lastIndexOf('\n') + 1;
      const out = new ViewBuilder();
      out.copy(text.slice(lineStart, first.index + 1), lineStart);
      for (const m of run) {
        const content = m[1] ?? m[2] ?? m[3] ?? '';
        if (m[3] !== undefined) decodeTemplate(content, m.index + 1, out);
        else decodeLiteral(content, m.index + 1, out);
      }
      const last = run[run.length - 1]!;
      out.copy(last[0][0]!, last.index + last[0].length - 1);
      if (views.length < MAX_VIEWS) views.push(out.done());
    }
    run = [];
  };
  for (const m of text.matchAll(LITERAL)) {
    if (views.length >= MAX_VIEWS) return;
    const previous = run[run.length - 1];
    if (previous) {
      const glue = text.slice(previous.index + previous[0].length, m.index);
      // Across a line break with no operator, a literal followed by `:` is the next key of a map, not more string.
      const key = glue.includes('\n') && !/[+.&~]/.test(glue) && /^[ \t]*:/.test(text.slice(m.index + m[0].length));
      if (!GLUE.test(glue) || key) flush();
    }
    run.push(m);
  }
  flush();
}

/** Whether decoded bytes read as text: printable ASCII, blanks and line breaks only. */
function printable(decoded: string): boolean {
  return decoded.length >= 8 && !/[^\x20-\x7e\t\r\n]/.test(decoded);
}

/** Runs that may be base64 (standard or URL-safe) or hex: each character is read by one match only. */
const BASE64_RUN = /[A-Za-z0-9+/_-]{16,}={0,2}/g;
/** Runs of URL characters; those with two or more percent-escapes are decoded. */
const URL_RUN = /[A-Za-z0-9._~+%-]{6,}/g;

/**
 * Whether a base64 run can decode to ASCII text: the first character of each group of four carries the top bit
 * of a byte, so it is one of the first 32 letters of the alphabet (`A`–`Z`, `a`–`f`). Most identifiers fail
 * this before anything is decoded.
 */
function asciiBase64(run: string): boolean {
  for (let i = 0; i + 4 <= run.length; i += 4) {
    const c = run.charCodeAt(i);
    if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/**
 * Decode a percent-escaped run into `out`, each decoded character mapped to its escape (`%2D` → `-`), the other
 * characters to themselves. @returns false when an escape is not UTF-8 or a character is not printable
 */
function percentDecode(run: string, at: number, out: ViewBuilder): boolean {
  for (const part of run.matchAll(/(?:%[0-9A-Fa-f]{2})+|[^%]+/g)) {
    if (!part[0].startsWith('%')) {
      out.copy(part[0], at + part.index);
      continue;
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(part[0]);
    } catch {
      return false;
    }
    if (!printable(decoded.padEnd(8))) return false;
    // A multi-byte character stands for all of its escapes; single bytes map one escape each.
    if (decoded.length * 3 === part[0].length)
      for (let i = 0; i < decoded.length; i++)
        out.add(decoded[i]!, at + part.index + 3 * i, at + part.index + 3 * i + 3);
    else for (const char of decoded) out.add(char, at + part.index, at + part.index + part[0].length);
  }
  return true;
}

/**
 * Views of encoded runs that decode to printable text: the decoded text, every character of it standing for the
 * whole run (a base64 `c2stcHJvai1…` that decodes to an OpenAI key is redacted whole).
 */
function encodedViews(text: string, views: View[]): void {
  for (const m of text.matchAll(BASE64_RUN)) {
    if (views.length >= MAX_VIEWS) return;
    const run = m[0];
    let decoded: string | undefined;
    if (/^[0-9a-fA-F]+$/.test(run) && run.length % 2 === 0) decoded = Buffer.from(run, 'hex').toString('latin1');
    else if (/[0-9]/.test(run) && /[a-z]/.test(run) && /[A-Z]/.test(run) && asciiBase64(run.replace(/=+$/, '')))
      decoded = Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1');
    if (decoded === undefined || !printable(decoded)) continue;
    const out = new ViewBuilder();
    for (const char of decoded) out.add(char, m.index, m.index + run.length);
    views.push(out.done());
  }
  if (!text.includes('%')) return;
  for (const m of text.matchAll(URL_RUN)) {
    if (views.length >= MAX_VIEWS) return;
    if (!/%[0-9A-Fa-f]{2}.*%[0-9A-Fa-f]{2}/.test(m[0])) continue;
    const out = new ViewBuilder();
    if (percentDecode(m[0], m.index, out)) views.push(out.done());
  }
}

/** Characters that render as nothing: soft hyphen, zero-width space/joiners, word joiner, BOM, bidi controls. */
const INVISIBLE = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/** The text without invisible characters, each kept character mapped to itself. */
function visibleView(text: string, views: View[]): void {
  if (!INVISIBLE.test(text)) return;
  const out = new ViewBuilder();
  for (let i = 0; i < text.length; i++) if (!INVISIBLE.test(text[i]!)) out.add(text[i]!, i, i + 1);
  views.push(out.done());
}

/**
 * The views of `text` worth scanning besides the text itself: its string literals joined and decoded, its
 * encoded runs decoded, and the text without invisible characters. Most texts yield few (code with concatenated
 * or escaped literals); each is a short text, at most {@link MAX_VIEWS} of them.
 *
 * @param text  a text about to be sent
 * @returns the views, each with its map back to `text` offsets
 */
export function derivedViews(text: string): View[] {
  const views: View[] = [];
  visibleView(text, views);
  literalViews(text, views);
  encodedViews(text, views);
  return views;
}
