import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { applyPatch } from '../../utils/patch.js';

beforeEach(async () => {
  vi.stubEnv('CLAWCODE_HOME', await mkdtemp(path.join(tmpdir(), 'clawcode-home-')));
});

// A find that matches part of a line, located by a relaxed pass, where replace edits that line: applied, and
// only the matched text changes. Every line the replacement leaves unchanged keeps its own bytes.
describe('a find that matches part of a line', () => {
  it('rewrites only the matched text of the line when spacing inside differed', () => {
    const content = '  let total = compute(a,  b) + 1;\nlet y = 2;\n';
    const r = applyPatch(content, 'compute(a, b)', 'compute(a, c)');
    expect(r).toMatchObject({ applied: true, strategy: 'inline_whitespace' });
    expect(r.newContent).toBe('  let total = compute(a, c) + 1;\nlet y = 2;\n');
  });

  it('writes a changed token into the lines the file wraps, keeping the untouched line as it is', () => {
    const content = 'function test() {\n  return true;\n}\nafter\n';
    const r = applyPatch(content, 'test(){return true;', 'test2(){return true;');
    expect(r).toMatchObject({ applied: true, strategy: 'token_stream' });
    expect(r.newContent).toBe('function test2() {\n  return true;\n}\nafter\n');
  });

  it('refuses a rewrite over several lines that starts inside a line (it would join untouched text)', () => {
    const content = 'function test() {\n  return true;\n}\nafter\n';
    const r = applyPatch(content, 'test(){return true;', 'test(){log(); return true;');
    expect(r.applied).toBe(false);
  });

  it('still writes a rewrite of whole lines as given', () => {
    const content = 'before\nfunction test() {\n  return true;\n}\nafter';
    const r = applyPatch(content, 'function test(){return true;}', 'REPLACED');
    expect(r.newContent).toBe('before\nREPLACED\nafter');
  });

  it('changes only the renamed token when find glues a wrapped region into one line, or refuses', () => {
    const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'call()', 'x', 'y');
    fc.assert(
      fc.property(
        fc.array(fc.array(word, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 4 }),
        fc.nat(),
        fc.nat(),
        (rows, skip, pick) => {
          // `name(args) {` then lines of `word;`, the first line entered part way.
          const lines = [
            `  const v = open(${rows[0]!.join(', ')}) {`,
            ...rows.slice(1).map((r) => `    ${r.join(' + ')};`),
          ];
          const content = `${lines.join('\n')}\n}\n`;
          const first = lines[0]!
            .trim()
            .split(' ')
            .slice(skip % 3)
            .join(' ');
          const region = [first, ...lines.slice(1).map((l) => l.trim())];
          const find = region.join('');
          const tokens = find.match(/[A-Za-z_]+/g) ?? [];
          fc.pre(tokens.length > 0);
          const target = tokens[pick % tokens.length]!;
          const replace = find.replace(new RegExp(`\\b${target}\\b`), `${target}Z`);
          fc.pre(replace !== find && !content.includes(find));
          const r = applyPatch(content, find, replace);
          if (!r.applied) return;
          const before = content.split('\n');
          const after = r.newContent!.split('\n');
          expect(after.length).toBe(before.length);
          // Exactly one line changed, and only by the renamed token.
          const changed = before.flatMap((l, i) => (l !== after[i] ? [{ was: l, now: after[i]! }] : []));
          expect(changed.length).toBe(1);
          expect(changed[0]!.now.replace(`${target}Z`, target)).toBe(changed[0]!.was);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
