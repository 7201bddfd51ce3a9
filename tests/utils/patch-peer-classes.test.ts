import { describe, expect, it } from 'vitest';
import { applyPatch } from '../../utils/patch.js';
import { applyPatches } from '../../utils/patch/plan-apply.js';
import { unescapeText } from '../../utils/patch/views.js';

// Classes of drifted finds that other editing tools apply; each applies here only where exactly one place fits.

describe('line-number prefixes from a numbered view', () => {
  const file = 'alpha();\nbeta();\ngamma();\n';

  it('an empty replace removes the numbered lines with their line ending', () => {
    const r = applyPatch(file, '2 | beta();', '');
    expect(r.applied).toBe(true);
    expect(r.newContent).toBe('alpha();\ngamma();\n');
  });

  it('one numbered line whose replace is numbered too is stripped on both sides', () => {
    const r = applyPatch(file, '2 | beta();', '2 | delta();');
    expect(r.newContent).toBe('alpha();\ndelta();\ngamma();\n');
  });

  it('refuses when replace numbers some lines and not others (the prefixes would be written)', () => {
    const r = applyPatch(file, '1 | alpha();\n2 | beta();\n3 | gamma();', '1 | alpha();\n    omega();\n3 | gamma();');
    expect(r.applied).toBe(false);
  });
});

describe('find written with escapes', () => {
  it('unescapes quotes in find and replace when the find as given is nowhere', () => {
    const file = 'const greeting = "hello";\n';
    const r = applyPatch(file, 'const greeting = \\"hello\\";', 'const greeting = \\"hi\\";');
    expect(r.strategy).toBe('unescaped');
    expect(r.newContent).toBe('const greeting = "hi";\n');
  });

  it('turns \\n into a line break to locate a block', () => {
    const file = 'first line here\nsecond line here\n';
    const r = applyPatch(file, 'first line here\\nsecond line here', 'first line here\\nsecond line changed');
    expect(r.newContent).toBe('first line here\nsecond line changed\n');
  });

  it('refuses when the unescaped find fits two places', () => {
    const file = 'say("yes"); say("yes");\n';
    expect(applyPatch(file, 'say(\\"yes\\");', 'say("no");').applied).toBe(false);
  });

  it('leaves a file that really holds the escapes to the exact pass', () => {
    const file = 'const s = "a\\"b";\n';
    const r = applyPatch(file, 'const s = "a\\"b";', 'const s = "c";');
    expect(r.strategy).toBe('exact');
    expect(r.newContent).toBe('const s = "c";\n');
  });

  it('keeps a replace that has no escapes as written', () => {
    const file = 'print("one\ntwo")\n';
    const r = applyPatch(file, 'print(\\"one\\ntwo\\")', 'print("one\nthree")');
    expect(r.newContent).toBe('print("one\nthree")\n');
  });

  it('refuses a replace that mixes escaped and bare forms of what find escaped', () => {
    const file = 'say("hi");\n';
    expect(applyPatch(file, 'say(\\"hi\\");', 'say(\\"hello\\", "x");').applied).toBe(false);
  });

  it('reads \\$ as a dollar sign', () => {
    const file = 'const t = `Hello ${name}`;\n';
    expect(applyPatch(file, 'const t = `Hello \\${name}`;', 'const t = `Hi ${name}`;').newContent).toBe(
      'const t = `Hi ${name}`;\n',
    );
  });

  it('unescapeText handles each sequence once', () => {
    expect(unescapeText('a\\nb\\tc\\"d\\\\e')).toBe('a\nb\tc"d\\e');
  });
});

describe('tokens across line breaks', () => {
  const file = 'before();\nfunction check() {\n  return ready;\n}\nafter();\n';

  it('deletes a region written on one line with the whitespace between punctuation left out', () => {
    const r = applyPatch(file, 'function check(){return ready;}', '');
    expect(r.strategy).toBe('token_stream');
    expect(r.newContent).toBe('before();\n\nafter();\n');
  });

  it('reads characters outside the basic plane as one character', () => {
    const emoji = 'const tags = {\n  rocket: "\u{1F680}",\n  done: true\n};\n';
    const r = applyPatch(emoji, 'rocket:"\u{1F680}",done:true', '');
    expect(r.newContent).toBe('const tags = {\n  \n};\n');
  });

  it('writes a one-line replace in place of a region that starts a line', () => {
    const r = applyPatch(file, 'function check(){return ready;}', 'function check() { return done; }');
    expect(r.newContent).toBe('before();\nfunction check() { return done; }\nafter();\n');
  });

  it('refuses a one-line replace whose leading whitespace differs from the find (frame unknown)', () => {
    const nested = 'if (a) {\n  run(x,\n      y);\n}\n';
    expect(applyPatch(nested, 'run(x,y);', '  run(x, y, z);').applied).toBe(false);
    expect(applyPatch(nested, '  run(x,y);', 'run(x, y, z);').applied).toBe(false);
  });

  it('a replacement never spans a line break where find has whitespace (it may end a statement)', () => {
    const py = 'total = price\ncount = 2\n';
    expect(applyPatch(py, 'total = price count = 2', 'total = price count = 3').applied).toBe(false);
    expect(applyPatch(py, 'total = price count = 2', '').newContent).toBe('\n');
  });

  it('never joins two words the file separates', () => {
    expect(applyPatch(file, 'function check(){returnready;}', '').applied).toBe(false);
  });

  it('refuses a replace of several lines (no indentation frame for it)', () => {
    expect(applyPatch(file, 'function check(){return ready;}', 'function check() {\n  return done;\n}').applied).toBe(
      false,
    );
  });

  it('refuses when the tokens fit two places', () => {
    const twice = 'go(a,\n  b);\nstop();\ngo(a, b);\n';
    expect(applyPatch(twice, 'go(a,b); // drifted', '').applied).toBe(false);
    expect(applyPatch(`${twice}go(a,b);\n`, 'go( a , b ) ;', '').applied).toBe(false);
  });
});

