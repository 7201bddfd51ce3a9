import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { applyPatch, type PatchResult } from '../../utils/patch.js';

// Three ways a relaxed pass once applied a patch with other bytes than the ones meant. Each property builds
// a file, an edit of it quoted exactly (find0 → replace0: the intended result is their exact splice), then
// the same edit as a model drifts it; whatever the drift, an applied patch must give the intended bytes.

beforeEach(async () => {
  vi.stubEnv('CLAWCODE_HOME', await mkdtemp(path.join(tmpdir(), 'clawcode-home-')));
});

/** The intended result: content with its one copy of find0 replaced by replace0 (undefined when not one copy). */
function intended(content: string, find0: string, replace0: string): string | undefined {
  const at = content.indexOf(find0);
  if (at < 0 || content.indexOf(find0, at + 1) >= 0) return undefined;
  return content.slice(0, at) + replace0 + content.slice(at + find0.length);
}

/**
 * Applies the edit block → edited (lines of content, quoted exactly) as a model drifts it (`drift` renders
 * lines as the model wrote them), skipping inputs where the drift changes nothing; an applied patch must
 * give the intended bytes. Returns the result for further checks.
 */
function applyDrifted(
  content: string,
  block: string[],
  edited: string[],
  drift: (lines: string[]) => string,
): PatchResult {
  const want = intended(content, block.join('\n'), edited.join('\n'));
  fc.pre(want !== undefined && block.join('\n') !== edited.join('\n'));
  fc.pre(!content.includes(drift(block)));
  const r = applyPatch(content, drift(block), drift(edited));
  if (r.applied) expect(r.newContent).toBe(want);
  return r;
}

/** One to three methods, each as (docstring lines, body statements). */
function methodsOf(text: fc.Arbitrary<string>, stmt: fc.Arbitrary<string>): fc.Arbitrary<[string[], string[]][]> {
  const method = fc.tuple(
    fc.array(text, { minLength: 1, maxLength: 4 }),
    fc.array(stmt, { minLength: 1, maxLength: 3 }),
  );
  return fc.array(method, { minLength: 1, maxLength: 3 });
}

const word = fc.constantFrom('let', 'x', 'y', 'return', 'foo(bar)', '=', '1', 'if', '{', '}');
const codeLine = fc
  .tuple(
    fc.constantFrom('', '  ', '    '),
    fc.array(word, { minLength: 1, maxLength: 4 }),
    fc.constantFrom('', ';', ' {'),
  )
  .map(([indent, words, end]) => indent + words.join(' ') + end);

describe('the end of the file', () => {
  it('keeps the line breaks a relaxed find drops, as the exact pass does', () => {
    const drifts = {
      trailing: (l: string, find: boolean, k: number) => (find && k % 2 === 0 ? `${l}  ` : l),
      shift: (l: string) => `  ${l}`,
      tabs: (l: string) => l.replace(/^( {2})+/, (s) => '\t'.repeat(s.length / 2)),
    };
    fc.assert(
      fc.property(
        fc.array(fc.oneof({ weight: 5, arbitrary: codeLine }, { weight: 1, arbitrary: fc.constant('') }), {
          minLength: 2,
          maxLength: 12,
        }),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom('', '\n', '\n\n'),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom<keyof typeof drifts>('trailing', 'shift', 'tabs'),
        fc.array(fc.constantFrom('keep', 'change', 'delete', 'insert'), { minLength: 5, maxLength: 5 }),
        (lines, len, eof, findBreak, replaceBreak, drift, ops) => {
          // A block at the end of the file, with or without its final line break in find and replace.
          const content = lines.join('\n') + eof;
          const block = lines.slice(Math.max(0, lines.length - len));
          fc.pre(block[0]!.trim() !== '');
          const edited = block.flatMap((l, k) => {
            const indent = /^\s*/.exec(l)![0];
            const op = ops[k] ?? 'keep';
            if (op === 'keep' || l.trim() === '') return [l];
            if (op === 'change') return [`${indent}changed${k}();`];
            return op === 'insert' ? [l, `${indent}added${k}();`] : [];
          });
          const brk = findBreak && eof !== '' ? '\n' : '';
          const find0 = block.join('\n') + brk;
          const replace0 = edited.join('\n') + (replaceBreak ? brk : '');
          fc.pre(find0 !== replace0 && find0.replace(/\s/g, '').length >= 10);
          const want = intended(content, find0, replace0);
          fc.pre(want !== undefined);
          const move = drifts[drift];
          const find = block.map((l, k) => (l.trim() === '' ? l : move(l, true, k))).join('\n') + brk;
          const replace =
            edited.map((l, k) => (l.trim() === '' ? l : move(l, false, k))).join('\n') + (replaceBreak ? brk : '');
          fc.pre(!content.includes(find));
          const r = applyPatch(content, find, replace);
          if (r.applied) expect(r.newContent).toBe(want);
        },
      ),
      { numRuns: 1500 },
    );
  });
  it("a find of whole lines, trimmed of its line breaks, never lands inside another line's indentation", () => {
    // Found by the property above: "  let foo(bar);\n\n" is a substring of the first line's indentation and text
    // once its blank edge is trimmed; the line meant is the second (shifted by the model), so it is ambiguous.
    const content = '    let foo(bar);\nlet foo(bar);\n\n';
    for (const [find, replace] of [
      ['  let foo(bar);\n\n', '  changed0();\n\n'],
      ['  let foo(bar);\n', '  changed0();\n'],
    ] as const) {
      const r = applyPatch(content, find, replace);
      expect(r.applied).toBe(false);
      expect(r.code).toBe('patch_ambiguous_find');
    }
  });
});

