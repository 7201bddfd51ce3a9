import { describe, expect, it } from 'vitest';
import { applyPatch as applyUnified, createTwoFilesPatch } from 'diff';
import { diffStats, makeUnifiedDiff } from '../../utils/diff.js';
import { applyAcceptedHunks, splitHunks } from '../../utils/hunks.js';

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

describe('line diffs of very large changes', () => {
  // A plan of thousands of patches to one file: every other line changed, some lines repeated, CRLF and a
  // missing final newline, so the Myers diff would pass its edit bound and the linear fallback builds it.
  const before = Array.from({ length: 4000 }, (_, i) => (i % 97 === 0 ? '}\r\n' : `line ${i}\n`)).join('') + 'end';
  const after = before
    .split('\n')
    .map((l, i) => (i % 2 === 0 && !l.startsWith('}') ? l.replace('line', 'LINE') : l))
    .join('\n');

  it('the fallback diff is a unified diff that turns before into after exactly', () => {
    const diff = makeUnifiedDiff('big.txt', before, after);
    expect(diff.startsWith('--- a/big.txt\n+++ b/big.txt\n@@ ')).toBe(true);
    expect(applyUnified(before, diff)).toBe(after);
    const hunks = splitHunks('big.txt', before, after);
    expect(applyAcceptedHunks(before, hunks, new Set(hunks.map((h) => h.id)))).toBe(after);
    expect(applyAcceptedHunks(before, hunks, new Set())).toBe(before);
  });

  it('an ordinary change gets the package diff, unchanged', () => {
    const small = before.replace('line 5\n', 'line five\n');
    const whole = createTwoFilesPatch('a/big.txt', 'b/big.txt', before, small, '', '', { context: 3 });
    expect(makeUnifiedDiff('big.txt', before, small)).toBe(whole.slice(whole.indexOf('--- ')));
  });
});