describe('whitespace around the whole find', () => {
  it('drops it when replace has none around it', () => {
    const file = 'let total = price * count;\n';
    const r = applyPatch(file, '   price * count   ', 'price * quantity');
    expect(r.newContent).toBe('let total = price * quantity;\n');
  });

  it('an empty replace deletes the trimmed find', () => {
    const file = 'let total = price * count + tax;\n';
    expect(applyPatch(file, '  price * count +  ', '').newContent).toBe('let total =  tax;\n');
  });
});

describe('short finds of several whole lines', () => {
  it('are located by their trimmed lines when one place fits', () => {
    const file = 'def f():\n    x = 1\n    y = 2\n    return x + y\n';
    const r = applyPatch(file, 'x = 1\ny = 2', 'x = 10\ny = 20');
    expect(r.newContent).toBe('def f():\n    x = 10\n    y = 20\n    return x + y\n');
  });

  it('are refused when the same lines sit in two places', () => {
    const file = 'if a:\n    x = 1\n    y = 2\nif b:\n  x = 1\n  y = 2\n';
    expect(applyPatch(file, 'x = 1\ny = 2', 'x = 3\ny = 4').applied).toBe(false);
  });

  it('a short single line with drifted whitespace applies only as a whole line', () => {
    expect(applyPatch('const   x  =  5;\n', 'const x = 5;', 'const x = 10;').newContent).toBe('const x = 10;\n');
    expect(applyPatch('let n = a  +  b * c;\n', 'a + b', 'b + a').applied).toBe(false);
  });
});

describe('a plan of escaped and numbered finds is all or nothing', () => {
  it('applies both in order', () => {
    const r = applyPatches(new Map([['a.ts', 'one("x");\ntwo();\n']]), [
      { file: 'a.ts', operation: 'replace', find: 'one(\\"x\\");', replace: 'one(\\"y\\");' },
      { file: 'a.ts', operation: 'replace', find: '2 | two();', replace: '' },
    ]);
    expect(r.applied).toBe(true);
    expect(r.contents.get('a.ts')).toBe('one("y");\n');
  });
});

describe('short finds with whitespace around them', () => {
  it('apply where the trimmed text stands as whole words once', () => {
    expect(applyPatch("const foo = 'bar';\n", '  foo  ', '  baz  ').newContent).toBe("const baz = 'bar';\n");
    expect(applyPatch('hello world\n', '  hello  ', '').newContent).toBe(' world\n');
    // A bare replace after a short find with whitespace around it is not taken (which spaces go is unknown).
    expect(applyPatch("const foo = 'bar';\n", '  foo  ', 'baz').applied).toBe(false);
  });

  it('do not count a place inside a longer word', () => {
    expect(applyPatch('const food = 1;\n', '  foo  ', '  baz  ').applied).toBe(false);
  });
});

describe('a short find written as a whole line', () => {
  it('matches a line that differs only by typographic quotes or trailing whitespace', () => {
    expect(applyPatch('“hello”\n', '"hello"\n', 'REPLACED\n').newContent).toBe('REPLACED\n');
    expect(applyPatch('line1\nline2  \nline3', 'line2\n', 'replaced\n').newContent).toBe('line1\nreplaced\nline3');
  });

  it('is refused when the line stands more than once, and never matches part of a line', () => {
    expect(applyPatch('“hi”\nx\n“hi”\n', '"hi"\n', 'y\n')).toMatchObject({
      applied: false,
      code: 'patch_ambiguous_find',
    });
    expect(applyPatch('say “hello” now\n', '"hello"\n', 'REPLACED\n').applied).toBe(false);
  });
});

describe('a one-line find at another indentation', () => {
  const file = 'class A {\n  runTask() {}\n}\n';

  it('refuses when replace is indented like the file (it may already be in the file frame)', () => {
    const r = applyPatch(file, '    runTask() {}', '  startTask() {}');
    expect(r.applied).toBe(false);
    expect(r.code).toBe('patch_ambiguous_indent');
  });

  it('moves replace written in the find frame, nested lines included', () => {
    const r = applyPatch(file, '    runTask() {}', '    runTask() {\n      go();\n    }');
    expect(r.newContent).toBe('class A {\n  runTask() {\n    go();\n  }\n}\n');
  });
});

describe('tokens across line breaks inside a multi-line string', () => {
  it('refuses: there a line break is content', () => {
    const file = 'const help = `usage:\n  tool run\n`;\nconst other = 1;\n';
    expect(applyPatch(file, 'usage: tool run', 'usage: tool go').applied).toBe(false);
  });
});
