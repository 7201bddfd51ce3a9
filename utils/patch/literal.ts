/**
 * Where whitespace is content: the lines of a text that begin inside a multi-line string literal (a Python
 * docstring or `"""`/`'''` string, a backtick template literal or Go raw string, a Rust raw string, a C#
 * verbatim string, a shell heredoc, a PowerShell here-string). The indentation of such a line belongs to the
 * string, so a relaxed pass must never re-indent a new line there (only an exact-indent match is safe).
 *
 * A small lexer, not a parser: it knows line comments (`//`, and `#` at the start of a line), block comments
 * (`/*` first on its line, or closed on its own line: a JSDoc's code fence is no string), one-line strings
 * (closed at the end of their line whatever the language) and the openers above. When it is unsure it errs
 * towards "inside a literal", which can only turn an apply into a refusal.
 */

/** The lexer's state at the start of a line (opaque outside this file). */
export type LexState =
  | { kind: 'code' }
  | { kind: 'close'; close: string; escapes: boolean; doubled?: string }
  | { kind: 'heredoc'; tag: string; indented: boolean }
  | { kind: 'here-string'; close: string }
  | { kind: 'comment' };

type State = LexState;

const CODE: State = { kind: 'code' };

/** The state of a text that begins inside a block comment (a fragment cut from one). */
export const IN_COMMENT: LexState = { kind: 'comment' };
const HEREDOC = /<<([-~]?)\s*(?:(['"])([A-Za-z_][\w]*)\2|([A-Z_][A-Z0-9_]*)\b)/y;
const RUST_RAW = /b?r(#*)"/y;
const INTERESTING = /[/"'`rb@<]/g;

/**
 * For each line of `lines`, whether it begins inside a multi-line string literal.
 *
 * @param lines   the text split on `\n`
 * @param start   the state the text begins in (a fragment cut from a file begins in the file's state there)
 * @param states  when given, filled with the state each line begins in (see `inComment`)
 * @returns one boolean per line; O(total characters)
 */
export function literalLines(lines: readonly string[], start: LexState = CODE, states?: LexState[]): boolean[] {
  const inside = new Array<boolean>(lines.length).fill(false);
  let state: State = start;
  for (let i = 0; i < lines.length; i++) {
    inside[i] = state.kind !== 'code' && state.kind !== 'comment';
    if (states) states[i] = state;
    state = scanLine(lines[i]!, state);
  }
  return inside;
}

/**
 * Whether each line of a file begins inside a multi-line string, computed once per file (kept on the model
 * with the lexer state of each line).
 */
export function fileLiterals(model: {
  readonly lines: readonly string[];
  literal?: boolean[];
  lexStates?: LexState[];
}): boolean[] {
  return (model.literal ??= literalLines(model.lines, undefined, (model.lexStates = [])));
}

/** The lexer state after one line. */
function scanLine(line: string, start: State): State {
  if (start.kind === 'heredoc') {
    const body = start.indented ? line.trim() : line.replace(/\s+$/, '');
    return body === start.tag ? CODE : start;
  }
  if (start.kind === 'here-string') return line.startsWith(start.close) ? CODE : start;
  let state: State = start;
  let i = 0;
  if (state.kind === 'comment') {
    const end = line.indexOf('*/');
    if (end < 0) return state;
    state = CODE;
    i = end + 2;
  }
  let pendingHeredoc: State | undefined;
  if (state.kind === 'code' && i === 0 && /^\s*#(?![[!{])/.test(line)) return state;
  while (i < line.length) {
    if (state.kind === 'close') {
      const at = findClose(line, i, state);
      if (at < 0) return state;
      i = at + state.close.length;
      state = CODE;
      continue;
    }
    // Jump to the next character that can start a comment, a string or a heredoc.
    INTERESTING.lastIndex = i;
    const hit = INTERESTING.exec(line);
    if (!hit) break;
    i = hit.index;
    const c = line[i]!;
    if (c === '/' && line[i + 1] === '/') break;
    if (c === '/' && line[i + 1] === '*') {
      // Mid-line and left open it may be a path glob (`dir/*`): not taken as a comment.
      const end = line.indexOf('*/', i + 2);
      if (end >= 0) {
        i = end + 2;
        continue;
      }
      if (line.slice(0, i).trim() === '') return { kind: 'comment' };
    }
    if (line.startsWith('"""', i) || line.startsWith("'''", i)) {
      state = { kind: 'close', close: line.slice(i, i + 3), escapes: true };
      i += 3;
      continue;
    }
    if (c === '`') {
      state = { kind: 'close', close: '`', escapes: true };
      i++;
      continue;
    }
    if ((c === 'r' || c === 'b') && !/\w/.test(line[i - 1] ?? '')) {
      RUST_RAW.lastIndex = i;
      const m = RUST_RAW.exec(line);
      if (m) {
        state = { kind: 'close', close: `"${m[1]!}`, escapes: false };
        i += m[0].length;
        continue;
      }
    }
    if (c === '@' && (line[i + 1] === '"' || line[i + 1] === "'")) {
      if (line.slice(i + 2).trim() === '') return { kind: 'here-string', close: `${line[i + 1]!}@` };
      if (line[i + 1] === '"') {
        state = { kind: 'close', close: '"', escapes: false, doubled: '""' };
        i += 2;
        continue;
      }
    }
    if (c === '<' && line[i + 1] === '<') {
      HEREDOC.lastIndex = i;
      const m = HEREDOC.exec(line);
      if (m) {
        pendingHeredoc = { kind: 'heredoc', tag: m[3] ?? m[4]!, indented: m[1] !== '' };
        i += m[0].length;
        continue;
      }
    }
    if (c === '"' || c === "'") {
      // A one-line string: skip to its closing quote, or to the end of the line.
      const at = findClose(line, i + 1, { kind: 'close', close: c, escapes: true });
      i = at < 0 ? line.length : at + 1;
      continue;
    }
    i++;
  }
  return pendingHeredoc && state.kind === 'code' ? pendingHeredoc : state;
}

/** Index of the closing delimiter at or after `from`, honouring backslash escapes or doubled quotes. */
function findClose(line: string, from: number, state: Extract<State, { kind: 'close' }>): number {
  for (let i = from; i < line.length; i++) {
    if (state.escapes && line[i] === '\\') {
      i++;
      continue;
    }
    if (state.doubled && line.startsWith(state.doubled, i)) {
      i++;
      continue;
    }
    if (line.startsWith(state.close, i)) return i;
  }
  return -1;
}
