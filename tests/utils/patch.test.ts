import { describe, expect, it } from 'vitest';
import { applyPatch, applyPatches } from '../../utils/patch.js';

describe('applyPatch', () => {
  it('replaces a unique exact find', () => {
    const r = applyPatch('a\nb\nc\n', 'b', 'B');
    expect(r).toMatchObject({ applied: true, newContent: 'a\nB\nc\n', strategy: 'exact', startLine: 2, endLine: 2 });
  });

  it('refuses a find that matches twice, with both line numbers', () => {
    const r = applyPatch('x = 1\ny = 2\nx = 1\n', 'x = 1', 'x = 3');
    expect(r).toMatchObject({ applied: false, code: 'patch_ambiguous_find', matchCount: 2, matchLines: [1, 3] });
    expect(r.newContent).toBeUndefined();
  });

  it('refuses a find that is not there', () => {
    const r = applyPatch('alpha\n', 'beta', 'gamma');
    expect(r).toMatchObject({ applied: false, code: 'patch_no_match' });
  });
});

describe('applyPatches', () => {
  it('applies patches in order and reports each', () => {
    const files = new Map([['a.ts', 'one\ntwo\n']]);
    const r = applyPatches(files, [
      { file: 'a.ts', operation: 'replace', find: 'one', replace: 'uno' },
      { file: 'a.ts', operation: 'replace', find: 'two', replace: 'dos' },
    ]);
    expect(r.applied).toBe(true);
    expect(r.contents.get('a.ts')).toBe('uno\ndos\n');
    expect(r.results.map((x) => x.applied)).toEqual([true, true]);
  });
});
