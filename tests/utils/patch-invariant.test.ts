import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { applyPatch } from '../../utils/patch.js';

beforeEach(async () => {
  vi.stubEnv('CLAWCODE_HOME', await mkdtemp(path.join(tmpdir(), 'clawcode-home-')));
});

/** A relaxed pass gives exactly `want`, or refuses; never other bytes. */
function intendedOrRefused(content: string, find: string, replace: string, want: string): void {
  const r = applyPatch(content, find, replace);
  if (r.applied) expect(r.newContent).toBe(want);
}

describe('relaxed passes never change what the patch leaves unchanged', () => {
  it('keeps a missing final newline missing (trailing-whitespace and indent passes)', () => {
    expect(applyPatch('alpha = 1\nbeta_value = 2', 'beta_value = 2  \n', 'beta_value = 3\n').newContent).toBe(
      'alpha = 1\nbeta_value = 3',
    );
    expect(applyPatch('if x:\n    beta_value = 2', '  beta_value = 2\n', '  beta_value = 3\n').newContent).toBe(
      'if x:\n    beta_value = 3',
    );
    expect(
      applyPatch('if x:\n\tbeta_value = 2', '    beta_value = 2\n', '    beta_value = 3\n    gamma = 4\n').newContent,
    ).toBe('if x:\n\tbeta_value = 3\n\tgamma = 4');
  });

  it('never re-indents a new line inside a raw string whose whitespace is content', () => {
    const go = 'func script() string {\n\treturn `\n    echo one\n    echo two\n`\n}\n';
    // Tabs written as spaces in find and replace; the raw string itself uses spaces.
    const find = 'func script() string {\n    return `\n    echo one\n    echo two';
    const replace = 'func script() string {\n    return `\n    echo one\n    echo two\n    echo three';
    const r = applyPatch(go, find, replace);
    if (r.applied) expect(r.newContent).toBe(go.replace('    echo two\n', '    echo two\n    echo three\n'));
    expect(r.newContent ?? '').not.toContain('\techo three');
  });

  it('refuses to re-indent a new heredoc line when the find changed tabs to spaces', () => {
    const sh = 'run() {\n\tcat <<EOF\n  line one\n  line two\nEOF\n}\n';
    const r = applyPatch(
      sh,
      'run() {\n    cat <<EOF\n  line one\n  line two',
      'run() {\n    cat <<EOF\n  line one\n  line two\n    line three',
    );
    expect(r.newContent ?? '').not.toContain('\tline three');
  });

  it('moves a new docstring line by the same shift as the code around it (spaces only)', () => {
    const py = 'class A:\n    def f(self):\n        """Doc.\n\n        More.\n        """\n        return 1\n';
    const find = 'def f(self):\n    """Doc.\n\n    More.\n    """\n    return 1';
    const replace = 'def f(self):\n    """Doc.\n\n    More.\n    Even more.\n    """\n    return 1';
    expect(applyPatch(py, find, replace).newContent).toBe(
      py.replace('        More.\n', '        More.\n        Even more.\n'),
    );
  });

  it('a dedent clamped at a function boundary: a new line with no certain frame is refused', () => {
    const py = 'class A:\n    def f(self):\n        return 1\n\ndef g():\n    return 2\n';
    const find = 'def f(self):\n    return 1\n\ndef g():\n    return 2';
    const replace = 'def f(self):\n    return 1\n\ndef g():\n    log()\n    return 2';
    intendedOrRefused(py, find, replace, py.replace('    return 2', '    log()\n    return 2'));
  });

  it('uneven indentation in find never moves a line the patch leaves unchanged', () => {
    const js =
      "export function createLogger(options) {\n  const level = options.level ?? 'info';\n  return async function logger(message) {\n    await write(level, message);\n  };\n}\n";
    // First line right, the rest 2 spaces short.
    const find =
      "export function createLogger(options) {\nconst level = options.level ?? 'info';\nreturn async function logger(message) {\n  await write(level, message);";
    const replace =
      "export function createLogger(options) {\nconst level = options.level ?? 'debug';\nreturn async function logger(message) {\n  await write(level, message);";
    const r = applyPatch(js, find, replace);
    if (r.applied) expect(r.newContent).toBe(js.replace("'info'", "'debug'"));
    expect(r.newContent ?? js).toContain('\n  return async function logger(message) {\n');
  });

  it('the unicode-folded pass writes a changed line without the trailing space replace removed', () => {
    const content = 'const title = \u201CHello\u201D;  \nconst count = 1;\n';
    const r = applyPatch(
      content,
      'const title = "Hello";  \nconst count = 1;',
      'const title = "Hello";\nconst count = 2;',
    );
    expect(r).toMatchObject({ applied: true, strategy: 'unicode_folded' });
    expect(r.newContent).toBe('const title = "Hello";\nconst count = 2;\n');
  });

  it("keeps each untouched line's own ending in a file with mixed endings", () => {
    const content = 'head\r\nx1 line here\r\nx2 line here\nx3 line here\ntail\r\n';
    const r = applyPatch(
      content,
      'x1 line here  \nx2 line here\nx3 line here',
      'x1 line here\nx2 line here\nX3 line here',
    );
    expect(r.newContent).toBe('head\r\nx1 line here\r\nx2 line here\nX3 line here\ntail\r\n');
  });
});