describe('strings keep their bytes under any re-indent', () => {
  it('a space-indented file written in tabs: string lines, space-only ones included, come back as spaces', () => {
    // Python-like methods with docstrings; the model writes every leading run of four spaces as a tab.
    const text = fc.constantFrom('Some text.', 'More words here.', ':param x: the x.', '');
    const stmt = fc.constantFrom('x = 1', 'return value', 'y = foo(bar)');
    fc.assert(
      fc.property(
        methodsOf(text, stmt),
        fc.nat(),
        fc.integer({ min: 2, max: 7 }),
        fc.array(fc.constantFrom('keep', 'change', 'docstring'), { minLength: 8, maxLength: 8 }),
        (methods, at, len, ops) => {
          const lines = ['class A:'];
          methods.forEach(([doc, body], m) => {
            lines.push(`    def f${m}(self):`, '        """Doc.', ...doc.map((l) => `        ${l}`), '        """');
            lines.push(...body.map((s) => `        ${s}`), '');
          });
          const start = at % lines.length;
          const block = lines.slice(start, Math.min(lines.length, start + len));
          fc.pre(block[0]!.trim() !== '' && block[block.length - 1]!.trim() !== '');
          const edited = block.flatMap((l, k) => {
            const indent = /^ */.exec(l)![0];
            const op = ops[k] ?? 'keep';
            if (op === 'keep' || l.trim() === '') return [l];
            if (op === 'change') return [`${indent}changed${k}()`];
            return [l, `${indent}"""New doc.`, indent, `${indent}    More.`, `${indent}"""`];
          });
          const content = `${lines.join('\n')}\n`;
          const tabs = (ls: string[]) =>
            ls.map((l) => l.replace(/^( {4})+/, (s) => '\t'.repeat(s.length / 4))).join('\n');
          applyDrifted(content, block, edited, tabs);
        },
      ),
      { numRuns: 800 },
    );
  });

  it('a tab-indented file holding a space-indented script in a raw string, written with spaces for tabs', () => {
    const goLine = fc.constantFrom('x := 1', 'fmt.Println(x)', 'return nil', 'y = f(x)');
    const shLine = fc.constantFrom('echo "$1"', 'if [ -n "$x" ]; then', 'fi', 'local y=1', 'shift');
    fc.assert(
      fc.property(
        fc.array(goLine, { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(fc.constantFrom('    ', '        ', '\t', ''), shLine), { minLength: 2, maxLength: 6 }),
        fc.nat(),
        fc.integer({ min: 2, max: 7 }),
        fc.array(fc.constantFrom('keep', 'keep', 'change', 'insert'), { minLength: 12, maxLength: 12 }),
        (code, script, at, len, ops) => {
          const lines = ['func script() string {', ...code.map((l) => `\t${l}`), '\ts := `'];
          lines.push(...script.map(([indent, l]) => indent + l), '`', '\treturn s', '}', '');
          const start = at % (lines.length - 1);
          const block = lines.slice(start, Math.min(lines.length - 1, start + len));
          fc.pre(block.length >= 2 && block[0]!.trim() !== '' && block[block.length - 1]!.trim() !== '');
          const edited = block.flatMap((l, k) => {
            const indent = /^[ \t]*/.exec(l)![0];
            const op = ops[k] ?? 'keep';
            if (op === 'keep' || l.trim() === '' || l === '`' || l.endsWith('`')) return [l];
            return op === 'change' ? [`${indent}changed${k}`] : [l, `${indent}added${k}`];
          });
          const content = lines.join('\n');
          const spaces = (ls: string[]) => ls.map((l) => l.replace(/^\t+/, (t) => '    '.repeat(t.length))).join('\n');
          applyDrifted(content, block, edited, spaces);
        },
      ),
      { numRuns: 800 },
    );
  });

  it('a raw string holding tab-indented code re-indented with spaces, the whole edit dedented by one column', () => {
    // A Go file whose raw string is itself a code template; the edit rewrites the template's tabs as spaces
    // and the model drops the first character of every line. Which character it dropped (a tab of the
    // file, a space of the new text) decides the new lines' bytes: apply only what is certain.
    const tpl = fc.constantFrom('if err != nil {', 'fmt.Println(err)', 'viper.AutomaticEnv()', 'os.Exit(1)', '}');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 3 }), tpl), { minLength: 2, maxLength: 6 }),
        fc.nat(),
        fc.integer({ min: 2, max: 6 }),
        fc.array(fc.constantFrom('keep', 'spaces', 'spaces', 'change'), { minLength: 8, maxLength: 8 }),
        (template, at, len, ops) => {
          const lines = ['func tpl() []byte {', '\treturn []byte(`package main', ''];
          lines.push(...template.map(([depth, l]) => '\t'.repeat(depth) + l), '`)', '}', '');
          const start = 3 + (at % template.length);
          const block = lines.slice(start, Math.min(3 + template.length, start + len));
          fc.pre(block.length >= 2);
          const edited = block.map((l, k) => {
            const tabs = /^\t*/.exec(l)![0].length;
            const op = ops[k] ?? 'keep';
            if (op === 'keep') return l;
            const text = op === 'change' ? `changed${k}()` : l.trim();
            return '    '.repeat(tabs) + text;
          });
          const content = lines.join('\n');
          const drop = (ls: string[]) => ls.map((l) => l.slice(1)).join('\n');
          applyDrifted(content, block, edited, drop);
        },
      ),
      { numRuns: 800 },
    );
  });
});

