/**
 * Make untrusted text (from the model, from project files, from their names) safe to print on a
 * terminal: every control character that a terminal would act on is shown as a visible escape
 * instead. That covers ESC (so no CSI such as `ESC[2K ESC[1A` erasing lines, no OSC setting the
 * window title or writing the clipboard), the other C0 controls, DEL and the C1 controls
 * (U+0080–U+009F, which some terminals read as CSI/OSC introducers). Kept as they are: `\n`, `\t`, and
 * `\r` only as part of a `\r\n` line end (a lone `\r` would let text overwrite its own line).
 *
 * Escapes look like JavaScript's: `\x1b`, `\x07`, `\x9b`, `\r`; a backslash itself is left alone.
 *
 * @param text  any string
 * @returns the same text with control characters made visible; identical when there are none
 */
export function escapeControls(text: string): string {
  return text.replace(/\r(?!\n)|[\u0000-\u0008\u000b-\u000c\u000e-\u001f\u007f-\u009f]/g, visible);
}

/**
 * Like {@link escapeControls}, but keeps SGR colour sequences (`ESC[…m`) as they are: for text that
 * mixes our own colouring with untrusted parts (a command's output tail, a line already built with
 * chalk). An SGR sequence can only change colours and attributes, never move the cursor, erase, or
 * talk to the terminal.
 */
export function escapeControlsKeepColor(text: string): string {
  return text.replace(
    /(\u001b\[[0-9;]*m)|\r(?!\n)|[\u0000-\u0008\u000b-\u000c\u000e-\u001f\u007f-\u009f]/g,
    (match, sgr: string | undefined) => (sgr ? sgr : visible(match)),
  );
}

function visible(char: string): string {
  if (char === '\r') return '\\r';
  return `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
}
