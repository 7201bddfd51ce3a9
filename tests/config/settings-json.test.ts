import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { locateJsonError } from '../../config/settings-json.js';

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe('locateJsonError', () => {
  it('points at the first offending character with a 1-based line and column', () => {
    expect(locateJsonError('{\n  "a": 1,\n  b\n}')).toEqual({
      offset: 14,
      line: 3,
      column: 3,
      message: `expected a double-quoted string, found 'b'`,
    });
    expect(locateJsonError('[1, 2,]')).toMatchObject({ offset: 6, message: `expected a value, found ']'` });
    expect(locateJsonError('{"a": "x\ny"}')).toMatchObject({ line: 1, column: 9 });
    expect(locateJsonError('{} x')).toMatchObject({ column: 4, message: `expected end of file, found 'x'` });
    expect(locateJsonError('"\\q"')).toMatchObject({ column: 2, message: `expected a valid escape, found '\\'` });
    expect(locateJsonError('')).toMatchObject({ message: 'expected a value, found end of file' });
  });

  it('reports the 513th level of nesting as the error: a broken file opening 300,000 arrays overflowed the stack', () => {
    const text = `{"ignore":${'['.repeat(300_000)}x`;
    expect(locateJsonError(text)).toEqual({
      offset: 9 + 512,
      line: 1,
      column: 10 + 512,
      message: `expected at most 512 levels of nesting, found '['`,
    });
  });

  it('agrees with JSON.parse on what is valid', () => {
    fc.assert(fc.property(fc.json(), (text) => locateJsonError(text) === undefined));
    fc.assert(
      fc.property(fc.json(), fc.nat(), fc.string({ maxLength: 3 }), (text, at, junk) => {
        const broken = text.slice(0, at % (text.length + 1)) + junk + text.slice(at % (text.length + 1));
        expect(locateJsonError(broken) === undefined).toBe(parses(broken));
      }),
    );
  });
});
