import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { applyPatch } from '../../utils/patch.js';

beforeEach(async () => {
  vi.stubEnv('CLAWCODE_HOME', await mkdtemp(path.join(tmpdir(), 'clawcode-home-')));
});

const js = [
  'function add(a, b) {',
  '  return a + b;',
  '}',
  '',
  'function greet(name) {',
  "  const msg = 'hello ' + name;",
  '  console.log(msg);',
  '  return msg;',
  '}',
  '',
].join('\n');

describe('exact pass', () => {
  it('replaces a unique find and reports its lines', () => {
    const r = applyPatch(js, '  return a + b;', '  return a - b;');
    expect(r).toMatchObject({
      applied: true,
      strategy: 'exact',
      startLine: 2,
      endLine: 2,
      replacements: 1,
      matchCount: 1,
    });
    expect(r.newContent).toBe(js.replace('a + b', 'a - b'));
  });

  it('writes $ patterns in replace literally', () => {
    const r = applyPatch('x = 1;\n', 'x = 1;', "x = '$&$1$$`$\\'';");
    expect(r.newContent).toBe("x = '$&$1$$`$\\'';\n");
  });

  it('keeps CRLF line endings, writing the replacement with CRLF too', () => {
    const content = 'one\r\ntwo\r\nthree\r\n';
    const r = applyPatch(content, 'two\nthree', 'TWO\nextra\nTHREE');
    expect(r).toMatchObject({ applied: true, strategy: 'exact' });
    expect(r.newContent).toBe('one\r\nTWO\r\nextra\r\nTHREE\r\n');
  });

  it('in a file with mixed endings, writes the endings of the span it replaces', () => {
    const content = 'a1\r\na2\r\nb1 is here\nb2 is here\nc\r\n';
    const r = applyPatch(content, 'b1 is here\nb2 is here', 'B1 is here\nB2 is here');
    expect(r.newContent).toBe('a1\r\na2\r\nB1 is here\nB2 is here\nc\r\n');
  });

  it('accepts CRLF in find and replace for an LF file', () => {
    const r = applyPatch('one\ntwo\nthree\n', 'one\r\ntwo', 'uno\r\ndos');
    expect(r).toMatchObject({ applied: true, strategy: 'exact', newContent: 'uno\ndos\nthree\n' });
  });

  it('keeps a BOM and a missing final newline', () => {
    const r = applyPatch('\uFEFFalpha\nbeta', 'beta', 'gamma');
    expect(r.newContent).toBe('\uFEFFalpha\ngamma');
  });

  it('matches text that starts mid-line', () => {
    const r = applyPatch(js, "'hello ' + name", '`hello ${name}`');
    expect(r.newContent).toContain('const msg = `hello ${name}`;');
  });
});

describe('trimmed_blank_edges pass', () => {
  it('drops blank lines at the edges of find and as many of replace', () => {
    const r = applyPatch(js, '\n\n  console.log(msg);\n  return msg;\n\n', '\n\n  return msg;\n\n');
    expect(r).toMatchObject({ applied: true, strategy: 'trimmed_blank_edges', startLine: 7, endLine: 8 });
    expect(r.newContent).toBe(js.replace('  console.log(msg);\n', ''));
  });

  it('keeps the line anchoring that blank edges implied', () => {
    // "\nreturn" says the match starts a line; "  return a + b;" does not start with "return".
    const r = applyPatch('x\n  y = return_value;\n', '\n\nreturn_value;', 'v;');
    expect(r.applied).toBe(false);
  });
});

describe('trailing_whitespace pass', () => {
  it('ignores trailing spaces, tabs and \\r on each line', () => {
    const content = 'if (ok) {   \n  run();\t\n}\n';
    const r = applyPatch(content, 'if (ok) {\n  run();  \n}', 'if (ok) {\n  runFast();\n}');
    expect(r).toMatchObject({ applied: true, strategy: 'trailing_whitespace' });
    // Lines the patch leaves unchanged keep the file's bytes, trailing spaces included.
    expect(r.newContent).toBe('if (ok) {   \n  runFast();\n}\n');
  });
});

