import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { applyAcceptedHunks, splitHunks } from '../../utils/hunks.js';

// Pure code, but every suite keeps CLAWCODE_HOME away from the real ~/.clawcode.
beforeEach(async () => {
  vi.stubEnv('CLAWCODE_HOME', await mkdtemp(join(tmpdir(), 'clawcode-home-')));
});

const lines = (n: number, tag = 'line') => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}\n`).join('');

describe('splitHunks', () => {
  it('returns no hunks when nothing changed', () => {
    expect(splitHunks('a.txt', 'same\n', 'same\n')).toEqual([]);
  });

  it('splits two distant changes into two hunks with 1-based line numbers and ids', () => {
    const before = lines(20);
    const after = before.replace('line 2\n', 'LINE 2\n').replace('line 18\n', 'LINE 18\n');
    const hunks = splitHunks('src/a.ts', before, after);
    expect(hunks.map((h) => h.id)).toEqual(['src/a.ts#1', 'src/a.ts#2']);
    expect(hunks[0]).toMatchObject({ oldStart: 1, oldLines: 5, newStart: 1, newLines: 5, index: 0 });
    expect(hunks[1]).toMatchObject({ oldStart: 15, oldLines: 6, newStart: 15, newLines: 6 });
    expect(hunks[0]!.lines).toContain('-line 2');
    expect(hunks[0]!.lines).toContain('+LINE 2');
    expect(hunks[1]!.oldText).toBe(
      lines(20)
        .split('\n')
        .slice(14, 20)
        .map((l) => `${l}\n`)
        .join(''),
    );
  });

  it('merges changes whose context overlaps', () => {
    const before = lines(10);
    const after = before.replace('line 3\n', 'x\n').replace('line 7\n', 'y\n');
    expect(splitHunks('a', before, after)).toHaveLength(1);
  });

  it('describes a new file as one hunk from an empty before', () => {
    const [h, ...rest] = splitHunks('new.txt', '', 'a\nb\n');
    expect(rest).toEqual([]);
    expect(h).toMatchObject({ oldLines: 0, newLines: 2, oldText: '', newText: 'a\nb\n' });
  });
});

describe('applyAcceptedHunks', () => {
  const before = lines(20);
  const after = before.replace('line 2\n', 'LINE 2\n').replace('line 18\n', 'LINE 18\n');
  const hunks = splitHunks('a.txt', before, after);

  it('accepting all hunks gives after, none gives before', () => {
    expect(
      applyAcceptedHunks(
        before,
        hunks,
        hunks.map((h) => h.id),
      ),
    ).toBe(after);
    expect(applyAcceptedHunks(before, hunks, [])).toBe(before);
  });

  it('accepting one hunk applies only that change', () => {
    expect(applyAcceptedHunks(before, hunks, new Set(['a.txt#2']))).toBe(before.replace('line 18\n', 'LINE 18\n'));
    expect(applyAcceptedHunks(before, hunks, ['a.txt#1'])).toBe(before.replace('line 2\n', 'LINE 2\n'));
  });

  it('preserves CRLF line endings and a missing final newline', () => {
    const b = 'one\r\ntwo\r\nthree\r\nfour\r\nfive\r\nsix\r\nseven\r\neight\r\nnine\r\nend';
    const a = b.replace('two', 'TWO').replace('end', 'END');
    const hs = splitHunks('w.txt', b, a);
    expect(hs).toHaveLength(2);
    expect(applyAcceptedHunks(b, hs, [hs[1]!.id])).toBe(b.replace('end', 'END'));
    expect(
      applyAcceptedHunks(
        b,
        hs,
        hs.map((h) => h.id),
      ),
    ).toBe(a);
  });

  it('applies a hunk whose newText was edited', () => {
    const edited = { ...hunks[0]!, newText: hunks[0]!.newText.replace('LINE 2', 'edited 2') };
    expect(applyAcceptedHunks(before, [edited, hunks[1]!], [edited.id])).toBe(before.replace('line 2\n', 'edited 2\n'));
  });

  it('refuses hunks computed against other content', () => {
    expect(() => applyAcceptedHunks('totally\ndifferent\n', hunks, [hunks[0]!.id])).toThrow(/does not match/);
  });

  it('any subset of hunks is consistent with applying them one at a time (property)', () => {
    const line = fc.constantFrom('a', 'b', 'c', 'd', '');
    const ending = fc.constantFrom('\n', '\r\n');
    const text = fc
      .tuple(fc.array(fc.tuple(line, ending), { maxLength: 25 }), fc.boolean())
      .map(([ls, finalNewline]) => {
        const s = ls.map(([l, e]) => l + e).join('');
        return finalNewline || s === '' ? s : s.replace(/\r?\n$/, '');
      });
    fc.assert(
      fc.property(
        text,
        text,
        fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
        fc.constantFrom(0, 1, 3),
        (b, a, picks, context) => {
          const hs = splitHunks('p', b, a, { context });
          const all = hs.map((h) => h.id);
          expect(applyAcceptedHunks(b, hs, all)).toBe(a);
          expect(applyAcceptedHunks(b, hs, [])).toBe(b);
          const subset = hs.filter((_, i) => picks[i]);
          const result = applyAcceptedHunks(
            b,
            hs,
            subset.map((h) => h.id),
          );
          // Applying the chosen hunks from the last to the first, by plain string splicing, must agree.
          let expected = b;
          const bl = b === '' ? [] : b.split(/(?<=\n)/);
          for (const h of [...subset].reverse()) {
            bl.splice(h.oldStart - 1, h.oldLines, h.newText);
            expected = bl.join('');
          }
          expect(result).toBe(subset.length ? expected : b);
        },
      ),
      { numRuns: 400 },
    );
  });
});
