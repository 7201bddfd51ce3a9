import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { applyPatch } from '../../utils/patch.js';
import { IN_COMMENT, literalLines } from '../../utils/patch/literal.js';

beforeEach(async () => {
  vi.stubEnv('CLAWCODE_HOME', await mkdtemp(path.join(tmpdir(), 'clawcode-home-')));
});

describe('uneven indentation in find: a changed line takes the indentation of the line it replaces', () => {
  it('changes lines in place when every find line is off by a different amount', () => {
    const js = '  if (ready) {\n    return compute(value);\n  }\n';
    const r = applyPatch(js, 'if (ready) {\nreturn compute(value);\n}', 'if (!ready) {\nreturn compute(other);\n}');
    expect(r).toMatchObject({ applied: true, strategy: 'trimmed_lines' });
    expect(r.newContent).toBe('  if (!ready) {\n    return compute(other);\n  }\n');
  });

  it('keeps a drifted untouched line as the file has it while changing its neighbour', () => {
    const js =
      "export function createLogger(options) {\n  const level = options.level ?? 'info';\n  return async function logger(message) {\n    await write(level, message);\n  };\n}\n";
    // First line right, the rest 2 spaces short.
    const find =
      "export function createLogger(options) {\nconst level = options.level ?? 'info';\nreturn async function logger(message) {\n  await write(level, message);";
    const replace =
      "export function createLogger(options) {\nconst level = options.level ?? 'debug';\nreturn async function logger(message) {\n  await write(level, message);";
    expect(applyPatch(js, find, replace).newContent).toBe(js.replace("'info'", "'debug'"));
  });

  it('two lines replaced by one: the new line goes where the removed line indented like it was', () => {
    const js = '  if (on) {\n    console.log("level one");\n      console.log("level two");\n  }\n';
    const r = applyPatch(
      js,
      'if (on) {\nconsole.log("level one");\n  console.log("level two");\n}',
      'if (on) {\nconsole.log("updated");\n}',
    );
    expect(r.newContent).toBe('  if (on) {\n    console.log("updated");\n  }\n');
  });

  it('a line with trailing drift, changed in place, takes its own line’s indentation', () => {
    const r = applyPatch(
      '    alpha_value   \n   beta_value\t\n',
      'alpha_value\nbeta_value',
      'alpha_value\ngamma_value',
    );
    expect(r.newContent).toBe('    alpha_value   \n   gamma_value\n');
  });

  it('refuses when replace keeps no line of find (its frame may not be find’s)', () => {
    const js = '\n  function oldFunc() {\n    // some code\n  }';
    const r = applyPatch(js, 'function  oldFunc() {\n    // some code\n  }', 'function newFunc() {\n  // new code\n}');
    if (r.applied) expect(r.newContent).toBe('\n  function newFunc() {\n    // new code\n  }');
  });

  it('refuses when the file indents the span with tabs on some lines and spaces on others', () => {
    const go = 'func f() {\n    a := 1\n    b := 2\n\tc := 3\n}\n';
    const r = applyPatch(
      go,
      'func f() {\n    a := 1\n    b := 2\n    c := 3\n}',
      'func f() {\n    a := 1\n    b := 5\n    c := 3\n}',
    );
    // The span is half converted: whether `b := 5` should keep spaces or take the tab is not known.
    expect(r.applied).toBe(false);
  });

  it('refuses a new line whose find indentation sits at two file indentations around it', () => {
    const js = 'start_block();\n  first_call();\n    second_call();\nend_block();\n';
    const r = applyPatch(
      js,
      'start_block();\nfirst_call();\nsecond_call();\nend_block();',
      'start_block();\nfirst_call();\ninserted_call();\nsecond_call();\nend_block();',
    );
    expect(r.applied).toBe(false);
  });
});