describe('whitespace-only lines', () => {
  const go = 'func a() int {\n    x := 1\n    \n    return x\n}\n';

  it('writes a blank line find quotes exactly as replace has it (a whitespace cleanup), as the exact pass would', () => {
    // Trailing spaces on the first line make this a relaxed match; the blank line "    " is quoted byte for byte.
    const r = applyPatch(
      go,
      'func a() int {  \n    x := 1\n    \n    return x',
      'func a() int {\n    x := 1\n\n    return x',
    );
    expect(r).toMatchObject({ applied: true, strategy: 'trailing_whitespace' });
    expect(r.newContent).toBe('func a() int {\n    x := 1\n\n    return x\n}\n');
  });

  it("keeps the file's blank line when find did not quote its whitespace", () => {
    const r = applyPatch(
      go,
      'func a() int {  \n    x := 1\n\n    return x',
      'func a() int {\n    x := 2\n\n    return x',
    );
    expect(r.newContent).toBe('func a() int {\n    x := 2\n    \n    return x\n}\n');
  });
});

describe('elision', () => {
  const py = ['def a():', '    x = 1', '    return x', '', 'def b():', '    y = 2', '    return x', ''].join('\n');

  it('refuses when a piece fits several spans', () => {
    expect(applyPatch(py, 'def a():\n    ...\n    return x', 'def a():\n    return 0')).toMatchObject({
      applied: false,
      code: 'patch_ambiguous_find',
    });
  });

  it('refuses a short piece that occurs more than once, even when only one placement fits', () => {
    const content = '}\nmiddle_line_value = 2\nend_marker_line_here = 3\n}\n';
    const r = applyPatch(content, '}\n...\nend_marker_line_here = 3', '}\nend_marker_line_here = 4');
    expect(r).toMatchObject({ applied: false, code: 'patch_ambiguous_find', strategy: 'elision' });
  });

  it("refuses replace markers that do not repeat find's", () => {
    const r = applyPatch(py, 'def b():\n    ...\n    return x', 'def b():\n    # ...\n    return y');
    expect(r).toMatchObject({ applied: false, code: 'patch_elision_unpaired' });
  });

  it('replaces exactly the span its pieces anchor', () => {
    const two = py.replace('    y = 2\n    return x', '    y = 2\n    return x + offset_value');
    const r = applyPatch(two, 'def b():\n    ...\n    return x + offset_value', 'def b():\n    ...\n    return y');
    expect(r).toMatchObject({ applied: true, strategy: 'elision', startLine: 5, endLine: 7 });
    expect(r.newContent).toBe(two.replace('    return x + offset_value', '    return y'));
  });
});

