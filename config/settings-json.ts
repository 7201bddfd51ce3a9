/**
 * Where a JSON text is broken, for error messages about settings files. JSON.parse's own messages differ
 * between Node versions, some carry no position at all ("Unexpected token '}', ..."), and some quote the file's
 * text, which must not happen for a file that may hold a pasted key. So after JSON.parse has failed, this
 * small RFC 8259 scanner finds the first offending character itself. It only locates errors; parsing is
 * JSON.parse's job.
 */

/** The first syntax error in a JSON text: 0-based `offset`, 1-based `line`/`column`, and a short description. */
export type JsonErrorLocation = { offset: number; line: number; column: number; message: string };

class JsonSyntax extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
/**
 * Deepest nesting the scanner follows: deeper is reported as the error (no settings file nests past 4). The scan
 * recurses once per level, and a broken file opening 300,000 arrays overflowed the stack ("internal error").
 */
const MAX_DEPTH = 512;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

/**
 * Locate the first syntax error in `text` (RFC 8259 grammar, no comments or trailing commas); nesting past
 * MAX_DEPTH counts as one.
 *
 * @returns the location, or undefined when the text is valid JSON
 */
export function locateJsonError(text: string): JsonErrorLocation | undefined {
  let i = 0;
  let depth = 0;
  const fail = (what?: string): never => {
    const found = i >= text.length ? 'end of file' : `'${text[i]}'`;
    throw new JsonSyntax(i, what ? `expected ${what}, found ${found}` : `unexpected ${found}`);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const expect = (ch: string, what: string) => (text[i] === ch ? i++ : fail(what));
  const string = () => {
    expect('"', 'a double-quoted string');
    for (;;) {
      const ch = text[i];
      if (ch === undefined) fail('a closing "');
      if (ch === '"') return void i++;
      if (ch === '\\') {
        ESCAPE.lastIndex = i;
        if (!ESCAPE.test(text)) fail('a valid escape');
        i = ESCAPE.lastIndex;
      } else if (ch!.charCodeAt(0) < 0x20) {
        fail('a closing " on the same line');
      } else i++;
    }
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch !== '{' && ch !== '[') return container(ch);
    if (depth >= MAX_DEPTH) fail(`at most ${MAX_DEPTH} levels of nesting`);
    depth++;
    container(ch);
    depth--;
  };
  /** One value starting with `ch`: an object or array (its members through `value`), or a scalar. */
  const container = (ch: string | undefined): void => {
    if (ch === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        string();
        ws();
        expect(':', "':'");
        value();
        ws();
        if (text[i] === ',') i++;
        else return void expect('}', "',' or '}'");
      }
    }
    if (ch === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ',') i++;
        else return void expect(']', "',' or ']'");
      }
    }
    if (ch === '"') return string();
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) return void (i += word.length);
    }
    NUMBER.lastIndex = i;
    if (NUMBER.test(text)) return void (i = NUMBER.lastIndex);
    fail('a value');
  };
  try {
    value();
    ws();
    if (i < text.length) fail('end of file');
    return undefined;
  } catch (error) {
    if (!(error instanceof JsonSyntax)) throw error;
    const lines = text.slice(0, error.offset).split(/\r\n|\r|\n/);
    return {
      offset: error.offset,
      line: lines.length,
      column: (lines.at(-1)?.length ?? 0) + 1,
      message: error.message,
    };
  }
}
