import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { checkRewritePattern, rewriteFile } from '../../utils/patch/rewrite.js';
import { languageOfPath, parseLanguageName } from '../../utils/patch/rewrite-lang.js';
import { compileTemplate, expandTemplate, indentAt } from '../../utils/patch/rewrite-template.js';
import { capturedVars, checkTemplateVars } from '../../utils/rule-vars.js';

beforeEach(async () => {
  vi.stubEnv('CLAWCODE_HOME', await mkdtemp(path.join(tmpdir(), 'clawcode-home-')));
});

const rule = (p: string, content: string, find: string, replace: string) =>
  rewriteFile({ path: p, content, find, replace });

describe('rewriteFile', () => {
  it('rewrites every call of a pattern with its capture (not a method of that name), and counts the matches', () => {
    const src = 'const a = getUser(1);\nconst b = getUser(id, 2);\nfoo.getUser(3);\ngetUser(é);\n';
    const r = rule('src/a.ts', src, 'getUser($ID)', 'fetchUser($ID, { cache: true })');
    expect(r).toMatchObject({ ok: true, matches: 2, language: 'TypeScript' });
    expect(r.ok && r.content).toBe(
      'const a = fetchUser(1, { cache: true });\nconst b = getUser(id, 2);\nfoo.getUser(3);\nfetchUser(é, { cache: true });\n',
    );
  });

  it('reports the replaced spans in UTF-16 offsets of the input', () => {
    const src = 'const é = "ü"; getUser(é);\n';
    const r = rule('a.ts', src, 'getUser($A)', 'f($A)');
    if (!r.ok) throw new Error(r.message);
    const e = r.edits[0]!;
    expect(src.slice(e.start, e.end)).toBe('getUser(é)');
  });

  it('renames an identifier, not a property of the same name', () => {
    const r = rule('a.js', 'getUser(1);\nobj.getUser(2);\nconst getUser = 3;\n', 'getUser', 'fetchUser');
    expect(r.ok && r.content).toBe('fetchUser(1);\nobj.getUser(2);\nconst fetchUser = 3;\n');
  });

  it('keeps a multi-line capture indented relative to its place, as ast-grep does', () => {
    const src = 'if (y) {\n  call(\n    a,\n    b\n  )\n}\nconst z = call(1,\n  2);\n';
    const r = rule('a.ts', src, 'call($$$ARGS)', 'wrap(\n  $$$ARGS\n)');
    expect(r.ok && r.content).toBe('if (y) {\n  wrap(\n    a,\n    b\n  )\n}\nconst z = wrap(\n  1,\n    2\n);\n');
  });

  it('replaces an outer match and leaves the matches inside it to it', () => {
    const r = rule('a.ts', 'f(f(f(1)));\n', 'f($A)', 'g($A)');
    expect(r).toMatchObject({ ok: true, matches: 1 });
    expect(r.ok && r.content).toBe('g(f(f(1)));\n');
  });

  it('writes nothing for an empty $$$ run', () => {
    const r = rule('a.ts', 'f();\nf(1, 2);\n', 'f($$$A)', 'g(0, $$$A)');
    expect(r.ok && r.content).toBe('g(0, );\ng(0, 1, 2);\n');
  });

  it('writes the template with CRLF in a CRLF file', () => {
    const r = rule('a.ts', 'if (x) {\r\n  call(a);\r\n}\r\n', 'call($A)', 'wrap(\n$A)');
    expect(r.ok && r.content).toBe('if (x) {\r\n  wrap(\r\n  a);\r\n}\r\n');
  });

  it('keeps the `;` of a statement whose pattern leaves it out', () => {
    const r = rule('a.ts', 'let x = 5 ;\nlet y = f(1)\n', 'let $A = $B', 'const $A = $B');
    expect(r.ok && r.content).toBe('const x = 5 ;\nconst y = f(1)\n');
    const withSemi = rule('a.ts', 'let x = 5;\n', 'let $A = $B;', 'const $A = $B;');
    expect(withSemi.ok && withSemi.content).toBe('const x = 5;\n');
  });

  it('moves an import with its names', () => {
    const src = "import { a, b } from './old';\nimport c from './other';\n";
    const r = rule('a.ts', src, "import { $$$N } from './old'", "import { $$$N } from './new'");
    expect(r.ok && r.content).toBe("import { a, b } from './new';\nimport c from './other';\n");
  });

  it('rewrites TSX, Python, Go and Rust files by extension', () => {
    expect(rule('a.tsx', 'const x = <Foo bar={1} />;\n', '<Foo $$$P />', '<Bar $$$P />')).toMatchObject({
      ok: true,
      content: 'const x = <Bar bar={1} />;\n',
    });
    expect(rule('a.py', 'def f(x):\n    return get_user(x)\n', 'get_user($X)', 'fetch_user($X)')).toMatchObject({
      ok: true,
      content: 'def f(x):\n    return fetch_user(x)\n',
      language: 'Python',
    });
    expect(rule('a.go', 'package a\n\nfunc f() { GetUser(1) }\n', 'GetUser($X)', 'FetchUser(ctx, $X)')).toMatchObject({
      ok: true,
      content: 'package a\n\nfunc f() { FetchUser(ctx, 1) }\n',
    });
    expect(rule('a.rs', 'fn f() { get_user(1); }\n', 'get_user($X)', 'fetch_user($X)')).toMatchObject({
      ok: true,
      content: 'fn f() { fetch_user(1); }\n',
    });
  });

  it('leaves out a file that does not parse, naming the line', () => {
    expect(rule('a.ts', 'const x = 1;\ngetUser(1);\nfoo(\n', 'getUser($A)', 'f($A)')).toMatchObject({
      ok: false,
      code: 'rewrite_parse_error',
      message: 'a.ts: does not parse as TypeScript (line 3)',
    });
  });

  it('fails as no match where the pattern matches nothing, parsed or not', () => {
    expect(rule('a.ts', 'getUser(1, 2);\n', 'getUser($A)', 'f($A)')).toMatchObject({
      ok: false,
      code: 'rewrite_no_match',
    });
    // The pattern's words are not in the file: not even parsed (a parse error would otherwise be found).
    expect(rule('a.ts', 'foo(\n', 'getUser($A)', 'f($A)')).toMatchObject({ ok: false, code: 'rewrite_no_match' });
  });

  it('refuses a pattern ast-grep cannot read as one node, and a file no grammar covers', () => {
    expect(rule('a.ts', 'a b c d', 'a b c d', 'x')).toMatchObject({ ok: false, code: 'rewrite_bad_pattern' });
    expect(checkRewritePattern('a b c d', 'TypeScript')).toMatch(/Multiple AST nodes/);
    expect(checkRewritePattern('foo($A)', 'Python')).toBeUndefined();
    expect(rule('README.md', 'getUser(1)', 'getUser($A)', 'f($A)')).toMatchObject({
      ok: false,
      code: 'rewrite_no_grammar',
    });
  });

  it('renames a bare name in Go, whose grammar does not parse one alone', () => {
    expect(
      rule('a.go', 'package a\n\nvar flErr error\n\nfunc f() { _ = flErr }\n', 'flErr', 'lookupErr'),
    ).toMatchObject({
      ok: true,
      content: 'package a\n\nvar lookupErr error\n\nfunc f() { _ = lookupErr }\n',
    });
    // A file of another language without the pattern's words is not parsed, so not reported as unparsed.
    expect(rule('a.css', '@include x;;\n', 'getUser($A)', 'f($A)')).toMatchObject({ code: 'rewrite_no_match' });
  });

  it('takes the language given over the extension', () => {
    const r = rewriteFile({
      path: 'a.txt',
      content: 'a(1);\n',
      find: 'a($X)',
      replace: 'b($X)',
      language: 'JavaScript',
    });
    expect(r.ok && r.content).toBe('b(1);\n');
  });
});

