/**
 * Find and replace as copied from a view of the file rather than from the file: with the line numbers of a
 * numbered view, inside a markdown code fence, or double-encoded (escaped newlines and quotes). The cascade
 * (match.ts) runs once more on the text these functions give back when the find as written matches nowhere.
 */

/**
 * Find and replace without line-number prefixes copied from a numbered view (`12 | code`, `12\tcode`,
 * `  12→code`), when EVERY line of find has one and the numbers count up by one; replace loses its prefixes
 * only when every line of it has one too. `undefined` when find is not such a copy.
 */
export function stripLineNumbers(find: string, replace: string): { find: string; replace: string } | undefined {
  // A line break after the last numbered line ends that line; it carries no number of its own.
  const fEnd = find.endsWith('\n') ? '\n' : '';
  const rEnd = replace.endsWith('\n') ? '\n' : '';
  const f = find.slice(0, find.length - fEnd.length).split('\n');
  const rBody = replace.slice(0, replace.length - rEnd.length);
  const r = rBody === '' ? [] : rBody.split('\n');
  // One numbered line is too easily real text (`1 | 2`): only with replace numbered too, or empty.
  if (f.length < 2 && !/^\s*\d+(?:→|\t)/.test(f[0]!) && r.length > 0 && !r.every((l) => LINE_NUMBER.test(l)))
    return undefined;
  const strip = (lines: readonly string[], consecutive: boolean): string[] | undefined => {
    let style: string | undefined;
    let prevNo: number | undefined;
    const out: string[] = [];
    for (const line of lines) {
      const m = LINE_NUMBER.exec(line);
      if (!m) return undefined;
      const sep = m[2]!.trim() === '' ? 'tab' : m[2]!.trim();
      if (style !== undefined && sep !== style) return undefined;
      style = sep;
      const n = Number(m[1]);
      if (consecutive && prevNo !== undefined && n !== prevNo + 1) return undefined;
      prevNo = n;
      out.push(line.slice(m[0].length));
    }
    return out;
  };
  const fl = strip(f, true);
  if (!fl) return undefined;
  const rl = r.length > 0 ? strip(r, false) : [];
  // Replace with some numbered lines and some not: which prefixes are text is unknown (refused).
  if (!rl && r.some((l) => LINE_NUMBER.test(l))) return undefined;
  return { find: fl.join('\n') + fEnd, replace: (rl ?? r).join('\n') + rEnd };
}

/** `12 | `, `12| `, `12\t`, `  12→` at the start of a line (the separator's own single space is part of it). */
const LINE_NUMBER = /^\s*(\d+)( ?\| ?|\t|→)/;

/**
 * Replace as the model meant it, given that its find was escaped: as written when it has no escape at all,
 * unescaped when it is escaped the same way (no bare character of a kind find escaped: a real newline where
 * find wrote `\\n`, a bare `"` where find wrote `\\"`), else undefined (which reading is meant is unknown).
 */
export function unescapedReplace(find: string, replace: string): string | undefined {
  if (!ESCAPE.test(replace)) return replace;
  const bare = replace.replace(/\\[nt"'`$\\]/g, '');
  for (const m of find.matchAll(/\\([nt"'`$])/g)) {
    const c = m[1] === 'n' ? '\n' : m[1] === 't' ? '\t' : m[1]!;
    if (bare.includes(c)) return undefined;
  }
  return unescapeText(replace);
}

/** An escape a double-encoded find holds: `\\n`, `\\t`, a quote, `\\$` or a backslash. */
export const ESCAPE = /\\[nt"'`$\\]/;

/**
 * `\\n` → newline, `\\t` → tab, `\\"` `\\'` `\\`` → the quote, `\\$` → `$`, `\\\\` → one backslash; other
 * text as is.
 */
export function unescapeText(s: string): string {
  return s.replace(/\\([nt"'`$\\])/g, (_m, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c));
}

/**
 * Find and replace without the markdown fence lines (```` ``` ````, ```` ```ts ````) a model copied around
 * them from its own answer: find loses a fence line at its first and/or last line, replace loses a fence
 * line at the same edge when it has one there. `undefined` when find has none, or is nothing else.
 */
export function stripFences(find: string, replace: string): { find: string; replace: string } | undefined {
  const f = find.split('\n');
  const r = replace.split('\n');
  const open = FENCE.test(f[0]!);
  const close =
    f.length > 1 && FENCE.test(f[f.length - 1]!.trim() === '' && f.length > 2 ? f[f.length - 2]! : f[f.length - 1]!);
  if (!open && !close) return undefined;
  const cut = (lines: string[], strict: boolean): string[] | undefined => {
    let out = lines;
    if (open && FENCE.test(out[0] ?? '')) out = out.slice(1);
    else if (open && strict) return undefined;
    // A fence line may be followed by the find's own final line break (an empty last element).
    const tail = out[out.length - 1] === '' ? 1 : 0;
    if (close && FENCE.test(out[out.length - 1 - tail] ?? ''))
      out = [...out.slice(0, out.length - 1 - tail), ...out.slice(out.length - tail)];
    else if (close && strict) return undefined;
    return out;
  };
  const fl = cut(f, true);
  if (!fl || fl.join('').trim() === '') return undefined;
  return { find: fl.join('\n'), replace: cut(r, false)!.join('\n') };
}

/** A markdown fence line: three or more backticks, maybe a language name. */
const FENCE = /^\s*`{3,}[\w+#.-]*\s*$/;

/**
 * Find and replace with only their quote escapes read (`\\'` → `'`, `\\"` → `"`), the other escapes left as
 * they are (a `\\n` in code stays two characters): for a find written with escaped quotes where the file has
 * plain ones. Replace is read so when it escapes quotes the same way (no bare quote of a kind find escaped:
 * `'it\\'s'` is code as it stands), else `undefined`; also `undefined` when find has no quote escape.
 */
export function unescapeQuotes(find: string, replace: string): { find: string; replace: string } | undefined {
  if (!/\\['"]/.test(find)) return undefined;
  const read = (s: string) => s.replace(/\\(['"])/g, '$1');
  const bare = (s: string) => s.replace(/\\['"]/g, '');
  for (const m of find.matchAll(/\\(['"])/g))
    if (bare(find).includes(m[1]!) || bare(replace).includes(m[1]!)) return undefined;
  return { find: read(find), replace: read(replace) };
}
