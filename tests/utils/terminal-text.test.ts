import { describe, expect, it } from 'vitest';
import { escapeTerminal, terminalJson } from '../../utils/terminal-text.js';

describe('escapeTerminal', () => {
  it('makes ESC, OSC, BEL, C0, DEL and C1 visible; keeps \\n, \\t and CRLF', () => {
    expect(escapeTerminal('a\u001b[2Kb\u001b[1A')).toBe('a\\x1b[2Kb\\x1b[1A');
    expect(escapeTerminal('\u001b]0;pwned\u0007title')).toBe('\\x1b]0;pwned\\x07title');
    expect(escapeTerminal('x\u009b31m\u007f\u0000')).toBe('x\\x9b31m\\x7f\\x00');
    expect(escapeTerminal('line\r\nnext\tcol\n')).toBe('line\r\nnext\tcol\n');
    expect(escapeTerminal('fake\roverwrite')).toBe('fake\\roverwrite');
    expect(escapeTerminal('plain text, ünïcode ✓')).toBe('plain text, ünïcode ✓');
  });

  it('shows every bidi control, direction mark and line separator escaped, in every mode', () => {
    const bidi = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u2028\u2029';
    const shown = '\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c\\u2028\\u2029';
    expect(escapeTerminal(`he${bidi}llo`)).toBe(`he${shown}llo`);
    expect(escapeTerminal(`he${bidi}llo`, 'line')).toBe(`he${shown}llo`);
    expect(escapeTerminal(`he${bidi}llo`, 'colored')).toBe(`he${shown}llo`);
    // Other invisible or right-to-left text is left alone: Hebrew and a zero-width joiner are text, not controls.
    expect(escapeTerminal('שלום \u200d')).toBe('שלום \u200d');
  });

  it('line mode escapes newlines, tabs and CR too, so one field stays on its line', () => {
    expect(escapeTerminal('notes.md\n✓ #9 src/a.ts', 'line')).toBe('notes.md\\n✓ #9 src/a.ts');
    expect(escapeTerminal('a\tb\r\nc', 'line')).toBe('a\\tb\\r\\nc');
  });

  it('colored mode keeps SGR sequences only', () => {
    expect(escapeTerminal('\u001b[32mok\u001b[39m \u001b[2K\u001b]0;t\u0007', 'colored')).toBe(
      '\u001b[32mok\u001b[39m \\x1b[2K\\x1b]0;t\\x07',
    );
  });

  it('is idempotent: an escaped field printed inside an escaped block reads the same', () => {
    const field = escapeTerminal('x\n\u202e\u001b', 'line');
    expect(escapeTerminal(`- ${field}\n`, 'colored')).toBe(`- ${field}\n`);
  });
});

describe('terminalJson', () => {
  it('writes DEL, C1, bidi controls and separators as \\u escapes, and parses back to the same value', () => {
    const value = { a: 'x\u007f\u009b2J\u202e\u2066\u2028\u061c\u001b', b: ['é ✓ 日本'] };
    const text = terminalJson(value, 2);
    expect(text).toContain('"x\\u007f\\u009b2J\\u202e\\u2066\\u2028\\u061c\\u001b"');
    expect(text).toContain('é ✓ 日本');
    expect(JSON.parse(text)).toEqual(value);
  });
});