describe('templates', () => {
  it('splits at $NAME, $$NAME and $$$NAME; a lone $ is text', () => {
    expect(compileTemplate('f($A, $$B, $$$C) $ $1')).toEqual({
      fragments: ['f(', ', ', ', ', ') $ ', ''],
      vars: [
        { name: 'A', multi: false, indent: 0 },
        { name: 'B', multi: false, indent: 0 },
        { name: 'C', multi: true, indent: 0 },
        { name: '1', multi: false, indent: 0 },
      ],
    });
  });

  it('lists captures without the non-capturing $_ forms', () => {
    expect(capturedVars('f($A, $_, $_X, $$$ARGS, $$$, $A)')).toEqual([
      { name: 'A', multi: false },
      { name: 'ARGS', multi: true },
    ]);
  });

  it('refuses a template variable the pattern does not capture, or captures with another arity', () => {
    expect(checkTemplateVars('getUser($ID)', 'fetchUser($ID)')).toBeUndefined();
    expect(checkTemplateVars('getUser($ID)', 'fetchUser($USER)')).toBe(
      'replace uses $USER, which find does not capture',
    );
    expect(checkTemplateVars('f($$$A)', 'g($A)')).toBe('replace uses $A but find captures $$$A');
    expect(checkTemplateVars('f($_)', 'g($_)')).toBe('replace uses $_, which find does not capture');
    expect(checkTemplateVars("s.replace(/a/, '$1')", 'x')).toBeUndefined();
  });

  it('indents the replacement to the matched line and a capture to its place', () => {
    const source = '    x = call(a,\n      b)';
    const t = compileTemplate('wrap(\n  $A\n)');
    const out = expandTemplate(t, source, 8, () => ({ start: 13, end: source.length - 1 }));
    expect(out).toBe('wrap(\n      a,\n        b\n    )');
  });

  it('finds the indentation of a line only from its leading spaces', () => {
    expect(indentAt('  ab', 4)).toBe(2);
    expect(indentAt('x\n  a  b', 8)).toBe(2);
    expect(indentAt('x\n    foo', 6)).toBe(4);
    // Only spaces indent: a tab first means no indentation, as in ast-grep.
    expect(indentAt('x\n\t  foo', 5)).toBe(0);
    expect(indentAt('   ', 3)).toBe(3);
    expect(indentAt(`${'y'.repeat(600)}    `, 604)).toBe(0);
  });
});

describe('languages', () => {
  it('maps extensions and --lang names', () => {
    expect(languageOfPath('src/a.mts')).toBe('TypeScript');
    expect(languageOfPath('src/A.TSX')).toBe('Tsx');
    expect(languageOfPath('lib/x.cjs')).toBe('JavaScript');
    expect(languageOfPath('a/b.pyi')).toBe('Python');
    expect(languageOfPath('Makefile')).toBeUndefined();
    expect(languageOfPath('.ts')).toBeUndefined();
    expect(parseLanguageName('TS')).toBe('TypeScript');
    expect(parseLanguageName('golang')).toBe('Go');
    expect(parseLanguageName('cobol')).toBeUndefined();
  });
});