describe('equal lines in find that the file writes differently', () => {
  it('refuses to delete one of them: which one goes is the diff’s arbitrary choice', () => {
    // Find lost the indentation of the first `};`, and replace keeps one `};`: either may be the one deleted.
    const js = 'setup_call();\n      };\n};\nnext_call();\n';
    expect(applyPatch(js, 'setup_call();\n};\n};', 'setup_call();\n};').applied).toBe(false);
  });
});

describe('a multi-line string that replace writes whole', () => {
  const py = 'class Cache:\n    size = 10\n\n    # The limit.\n    limit = 5\n';
  // Tabs where the file has spaces, in find and in replace alike.
  const find = '\tsize = 10\n\n\t# The limit.\n\tlimit = 5';

  it('moves a new docstring with the code around it: the tabs of the model become the file spaces', () => {
    const replace =
      '\tsize = 10\n\n\tdef limit(self):\n\t\t"""The limit.\n\n\t\t\tSee also size.\n\t\t"""\n\t\treturn 5';
    const r = applyPatch(py, find, replace);
    expect(r).toMatchObject({ applied: true, strategy: 'indent_relative' });
    expect(r.newContent).toBe(
      'class Cache:\n    size = 10\n\n    def limit(self):\n        """The limit.\n\n            See also size.\n        """\n        return 5\n',
    );
  });

  it('moves a new docstring whose blank line the diff pairs with a blank line of find', () => {
    const py2 = 'class Cache:\n    size = 10\n    # The limit.\n\n    limit = 5\n';
    const r = applyPatch(
      py2,
      '\tsize = 10\n\t# The limit.\n\n\tlimit = 5',
      '\tsize = 10\n\tdef limit(self):\n\t\t"""The limit.\n\n\t\tMore.\n\t\t"""\n\t\treturn 5',
    );
    expect(r.newContent).toBe(
      'class Cache:\n    size = 10\n    def limit(self):\n        """The limit.\n\n        More.\n        """\n        return 5\n',
    );
  });

  it('refuses to turn spaces into tabs inside a new raw string (its whitespace may be content)', () => {
    const go = 'func config() string {\n\tname := "x"\n\treturn name\n}\n';
    const r = applyPatch(
      go,
      'func config() string {\n    name := "x"\n    return name',
      'func config() string {\n    name := "x"\n    doc := `\n    key:\n      value: 1\n    `\n    return name + doc',
    );
    expect(r).toMatchObject({ applied: false, code: 'patch_ambiguous_indent' });
  });

  it('refuses when the string opened in replace closes in text the patch keeps', () => {
    const py2 = 'def f():\n    x = 1\n    return x\n';
    const r = applyPatch(py2, 'def f():\n\tx = 1\n\treturn x', 'def f():\n\tx = """\n\t\tdoc\n\treturn x');
    expect(r.applied).toBe(false);
  });
});

describe('a line that opens a multi-line string', () => {
  it('is re-indented like code: only its leading whitespace moves, the string after it is kept', () => {
    const go = 'func tmpl() string {\n\tif ok {\n\t\treturn x\n\t}\n\treturn `{{.Name}}\n  body\n`\n}\n';
    const r = applyPatch(
      go,
      '    if ok {\n        return x\n    }\n    return `{{.Name}}',
      '    if ok {\n        return x\n    }\n    return `{{.DisplayName}}',
    );
    expect(r.newContent).toBe(go.replace('{{.Name}}', '{{.DisplayName}}'));
  });

  it('still refuses a new line added inside the string it opens', () => {
    const go = 'func tmpl() string {\n\tif ok {\n\t\treturn x\n\t}\n\treturn `{{.Name}}\n  body\n`\n}\n';
    const r = applyPatch(
      go,
      '    if ok {\n        return x\n    }\n    return `{{.Name}}',
      '    if ok {\n        return x\n    }\n    return `{{.Name}}\n    extra',
    );
    expect(r.newContent ?? '').not.toContain('\textra');
  });
});