describe('unicode_folded pass', () => {
  it('folds curly quotes, dashes and non-breaking spaces in find', () => {
    const r = applyPatch(
      js,
      '  const msg = \u2018hello\u00A0\u2019 + name;\n  console.log(msg);',
      "  const msg = 'hi ' + name;\n  console.log(msg);",
    );
    expect(r).toMatchObject({ applied: true, strategy: 'unicode_folded', startLine: 6 });
    expect(r.newContent).toContain("const msg = 'hi ' + name;");
  });

  it("keeps the file's typographic characters on lines the patch does not change", () => {
    const content = 'const title = \u201CHello\u201D; // greeting\nconst count = 1;\nconst done = false;\n';
    const r = applyPatch(
      content,
      'const title = "Hello"; // greeting\nconst count = 1;',
      'const title = "Hello"; // greeting\nconst count = 2;',
    );
    expect(r).toMatchObject({ applied: true, strategy: 'unicode_folded' });
    expect(r.newContent).toBe('const title = \u201CHello\u201D; // greeting\nconst count = 2;\nconst done = false;\n');
  });
});

describe('indent_relative pass', () => {
  it('matches a uniformly shifted block and re-indents the replacement', () => {
    const find = 'function greet(name) {\n    return msg;';
    const shifted = 'if (x) {\n  function greet(name) {\n      return msg;\n  }\n}\n';
    const r = applyPatch(shifted, find, 'function greet(name) {\n    log(name);\n    return msg;');
    expect(r).toMatchObject({ applied: true, strategy: 'indent_relative' });
    expect(r.newContent).toBe('if (x) {\n  function greet(name) {\n      log(name);\n      return msg;\n  }\n}\n');
  });

  it('matches tabs in find against a space-indented file and writes spaces', () => {
    const find = "function greet(name) {\n\tconst msg = 'hello ' + name;\n\tconsole.log(msg);";
    const replace = "function greet(name) {\n\tconst msg = 'hello ' + name;\n\tif (msg) {\n\t\tconsole.log(msg);\n\t}";
    const r = applyPatch(js, find, replace);
    expect(r).toMatchObject({ applied: true, strategy: 'indent_relative' });
    expect(r.newContent).toContain(
      "  const msg = 'hello ' + name;\n  if (msg) {\n    console.log(msg);\n  }\n  return msg;",
    );
  });

  it('matches spaces in find against a tab-indented file and writes tabs', () => {
    const content = 'class A {\n\tm() {\n\t\treturn 1;\n\t}\n}\n';
    const r = applyPatch(
      content,
      '    m() {\n        return 1;\n    }',
      '    m() {\n        const v = 1;\n        return v;\n    }',
    );
    expect(r).toMatchObject({ applied: true, strategy: 'indent_relative' });
    expect(r.newContent).toBe('class A {\n\tm() {\n\t\tconst v = 1;\n\t\treturn v;\n\t}\n}\n');
  });

  it('refuses when a new line has no certain spelling in a tab file', () => {
    const content = 'class A {\n\tm() {\n\t\treturn 1;\n\t}\n}\n';
    const r = applyPatch(
      content,
      '    m() {\n        return 1;\n    }',
      '    m() {\n      odd();\n        return 1;\n    }',
    );
    expect(r).toMatchObject({ applied: false, code: 'patch_ambiguous_indent' });
  });
});

describe('indentation frames', () => {
  it('takes a uniform extra prefix off new lines, tabs included', () => {
    const content = 'func a() {\n\tx := 1\n\treturn x\n}\n';
    const r = applyPatch(
      content,
      '  func a() {\n  \tx := 1',
      '  func a() {\n  \tx := 1\n  \tif x > 0 {\n  \t\tx++\n  \t}',
    );
    expect(r).toMatchObject({ applied: true, strategy: 'indent_relative' });
    expect(r.newContent).toBe('func a() {\n\tx := 1\n\tif x > 0 {\n\t\tx++\n\t}\n\treturn x\n}\n');
  });

  it('refuses a new line with a tab when the model wrote only spaces elsewhere', () => {
    const content = '\t/**\n\t * Docs for run.\n\t */\n\trun() {}\n';
    const r = applyPatch(content, '/**\n * Docs for run.\n */', '/**\n * Docs for run.\n\t * odd.\n */');
    expect(r).toMatchObject({ applied: false, code: 'patch_ambiguous_indent' });
  });
});