describe('passes other tools apply safely', () => {
  const js =
    'function go(a, b) {\n  const total = a * b;\n  if (total > 10) {\n    log("big");\n  }\n  return total;\n}\n';

  it('whitespace differences inside lines (a=b vs a = b): changed lines as replace writes them', () => {
    const py = 'def f(a, b):\n    x = a+b\n    if x>1:\n        return x\n';
    const r = applyPatch(py, '    x = a + b\n    if x>1:', '    x = a + b + 1\n    if x>1:');
    expect(r).toMatchObject({ applied: true, strategy: 'inline_whitespace' });
    expect(r.newContent).toBe('def f(a, b):\n    x = a + b + 1\n    if x>1:\n        return x\n');
    expect(applyPatch(js, 'const total=a*b;', 'const total = a - b;').newContent).toBe(js.replace('a * b', 'a - b'));
  });

  it('refuses to keep a line whose spacing inside differs from the file (which spacing is meant is unknown)', () => {
    // Replace keeps `if x > 1:` as find wrote it; the file has `if x>1:`. Keeping the file's bytes keeps a line
    // the model believed spaced otherwise; writing the model's rewrites a line the patch leaves unchanged.
    const py = 'def f(a, b):\n    x = a+b\n    if x>1:\n        return x\n';
    const r = applyPatch(py, '    x = a + b\n    if x > 1:', '    x = a + b + 1\n    if x > 1:');
    expect(r).toMatchObject({ applied: false, code: 'patch_ambiguous_spacing' });
  });

  it('tabs inside a line', () => {
    const go = 'func run() {\n\tx := 1\n\ty := 2\t// second\n}\n';
    expect(applyPatch(go, '\ty := 2 // second', '\ty := 3 // second').newContent).toBe(
      'func run() {\n\tx := 1\n\ty := 3 // second\n}\n',
    );
  });

  it('whitespace around the whole find', () => {
    expect(applyPatch(js, '   const total = a * b;   ', '   const total = a + b;   ').newContent).toBe(
      js.replace('a * b', 'a + b'),
    );
  });

  it('typographic double quotes in find', () => {
    expect(applyPatch(js, 'log(\u201Cbig\u201D)', 'log("huge")').newContent).toBe(js.replace('"big"', '"huge"'));
  });

  it('line-number prefixes copied from a numbered view, when every line has one', () => {
    const want = js.replace('a * b', 'a + b');
    expect(
      applyPatch(
        js,
        '2 |   const total = a * b;\n3 |   if (total > 10) {',
        '  const total = a + b;\n  if (total > 10) {',
      ),
    ).toMatchObject({ applied: true, strategy: 'line_numbers', newContent: want });
    expect(
      applyPatch(
        js,
        '2\t  const total = a * b;\n3\t  if (total > 10) {',
        '2\t  const total = a + b;\n3\t  if (total > 10) {',
      ).newContent,
    ).toBe(want);
    expect(
      applyPatch(
        js,
        '     2→  const total = a * b;\n     3→  if (total > 10) {',
        '  const total = a + b;\n  if (total > 10) {',
      ).newContent,
    ).toBe(want);
    expect(
      applyPatch(js, '2 |   const total = a * b;\n  if (total > 10) {', '  const total = 0;\n  if (total > 10) {')
        .applied,
    ).toBe(false);
    expect(
      applyPatch(js, '2 |   const total = a * b;\n7 |   if (total > 10) {', '  const total = 0;\n  if (total > 10) {')
        .applied,
    ).toBe(false);
  });

  it('a CRLF find against an LF file', () => {
    expect(
      applyPatch(js, '  const total = a * b;\r\n  if (total > 10) {', '  const total = a + b;\r\n  if (total > 10) {')
        .newContent,
    ).toBe(js.replace('a * b', 'a + b'));
  });

  it('still refuses ambiguity: two lines equal once inner whitespace is ignored', () => {
    const content = 'const total = a*b;\nother();\nconst total = a * b;\n';
    expect(applyPatch(content, 'const total = a  *  b;', 'x();')).toMatchObject({
      applied: false,
      code: 'patch_ambiguous_find',
    });
    expect(applyPatch(js, '  CONST TOTAL = A * B;', '  const total = 1;').applied).toBe(false);
  });
});
