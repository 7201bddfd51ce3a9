import { describe, expect, it } from 'vitest';
import { escapeControls, escapeControlsKeepColor } from '../../utils/terminal-text.js';

describe('escapeControls', () => {
  it('makes ESC, OSC, BEL, C0, DEL and C1 visible; keeps \\n, \\t and CRLF', () => {
    expect(escapeControls('a\u001b[2Kb\u001b[1A')).toBe('a\\x1b[2Kb\\x1b[1A');
    expect(escapeControls('\u001b]0;pwned\u0007title')).toBe('\\x1b]0;pwned\\x07title');
    expect(escapeControls('x\u009b31m\u007f\u0000')).toBe('x\\x9b31m\\x7f\\x00');
    expect(escapeControls('line\r\nnext\tcol\n')).toBe('line\r\nnext\tcol\n');
    expect(escapeControls('fake\roverwrite')).toBe('fake\\roverwrite');
    expect(escapeControls('plain text, ünïcode ✓')).toBe('plain text, ünïcode ✓');
  });

  it('the colour-keeping variant keeps SGR sequences only', () => {
    expect(escapeControlsKeepColor('\u001b[32mok\u001b[39m \u001b[2K\u001b]0;t\u0007')).toBe(
      '\u001b[32mok\u001b[39m \\x1b[2K\\x1b]0;t\\x07',
    );
  });
});