describe('trimmed_lines pass', () => {
  it('matches when one line has the wrong indentation', () => {
    const find = "function greet(name) {\n  const msg = 'hello ' + name;\n      console.log(msg);";
    const r = applyPatch(js, find, "function greet(name) {\n  const msg = 'hey ' + name;\n  console.log(msg);");
    expect(r).toMatchObject({ applied: true, strategy: 'trimmed_lines', startLine: 5, endLine: 7 });
    expect(r.newContent).toContain("  const msg = 'hey ' + name;\n  console.log(msg);\n  return msg;");
  });
});

describe('blank_lines_ignored pass', () => {
  it('matches when find dropped a blank line, keeping the file around it', () => {
    const r = applyPatch(js, '}\nfunction greet(name) {', '}\n\nfunction greet(person) {');
    expect(r).toMatchObject({ applied: true, strategy: 'blank_lines_ignored', startLine: 3, endLine: 5 });
    expect(r.newContent).toBe(js.replace('function greet(name)', 'function greet(person)'));
  });

  // A file where find leaves out the blank line between `first = 1` and `second = 2` but quotes another one.
  const py = ['def setup():', '    first = 1', '', '    second = 2', '', '    return first', ''].join('\n');

  it('removes a left-out blank line between removed lines when find quotes other blank lines', () => {
    // find quotes a blank line of its own, so replace without any removes blank lines on purpose.
    const r = applyPatch(
      py,
      'def setup():\n    first = 1\n    second = 2\n\n    return first',
      'def setup():\n    return 0',
    );
    expect(r).toMatchObject({ applied: true, strategy: 'blank_lines_ignored', startLine: 1, endLine: 6 });
    expect(r.newContent).toBe('def setup():\n    return 0\n');
  });

  it('still refuses when neither find nor replace has a blank line (replace may leave them out as find did)', () => {
    const r = applyPatch(py, 'def setup():\n    first = 1\n    second = 2', 'def setup():\n    third = 3');
    expect(r).toMatchObject({ applied: false, code: 'patch_ambiguous_blank_edge' });
  });
});

describe('elision pass', () => {
  const py = [
    'def a():',
    '    x = 1',
    '    y = 2',
    '    z = 3',
    '    return x',
    '',
    'def b():',
    '    return 2',
    '',
  ].join('\n');

  it('anchors both ends and replaces the whole span when replace has no marker', () => {
    const r = applyPatch(py, 'def a():\n    ...\n    return x', 'def a():\n    return 1');
    expect(r).toMatchObject({ applied: true, strategy: 'elision', startLine: 1, endLine: 5 });
    expect(r.newContent).toBe('def a():\n    return 1\n\ndef b():\n    return 2\n');
  });

  it('keeps the elided middle verbatim when replace repeats the marker', () => {
    const r = applyPatch(py, 'def a():\n    ...\n    return x', 'def a(v):\n    ...\n    return x + v');
    expect(r.newContent).toBe(
      'def a(v):\n    x = 1\n    y = 2\n    z = 3\n    return x + v\n\ndef b():\n    return 2\n',
    );
  });

  it('refuses an elision with nothing quoted before the marker', () => {
    const r = applyPatch(py, '...\n    return x', 'pass');
    expect(r).toMatchObject({ applied: false, code: 'patch_elision_unanchored' });
  });

  it('refuses replace markers that do not pair with find', () => {
    const r = applyPatch(py, 'def a():\n    ...\n    return x', 'def a():\n    ...\n    y\n    ...\n    return x');
    expect(r).toMatchObject({ applied: false, code: 'patch_elision_unpaired' });
  });

  it('refuses when the anchors fit several spans and replace gives no evidence', () => {
    const two = 'def a():\n    p = 1\n    return x\n\ndef a():\n    q = 2\n    return x\n';
    const r = applyPatch(two, 'def a():\n    ...\n    return x', 'def a():\n    return 0');
    expect(r).toMatchObject({ applied: false, code: 'patch_ambiguous_find', strategy: 'elision' });
    expect(r.matchCount).toBeGreaterThanOrEqual(2);
  });

  it('never picks one of several spans by how much the replacement resembles it', () => {
    const two = 'def a():\n    p = compute_first()\n    return x\n\ndef a():\n    q = compute_second()\n    return x\n';
    const r = applyPatch(
      two,
      'def a():\n    ...\n    return x',
      'def a():\n    q = compute_second()\n    log(q)\n    return x',
    );
    expect(r).toMatchObject({ applied: false, code: 'patch_ambiguous_find', strategy: 'elision' });
  });
});

