import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { applyPatch } from '../../utils/patch.js';

beforeEach(async () => {
  vi.stubEnv('CLAWCODE_HOME', await mkdtemp(path.join(tmpdir(), 'clawcode-home-')));
});

describe('elision: repeated pieces settled by the lines replace keeps', () => {
  const ts = [
    'class Client {',
    '  send() {',
    '    if (this.closed) {',
    "      throw new Error('closed');",
    '    }',
    '  }',
    '',
    '  check() {',
    '    if (this.options.retry && this.options.retry < 0) {',
    "      throw new TypeError('retry must be positive');",
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');

  it('applies when both pieces repeat and replace keeps a line of one nearest placement only', () => {
    // `    }` and `  }` both repeat; between the `    }` of send() and the next `  }` nothing is elided, so the
    // only nearest placement with text between is the one around check()'s body, which replace keeps.
    const find = '    }\n  }\n...\n    }\n  }';
    const replace = [
      '    }',
      '  }',
      '',
      '  check() {',
      '    if (this.options.retry && this.options.retry < 0) {',
      "      throw new TypeError('retry must be a positive number');",
      '    }',
      '  }',
    ].join('\n');
    const r = applyPatch(ts, find, replace);
    expect(r).toMatchObject({ applied: true, strategy: 'elision' });
    expect(r.newContent).toBe(ts.replace("'retry must be positive'", "'retry must be a positive number'"));
  });

  it('refuses when replace keeps lines of two placements', () => {
    const find = '    }\n...\n    }';
    const replace = ['    }', "      throw new Error('closed');", "      throw new TypeError('retry');", '    }'].join(
      '\n',
    );
    expect(applyPatch(ts, find, replace)).toMatchObject({ applied: false, code: 'patch_ambiguous_find' });
  });

  it('applies at the nearest copy when replace repeats a common line that text past the next copy also has', () => {
    // `} else {` lies past the function's closing `};` too, but the file has it elsewhere as well: it does
    // not show that replace reaches there.
    const js = [
      'res.location = function location(url) {',
      '  var loc = url;',
      "  if (url === 'back') {",
      "    loc = this.req.get('Referrer') || '/';",
      '  }',
      '  return this.set(loc);',
      '};',
      '',
      'res.redirect = function redirect(url) {',
      '  if (typeof url === "number") {',
      '    status = url;',
      '  } else {',
      '    address = url;',
      '  }',
      '};',
      '',
      'res.vary = function(field) {',
      '  if (!field) {',
      '    return this;',
      '  } else {',
      '    vary(this, field);',
      '  }',
      '};',
      '',
    ].join('\n');
    const find = 'res.location = function location(url) {\n  ...\n};';
    const replace = [
      'res.location = function location(url) {',
      '  var loc;',
      "  if (url === 'back') {",
      "    loc = this.req.get('Referrer') || '/';",
      '  } else {',
      '    loc = String(url);',
      '  }',
      '  return this.set(loc);',
      '};',
    ].join('\n');
    const r = applyPatch(js, find, replace);
    expect(r).toMatchObject({ applied: true, strategy: 'elision' });
    expect(r.newContent).toBe(`${replace}${js.slice(js.indexOf('};') + 2)}`);
  });

  it('refuses when replace keeps a copy of the weak piece with a line added inside it', () => {
    // The tail piece `}` `  }` is found at lines 5 and 10; replace keeps the first copy, split by a new line,
    // so the span may reach the second: the nearest copy is not certain.
    const lines = ['let', '}', 'return let', 'let,', '}', '  }', '}', '}', '}', '}', '  }', '}', 'let'];
    const content = `${lines.join('\n')}\n`;
    const replace = ['}', 'return let', 'let,', '}', '  added();', '  }', '}', '}', '}', '}', '  }'].join('\n');
    const r = applyPatch(content, '}\nreturn let\n...\n}\n  }', replace);
    expect(r.applied).toBe(false);
  });

  it('refuses when copies of the weak piece overlap (where it ends is not fixed)', () => {
    // The piece `}` `}` is found at lines 1 and 2; the elided text begins with the third `}` either way.
    const content = ['}', '}', '}', 'let;', '}', 'let', 'let let,'].join('\n') + '\n';
    const r = applyPatch(content, '}\n}\n...\nlet\nlet let,', '}\n}\n}\nlet;\n}\n  added();\nlet\nlet let,');
    expect(r).toMatchObject({ applied: false });
  });
});