describe('a dedented find', () => {
  it('re-indents its replace by what the find lost, docstrings included, or refuses', () => {
    // Docstrings written at the left margin: a model that drops a level (4 or 8 columns) cannot take them
    // further left, so the find's margin holds lines of several file indentations.
    const text = fc.constantFrom('Some text.', 'More words here.', ':param x: the x.');
    const stmt = fc.constantFrom('x = 1', 'return value', 'self.items.append(x)');
    fc.assert(
      fc.property(
        methodsOf(text, stmt),
        fc.nat(),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.constantFrom('keep', 'change', 'insert'), { minLength: 8, maxLength: 8 }),
        fc.constantFrom(4, 8),
        (methods, at, len, ops, by) => {
          const lines = ['class A:'];
          methods.forEach(([doc, body], m) => {
            lines.push(
              `    def f${m}(self):`,
              '        """Doc.',
              ...doc,
              '"""',
              ...body.map((s) => `        ${s}`),
              '',
            );
          });
          const start = at % lines.length;
          const block = lines.slice(start, Math.min(lines.length, start + len));
          fc.pre(block[0]!.trim() !== '' && block[block.length - 1]!.trim() !== '');
          const edited = block.flatMap((l, k) => {
            const op = ops[k] ?? 'keep';
            if (op === 'keep' || l.trim() === '') return [l];
            return op === 'change' ? [`${/^ */.exec(l)![0]}changed${k}()`] : [l, `        added${k}()`];
          });
          const content = `${lines.join('\n')}\n`;
          const dedent = (ls: string[]) => ls.map((l) => l.slice(Math.min(by, /^ */.exec(l)![0].length))).join('\n');
          applyDrifted(content, block, edited, dedent);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('a find dedented uniformly, docstrings included, applies with replace moved back by the same amount', () => {
    // Docstring lines at the code's indentation or deeper; the model drops 4 or 8 columns from every line of
    // find and replace alike. Edits keep each string's quotes where they are (code lines and string text).
    const text = fc.constantFrom('Some text.', 'More words here.', ':param x: the x.', '');
    const stmt = fc.constantFrom('x = 1', 'return value', 'self.items.append(x)', 'if x:');
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.array(text, { maxLength: 5 }),
            fc.array(stmt, { minLength: 1, maxLength: 4 }),
            fc.constantFrom('', '    '),
          ),
          { minLength: 1, maxLength: 3 },
        ),
        fc.nat(),
        fc.integer({ min: 2, max: 8 }),
        fc.array(fc.constantFrom('keep', 'keep', 'change', 'insert'), { minLength: 8, maxLength: 8 }),
        fc.constantFrom(4, 8),
        (methods, at, len, ops, by) => {
          const lines = ['class A:'];
          const inString = new Set<number>();
          methods.forEach(([doc, body, deeper], m) => {
            lines.push(`    def f${m}(self):`, '        """Doc.');
            for (const l of doc) {
              inString.add(lines.length);
              lines.push(l === '' ? '' : `        ${deeper}${l}`);
            }
            lines.push('        """', ...body.map((s) => `        ${s}`), '');
          });
          const start = at % lines.length;
          const block = lines.slice(start, Math.min(lines.length, start + len));
          fc.pre(block[0]!.trim() !== '' && block[block.length - 1]!.trim() !== '');
          const edited = block.flatMap((l, k) => {
            const indent = /^ */.exec(l)![0];
            const op = ops[k] ?? 'keep';
            if (op === 'keep' || l.trim() === '' || l.includes('"""')) return [l];
            const what = inString.has(start + k) ? `new words ${k}.` : `changed${k}()`;
            return op === 'change' ? [indent + what] : [l, indent + what];
          });
          const indents = [...block, ...edited].filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)![0].length);
          fc.pre(Math.min(...indents) >= by);
          const content = `${lines.join('\n')}\n`;
          const dedent = (ls: string[]) => ls.map((l) => l.slice(Math.min(by, /^ */.exec(l)![0].length))).join('\n');
          const r = applyDrifted(content, block, edited, dedent);
          if (!r.applied) expect(r.code).toBe('patch_ambiguous_find');
        },
      ),
      { numRuns: 1500 },
    );
  });
});
