import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { applyPatch } from '../../utils/patch.js';

beforeEach(async () => {
  vi.stubEnv('CLAWCODE_HOME', await mkdtemp(path.join(tmpdir(), 'clawcode-home-')));
});

const RUNS = { numRuns: 200 };

/** A code-like line: indentation, a few words from a small vocabulary (so repeats happen), punctuation. */
const lineArb = fc
  .tuple(
    fc.constantFrom('', '  ', '    ', '\t', '\t\t'),
    fc.array(fc.constantFrom('let', 'x', 'y', 'return', 'foo(bar)', '=', '+', '1', 'if', '{', '}', "'s'", '$&', '// note'), { minLength: 1, maxLength: 6 }),
    fc.constantFrom('', ';', ' {', ','),
  )
  .map(([indent, words, end]) => indent + words.join(' ') + end);

const fileArb = fc.array(fc.oneof({ weight: 6, arbitrary: lineArb }, { weight: 1, arbitrary: fc.constant('') }), { minLength: 1, maxLength: 40 });

/** A file, a block of its lines (as find) and new text for it. */
const editArb = fileArb.chain((lines) =>
  fc
    .tuple(fc.nat(lines.length - 1), fc.integer({ min: 1, max: 6 }), fc.array(lineArb, { minLength: 0, maxLength: 5 }))
    .map(([start, len, newLines]) => ({
      lines,
      start,
      end: Math.min(lines.length, start + len),
      replace: newLines.map((l) => `${l} /*new*/`).join('\n'),
    })),
)
  // Blank lines at the edges of find are a separate rule (patch_ambiguous_blank_edge), tested by example.
  // (Filtered outside `chain`: inside, a file of only blank lines could never pass.)
  .filter(({ lines, start, end }) => lines[start] !== '' && lines[end - 1] !== '');

const countOf = (haystack: string, needle: string): number => {
  if (needle === '') return 0;
  let n = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) n++;
  return n;
};

describe('patch engine properties', () => {
  it('apply then reverse gives back the original', () => {
    fc.assert(
      fc.property(editArb, ({ lines, start, end, replace }) => {
        const content = `${lines.join('\n')}\n`;
        const find = lines.slice(start, end).join('\n');
        fc.pre(find.trim().length >= 10 && countOf(content, find) === 1 && replace.trim() !== '');
        const forward = applyPatch(content, find, replace);
        expect(forward.applied).toBe(true);
        expect(forward.strategy).toBe('exact');
        const after = forward.newContent!;
        fc.pre(countOf(after, replace) === 1);
        const back = applyPatch(after, replace, find);
        expect(back.newContent).toBe(content);
      }),
      RUNS,
    );
  });

  it('a find that occurs in two places is always refused as ambiguous', () => {
    fc.assert(
      fc.property(fileArb, fc.array(lineArb, { minLength: 1, maxLength: 4 }), fc.nat(), fc.nat(), (lines, block, i, j) => {
        const [a, b] = [i % (lines.length + 1), j % (lines.length + 1)].sort((x, y) => x - y) as [number, number];
        const copy = [...lines.slice(0, a), ...block, ...lines.slice(a, b), ...block, ...lines.slice(b)];
        const content = copy.join('\n');
        const find = block.join('\n');
        fc.pre(find.trim() !== '');
        const r = applyPatch(content, find, 'replacement();');
        expect(r.applied).toBe(false);
        expect(r.code).toBe('patch_ambiguous_find');
        expect(r.matchCount).toBeGreaterThanOrEqual(2);
        expect(r.newContent).toBeUndefined();
      }),
      RUNS,
    );
  });

  it('the same block at two indentations is refused when find matches neither exactly', () => {
    fc.assert(
      fc.property(fc.array(lineArb, { minLength: 2, maxLength: 4 }), fc.array(lineArb, { maxLength: 5 }), (block, middle) => {
        const body = block.map((l) => l.trimStart());
        fc.pre(body.join('').replace(/\s/g, '').length >= 10 && body.every((l) => l !== ''));
        const content = [...body.map((l) => `  ${l}`), ...middle.map((l) => `x${l}`), ...body.map((l) => `      ${l}`)].join('\n');
        const find = body.map((l) => `   ${l}`).join('\n');
        const r = applyPatch(content, find, 'other();');
        expect(r.applied).toBe(false);
        expect(r.code).toBe('patch_ambiguous_find');
      }),
      RUNS,
    );
  });

  it('CRLF line endings and a BOM survive an edit', () => {
    fc.assert(
      fc.property(editArb, fc.boolean(), ({ lines, start, end, replace }, bom) => {
        const content = (bom ? '\uFEFF' : '') + lines.join('\r\n') + '\r\n';
        const find = lines.slice(start, end).join('\n');
        fc.pre(find.trim().length >= 10 && countOf(lines.join('\n'), find) === 1);
        const r = applyPatch(content, find, replace);
        expect(r.applied).toBe(true);
        const out = r.newContent!;
        expect(out.startsWith('\uFEFF')).toBe(bom);
        expect(out.slice(bom ? 1 : 0).includes('\uFEFF')).toBe(false);
        expect(/(^|[^\r])\n/.test(out)).toBe(false);
        expect(out.endsWith('\r\n')).toBe(true);
      }),
      RUNS,
    );
  });

  it('never changes text outside the reported lines', () => {
    fc.assert(
      fc.property(editArb, ({ lines, start, end, replace }) => {
        const content = `${lines.join('\n')}\n`;
        const find = lines
          .slice(start, end)
          .map((l) => `${l}  `)
          .join('\n');
        const r = applyPatch(content, find, replace);
        fc.pre(r.applied);
        const before = content.split('\n');
        const after = r.newContent!.split('\n');
        const first = r.startLine! - 1;
        const last = r.endLine! - 1;
        expect(after.slice(0, first)).toEqual(before.slice(0, first));
        const tail = before.length - 1 - last;
        expect(after.slice(after.length - tail)).toEqual(before.slice(before.length - tail));
      }),
      RUNS,
    );
  });
});
