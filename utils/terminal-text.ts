/**
 * How {@link escapeTerminal} treats line structure and colour:
 * - `text`: a block of untrusted text (a diff line, the model's analysis, a command's output): `\n`, `\t` and
 *   `\r\n` stay, so it keeps its lines;
 * - `line`: one untrusted field inside a line we print (a path, a command, a settings value): `\n`, `\t` and
 *   `\r` are escaped too, so a plan path holding a newline cannot start a line of its own in a summary;
 * - `colored`: a block that mixes our own colours (SGR `ESC[…m`, which only change colours and attributes)
 *   with untrusted parts: the SGR sequences stay, everything else is escaped as in `text`.
 */
export type EscapeMode = 'text' | 'line' | 'colored';

// C0 controls but \t \n \r, DEL, C1 controls (some terminals read U+009B as CSI), and the invisible characters
// that reorder or split what is shown: the bidi embeddings, overrides and isolates (U+202A–U+202E,
// U+2066–U+2069; "Trojan Source"), the direction marks (U+200E, U+200F, U+061C) and the line and paragraph
// separators (U+2028, U+2029).
// JSON.stringify escapes the C0 controls but leaves the rest (WIDE) raw.
const WIDE = '\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069';
const CONTROL = `\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f${WIDE}`;
/**
 * The characters {@link escapeTerminal} makes visible, `\\t`, `\\n` and `\\r` included, as the inside of a regular
 * expression's character class (`new RegExp(`[${TERMINAL_CONTROLS}]`)`): for text flattened to one plain line.
 */
export const TERMINAL_CONTROLS = `\\t\\n\\r${CONTROL}`;
const PATTERNS: Record<EscapeMode, RegExp> = {
  text: new RegExp(`\\r(?!\\n)|[${CONTROL}]`, 'g'),
  line: new RegExp(`[\\t\\n\\r${CONTROL}]`, 'g'),
  colored: new RegExp(`(\\u001b\\[[0-9;]*m)|\\r(?!\\n)|[${CONTROL}]`, 'g'),
};

/**
 * The one function every print of untrusted text (from the model, from project files, from their names, from
 * project settings) goes through before it reaches a terminal: every character a terminal would act on, and
 * every invisible character that changes how the text reads, is shown as a visible escape instead. That covers
 * ESC (no CSI such as `ESC[2K ESC[1A` erasing lines, no OSC setting the window title or writing the clipboard),
 * the other C0 controls, DEL, the C1 controls, a lone `\r` (which would let text overwrite its own line) and
 * the bidi controls (U+202E would show `he\u202Eolleh` as "hehello").
 *
 * Escapes look like JavaScript's: `\x1b`, `\x07`, `\x9b`, `\r`, `\n` (line mode), `\u202e`; a backslash itself
 * is left alone. The bytes clawcode writes to files are never escaped: this is for display only.
 *
 * @param text  any string
 * @param mode  see {@link EscapeMode}; default `text`
 * @returns the text with those characters made visible; identical when there are none
 */
export function escapeTerminal(text: string, mode: EscapeMode = 'text'): string {
  // Only `colored` has a group: in the other modes the second argument is the offset, not an SGR sequence.
  return text.replace(PATTERNS[mode], (match: string, sgr: unknown) =>
    typeof sgr === 'string' ? sgr : visible(match),
  );
}

function visible(char: string): string {
  if (char === '\r') return '\\r';
  if (char === '\n') return '\\n';
  if (char === '\t') return '\\t';
  const code = char.charCodeAt(0);
  return code > 0xff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\x${code.toString(16).padStart(2, '0')}`;
}

const JSON_RAW = new RegExp(`[${WIDE}]`, 'g');

/**
 * JSON for stdout (`--json`, `--events`): JSON.stringify, with the characters a terminal would act on or that
 * reorder what is shown (DEL, C1 such as U+009B, bidi controls, U+2028/9) written as `\uXXXX` escapes, which
 * JSON.stringify leaves raw. The text parses back to exactly the same value.
 *
 * @param value  anything JSON.stringify takes
 * @param space  indentation, as for JSON.stringify
 * @returns the JSON text (no trailing newline)
 */
export function terminalJson(value: unknown, space?: number): string {
  return JSON.stringify(value, null, space).replace(
    JSON_RAW,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