describe('elision: a short piece next to a unique one', () => {
  // `}` occurs three times; the tail comment is unique and long. The nearest `}` before it (line 6) is the only
  // placement whose elided text holds no copy of a piece.
  const js = [
    'function first() {',
    '  return computeFirst();',
    '}',
    '',
    'function second(value) {',
    '  return value * 2;',
    '}',
    '',
    'const total = second(3);',
    'log(total);',
    '// the end of the module marker',
    'export default total;',
    '',
  ].join('\n');
  const find = '}\n\n...\n// the end of the module marker';

  it('applies at the nearest copy when replace keeps a line of the elided text and nothing beyond it', () => {
    const replace = '}\n\nconst total = second(4);\nlog(total);\n// the end of the module marker';
    const r = applyPatch(js, find, replace);
    expect(r).toMatchObject({ applied: true, strategy: 'elision', startLine: 7, endLine: 11 });
    expect(r.newContent).toBe(js.replace('second(3)', 'second(4)'));
  });

  it('settles a short tail piece after a unique head the same way', () => {
    const r = applyPatch(
      js,
      'function second(value) {\n...\n}',
      'function second(value) {\n  const twice = value * 2;\n  return value * 2;\n}',
    );
    expect(r).toMatchObject({ applied: true, strategy: 'elision', startLine: 5, endLine: 7 });
    expect(r.newContent).toBe(js.replace('  return value * 2;', '  const twice = value * 2;\n  return value * 2;'));
  });

  it('refuses when replace keeps nothing of the elided text (it may have meant a farther copy)', () => {
    const r = applyPatch(js, find, '}\n\n// the end of the module marker');
    expect(r).toMatchObject({ applied: false, code: 'patch_ambiguous_find', strategy: 'elision' });
  });

  it('refuses when replace repeats text between the nearest copy and the next farther one', () => {
    // `return value * 2;` lies between the second and the third `}`: the span reaches farther than the nearest.
    const replace =
      '}\n\n  return value * 2;\n}\n\nconst total = second(4);\nlog(total);\n// the end of the module marker';
    const r = applyPatch(js, find, replace);
    expect(r).toMatchObject({ applied: false, code: 'patch_ambiguous_find', strategy: 'elision' });
  });

  it('refuses when replace holds a copy of the short piece between the pieces', () => {
    const replace = '}\n\nconst total = second(4);\nif (total) {\n  log(total);\n}\n// the end of the module marker';
    expect(applyPatch(js, find, replace)).toMatchObject({ applied: false, code: 'patch_ambiguous_find' });
  });

  it('refuses when the nearest span already reads as replace (the change must be meant elsewhere)', () => {
    const replace = '}\n\nconst total = second(3);\nlog(total);\n// the end of the module marker';
    expect(applyPatch(js, find, replace)).toMatchObject({ applied: false, code: 'patch_ambiguous_find' });
  });

  it('refuses when both pieces are short and repeated and replace keeps nothing of the elided text', () => {
    const r = applyPatch(js, '}\n...\n}', '}\n\nfunction third(value) {\n  return value * 3;\n}');
    expect(r).toMatchObject({ applied: false, code: 'patch_ambiguous_find', strategy: 'elision' });
  });

  it('refuses when replace does not begin with the head piece', () => {
    const r = applyPatch(js, find, '};\n\nconst total = second(4);\nlog(total);\n// the end of the module marker');
    expect(r).toMatchObject({ applied: false, code: 'patch_ambiguous_find' });
  });

  it('keeps refusing markers in replace that keep the elided text (no evidence about it)', () => {
    const r = applyPatch(js, find, '}\n\n...\n// the end of the module marker, renamed');
    expect(r).toMatchObject({ applied: false, code: 'patch_ambiguous_find' });
  });
});