describe('block comments are not strings', () => {
  it('a code fence inside a doc comment opens no string', () => {
    const lines = ['/**', ' * Example:', ' * ```', ' * run()', ' * ```', ' */', 'const a = `', 'x', '`;'];
    expect(literalLines(lines)).toEqual([false, false, false, false, false, false, false, true, true]);
    // Read as a fragment that begins inside the comment.
    expect(literalLines(['```', 'run()', '```', '*/', 'f()'], IN_COMMENT)).toEqual([false, false, false, false, false]);
  });

  it('an open `/*` after code (a path glob) starts no comment: a heredoc after it is still a string', () => {
    expect(literalLines(['rm -rf build/*', 'cat <<EOF', '  text', 'EOF', 'echo'])).toEqual([
      false,
      false,
      true,
      true,
      false,
    ]);
  });

  it('re-indents new lines of a doc comment that hold a code fence', () => {
    const ts = 'export type Options = {\n\t/**\n\tRetry count.\n\t*/\n\tretry?: number;\n};\n';
    // The find begins inside the comment; replace adds a fenced example to it.
    const r = applyPatch(
      ts,
      '    Retry count.\n    */\n    retry?: number;',
      '    Retry count.\n\n    ```\n    ky(url, {retry: 2});\n    ```\n    */\n    retry?: number;',
    );
    expect(r.newContent).toBe(
      ts.replace('\tRetry count.\n', '\tRetry count.\n\n\t```\n\tky(url, {retry: 2});\n\t```\n'),
    );
  });
});

describe('uneven indentation in find, replace written in find’s frame (property)', () => {
  it('gives each edited line its own file indentation, or refuses; never other bytes', () => {
    const line = fc
      .tuple(
        fc.constantFrom('', '  ', '    ', '      '),
        fc.array(fc.constantFrom('let', 'x', 'return', 'foo(bar)', '=', '+', '1', 'if', '{', '}', 'y'), {
          minLength: 1,
          maxLength: 4,
        }),
      )
      .map(([indent, words]) => indent + words.join(' '));
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 3, maxLength: 20 }),
        fc.nat(),
        fc.integer({ min: 3, max: 6 }),
        fc.array(fc.constantFrom('keep', 'keep', 'edit', 'insert', 'delete'), { minLength: 6, maxLength: 6 }),
        fc.array(fc.constantFrom(0, 2, 4), { minLength: 6, maxLength: 6 }),
        (lines, at, len, ops, losses) => {
          const start = at % lines.length;
          const block = lines.slice(start, Math.min(lines.length, start + len));
          fc.pre(block.length >= 3);
          const indentOf = (l: string) => /^ */.exec(l)![0];
          // The model's view: each line loses some of its indentation, by a different amount.
          const seen = block.map((l, k) => indentOf(l).slice(Math.min(losses[k]!, indentOf(l).length)) + l.trim());
          const replace: string[] = [];
          const intended: string[] = [];
          block.forEach((l, k) => {
            const op = ops[k]!;
            if (op === 'keep' || op === 'insert') {
              replace.push(seen[k]!);
              intended.push(l);
            }
            if (op === 'edit') {
              replace.push(`${seen[k]!}2`);
              intended.push(`${l}2`);
            }
            if (op === 'insert') {
              replace.push(`${indentOf(seen[k]!)}added${k}();`);
              intended.push(`${indentOf(l)}added${k}();`);
            }
          });
          // (Deleting every line of find leaves its last line break: a different, tested rule.)
          fc.pre(intended.length > 0 && intended.join('\n') !== block.join('\n'));
          const content = `${lines.join('\n')}\n`;
          const find = seen.join('\n');
          fc.pre(find === block.join('\n') || !lines.join('\n').includes(find));
          const want = `${[...lines.slice(0, start), ...intended, ...lines.slice(start + block.length)].join('\n')}\n`;
          const r = applyPatch(content, find, replace.join('\n'));
          if (r.applied) expect(r.newContent).toBe(want);
        },
      ),
      { numRuns: 1500 },
    );
  });
});
