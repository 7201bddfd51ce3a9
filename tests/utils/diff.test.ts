import { describe, expect, it } from 'vitest';
import { applyPatch as applyUnified } from 'diff';
import { diffStats, makeUnifiedDiff } from '../../utils/diff.js';

describe('makeUnifiedDiff', () => {
  it('produces a git-style unified diff that re-applies to the new content', () => {
    const before = 'a\nb\nc\nd\ne\nf\ng\n';
    const after = 'a\nb\nC\nd\ne\nf\ng\nh\n';
    const d = makeUnifiedDiff('src/x.ts', before, after);
    expect(d.startsWith('--- a/src/x.ts\n+++ b/src/x.ts\n')).toBe(true);
    expect(d).toContain('-c\n+C\n');
    expect(applyUnified(before, d)).toBe(after);
    expect(diffStats(d)).toEqual({ added: 2, removed: 1 });
  });

  it('diffs a new file against /dev/null', () => {
    const d = makeUnifiedDiff('new.ts', null, 'x\ny\n');
    expect(d.startsWith('--- /dev/null\n+++ b/new.ts')).toBe(true);
    expect(diffStats(d)).toEqual({ added: 2, removed: 0 });
  });

  it('is empty when nothing changed', () => {
    expect(makeUnifiedDiff('a', 'same', 'same')).toBe('');
  });
});
