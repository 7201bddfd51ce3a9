import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../../utils/policy/secrets.js';
import { derivedViews } from '../../../utils/policy/secret-views.js';

const KEY = 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z';
const TAIL = KEY.slice(8);

describe('derivedViews', () => {
  it('joins concatenated literals after their line, each character mapped back to the original', () => {
    const text = 'x = 1\nconst key = "sk-" + "proj-abc";\n';
    const views = derivedViews(text);
    expect(views.map((v) => v.text)).toEqual(['const key = "sk-proj-abc"']);
    const view = views[0]!;
    const at = view.text.indexOf('proj');
    expect(text.slice(view.starts[at]!, view.ends[at + 3]!)).toBe('proj');
  });

  it('decodes escapes, template literals of literals, hex, base64, percent-escapes and invisible characters', () => {
    expect(derivedViews('k = "\\u0073k-\\x41"').map((v) => v.text)).toEqual(['k = "sk-A"']);
    expect(derivedViews('k = `sk-${"proj"}-x`').map((v) => v.text)).toEqual(['k = `sk-proj-x`']);
    expect(derivedViews(Buffer.from('hello world!').toString('hex')).map((v) => v.text)).toEqual(['hello world!']);
    expect(derivedViews(Buffer.from('Hello, World 2024!').toString('base64')).map((v) => v.text)).toEqual([
      'Hello, World 2024!',
    ]);
    expect(derivedViews('a%2Db%2Dc').map((v) => v.text)).toEqual(['a-b-c']);
    expect(derivedViews('ab\u200bcd').map((v) => v.text)).toEqual(['abcd']);
  });

  it('leaves alone what decodes to binary, literals that are not joined, and a map of keys on lines', () => {
    const text = [
      'sha512-Zq8vN2xLp4Rt7Yw3Kd9FbQ0aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV1wX2yZ3==',
      'commit 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      'f("a", "b")',
      '"name": "x"\n"other": "y"',
    ].join('\n');
    expect(derivedViews(text)).toEqual([]);
  });
});

describe('redactSecrets reads the views', () => {
  it('redacts a key however its literals spell it, and nothing around it', () => {
    const cases: [string, string][] = [
      [`const key = "sk-" + "${KEY.slice(3)}";`, 'const key = "[REDACTED:openai_key]";'],
      [`KEY = ("sk-proj-"\n       "${TAIL}")`, 'KEY = ("[REDACTED:openai_key]\n")'],
      [`$key = 'sk-proj-' . '${TAIL}';`, "$key = '[REDACTED:openai_key]';"],
      ['const key = `sk-${"' + KEY.slice(3) + '"}`;', 'const key = `[REDACTED:openai_key]"}`;'],
      [`{"k": "\\u0073k-proj-${TAIL}"}`, '{"k": "[REDACTED:openai_key]"}'],
      [`const k = "\\x73k-proj-${TAIL}";`, 'const k = "[REDACTED:openai_key]";'],
      [`k = atob("${Buffer.from(KEY).toString('base64')}")`, 'k = atob("[REDACTED:openai_key]")'],
      [`k = "${Buffer.from(KEY).toString('hex')}"`, 'k = "[REDACTED:openai_key]"'],
      [`https://x.example/?k=sk%2Dproj%2D${TAIL}`, 'https://x.example/?k=[REDACTED:openai_key]'],
      [`k = "${KEY.slice(0, 12)}\u200b${KEY.slice(12)}"`, 'k = "[REDACTED:openai_key]"'],
      [
        JSON.stringify({ cfg: JSON.stringify({ password: 'Zx9Qw3Er7Ty1Ui5Op' }) }),
        '{"cfg":"{\\"password\\":\\"[REDACTED:secret_assignment]\\"}"}',
      ],
    ];
    for (const [text, want] of cases) expect(redactSecrets(text).text, text).toBe(want);
  });

  it('leaves ordinary concatenation, escapes and encodings alone', () => {
    const text = [
      'const greeting = "Hello, " + name + "!";',
      'const path = "src/" + "lib/" + "index.ts";',
      'msg = ("first part of a long message "\n       "second part of it")',
      '{"text": "line one\\nline two \\u00e9"}',
      'const url = "https://example.com/search?q=a%20b%26c";',
      'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      'integrity sha512-Zq8vN2xLp4Rt7Yw3Kd9FbQ0aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV1wX2yZ3ab==',
      'const label = "Pass" + "word";',
    ].join('\n');
    expect(redactSecrets(text)).toEqual({ text, redactions: [] });
  });
});