describe('refusals', () => {
  it('refuses a find that matches nowhere and points at the nearest region', () => {
    const r = applyPatch(js, "function greet(name) {\n  const msg = 'hello ' + nam;\n  console.log(msg);", 'x');
    expect(r).toMatchObject({ applied: false, code: 'patch_no_match', closest: { startLine: 5, endLine: 7 } });
    expect(r.error).toContain('lines 5–7');
    expect(r.newContent).toBeUndefined();
  });

  it('suggests the line sharing most words with a one-line find', () => {
    const r = applyPatch(js, 'console.log(msg, name);', 'x();');
    expect(r).toMatchObject({ applied: false, code: 'patch_no_match', closest: { startLine: 7, endLine: 7 } });
  });

  it('refuses an ambiguous exact find with the count and every line', () => {
    const content = 'a();\nb();\na();\nc();\na();\n';
    const r = applyPatch(content, 'a();', 'z();');
    expect(r).toMatchObject({
      applied: false,
      code: 'patch_ambiguous_find',
      strategy: 'exact',
      matchCount: 3,
      matchLines: [1, 3, 5],
    });
    expect(r.error).toContain('3 places');
    expect(r.error).toContain('1, 3, 5');
  });

  it('counts locations, not texts: a block at two indentations is ambiguous', () => {
    const content =
      'if (a) {\n  doThing(one);\n  doThing(two);\n}\nif (b) {\n    doThing(one);\n    doThing(two);\n}\n';
    const r = applyPatch(content, '      doThing(one);\n      doThing(two);', 'x();');
    expect(r).toMatchObject({
      applied: false,
      code: 'patch_ambiguous_find',
      strategy: 'indent_relative',
      matchLines: [2, 6],
    });
  });

  it('never falls through to a looser pass after an ambiguous one', () => {
    // Exact: 2 places. A looser pass could single one out by its trailing space; it must not run.
    const content = 'call(x);\nnext();\ncall(x);  \nother();\n';
    const r = applyPatch(content, 'call(x);', 'call(y);');
    expect(r).toMatchObject({ applied: false, code: 'patch_ambiguous_find', strategy: 'exact', matchCount: 2 });
  });

  it('a stricter unique match wins over looser near-duplicates', () => {
    const content = 'if (a) {\n  run(alpha);\n  run(beta);\n}\nif (b) {\n    run(alpha);\n    run(beta);\n}\n';
    const r = applyPatch(content, '  run(alpha);\n  run(beta);\n}', '  run(gamma);\n}');
    expect(r).toMatchObject({ applied: true, strategy: 'exact', startLine: 2 });
  });

  it('short finds must match exactly', () => {
    const r = applyPatch('    i++;\n', 'i++; ', 'i--;');
    expect(r).toMatchObject({ applied: false, code: 'patch_no_match' });
  });

  it('a partial line does not match by trimming, only whole tokens with whitespace differences', () => {
    expect(applyPatch('  const total = price * qty;\n', 'total = price  * qt', 'total = 0').applied).toBe(false);
    expect(applyPatch('  const total = price * qty;\n', 'otal = price  * qty', 'total = 0').applied).toBe(false);
    const r = applyPatch('  const total = price * qty;\n', 'total = price  * qty', 'total = 0');
    expect(r).toMatchObject({ applied: true, strategy: 'inline_whitespace', newContent: '  const total = 0;\n' });
  });

  it('empty find only fills a new or empty file', () => {
    expect(applyPatch('', '', 'hello\n')).toMatchObject({
      applied: true,
      newContent: 'hello\n',
      strategy: 'empty_file',
    });
    expect(applyPatch('\uFEFF', '', 'x')).toMatchObject({ applied: true, newContent: '\uFEFFx' });
    expect(applyPatch('existing\n', '', 'hello\n')).toMatchObject({ applied: false, code: 'patch_empty_find' });
  });

  it('refuses a patch whose find equals its replace', () => {
    expect(applyPatch(js, 'return msg;', 'return msg;')).toMatchObject({ applied: false, code: 'patch_noop' });
  });

  it('refuses to change the count of blank lines at an edge inside a longer blank run', () => {
    const content = 'x = 1\n\n\ndef f(a):\n    return a\n';
    // Find quotes one blank line of a run of two: whatever count replace writes there, which of the file's
    // blank lines it meant is a guess. (A replacement restating the run's two was measured both ways: a
    // model that quoted one line too few, and one that added a blank line.)
    for (const replace of ['\n\n\ndef f(b):', '\n\ndef f(b):']) {
      expect(applyPatch(content, '\ndef f(a):', replace)).toMatchObject({
        applied: false,
        code: 'patch_ambiguous_blank_edge',
      });
    }
    const tail = applyPatch('def f(a):\n    return a\n\n\nx = 1\n', '    return a\n', '    return b\n\n\n');
    expect(tail).toMatchObject({ applied: false, code: 'patch_ambiguous_blank_edge' });
  });

  it('writes the count of blank lines a find that quotes the whole run asks for', () => {
    // The line break before the run ends `x = 1`: the find quotes both blank lines, and replace keeps one.
    const content = 'x = 1\n\n\ndef f(a):\n    return a\n';
    expect(applyPatch(content, '\n\ndef f(a):', '\ndef f(b):').newContent).toBe('x = 1\n\ndef f(b):\n    return a\n');
  });

  it('widens a find at the edge of a blank run to the whole run when replace restates the run exactly', () => {
    // Find quotes two blank lines of a run of three and replace writes all three: the run keeps its count.
    const content = 'x = 1\n\n\n\ndef f(a):\n    return a\n';
    const r = applyPatch(content, '\n\ndef f(a):', '\n\n\ndef f(b):');
    expect(r.newContent).toBe('x = 1\n\n\n\ndef f(b):\n    return a\n');
  });

  it('says when the replacement is already in the file', () => {
    const r = applyPatch('a = 2\n', 'a = 1 + 0', 'a = 2');
    expect(r.hint).toContain('already');
  });
});

describe('occurrence and replaceAll', () => {
  const content = 'log(1);\nlog(2);\nlog(1);\n';

  it('replaces only the named 1-based occurrence', () => {
    const r = applyPatch(content, 'log(1);', 'log(9);', { occurrence: 2 });
    expect(r).toMatchObject({ applied: true, startLine: 3, replacements: 1, matchCount: 2 });
    expect(r.newContent).toBe('log(1);\nlog(2);\nlog(9);\n');
  });

  it('replaces every occurrence with replaceAll', () => {
    const r = applyPatch(content, 'log(1);', 'log(9);', { replaceAll: true });
    expect(r).toMatchObject({ applied: true, replacements: 2 });
    expect(r.newContent).toBe('log(9);\nlog(2);\nlog(9);\n');
  });

  it('refuses an occurrence past the last match', () => {
    expect(applyPatch(content, 'log(1);', 'x', { occurrence: 3 })).toMatchObject({
      applied: false,
      code: 'patch_occurrence_out_of_range',
    });
  });

  it('refuses invalid options', () => {
    expect(applyPatch(content, 'log(1);', 'x', { occurrence: 0 })).toMatchObject({ code: 'patch_invalid_options' });
    expect(applyPatch(content, 'log(1);', 'x', { occurrence: 1.5 })).toMatchObject({ code: 'patch_invalid_options' });
    expect(applyPatch(content, 'log(1);', 'x', { occurrence: 1, replaceAll: true })).toMatchObject({
      code: 'patch_invalid_options',
    });
  });

  it('writes $ patterns literally in every replaced place', () => {
    const r = applyPatch(content, 'log(1);', "log('$&$$');", { replaceAll: true });
    expect(r.newContent).toBe("log('$&$$');\nlog(2);\nlog('$&$$');\n");
  });

  it('refuses replaceAll when the matches overlap', () => {
    expect(applyPatch('aaaa', 'aa', 'b', { replaceAll: true })).toMatchObject({
      applied: false,
      code: 'patch_overlapping_matches',
    });
  });
});
