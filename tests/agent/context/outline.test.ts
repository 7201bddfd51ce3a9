import { describe, expect, it } from 'vitest';
import { buildOutline } from '../../../agent/context/outline.js';

/** Files a map accounts for: names listed plus the counts of folded lines. */
function accounted(map: string): number {
  let n = 0;
  for (const line of map.split('\n').slice(1)) {
    const folded = /\((\d+) files?\)$/.exec(line);
    if (folded) n += Number(folded[1]);
    else if (line.trim() !== '')
      n += line
        .slice(line.indexOf(' ') + 1)
        .replace(/ \(defines [^)]*\)/g, '')
        .split(', ').length;
  }
  return n;
}

describe('buildOutline', () => {
  const paths: string[] = [];
  for (let d = 0; d < 40; d++) for (let f = 0; f < 12; f++) paths.push(`packages/pkg${d}/src/file${f}.ts`);
  paths.unshift('src/core/retry.ts', 'src/core/http.ts');

  it('lists every path, folded by folder, with symbols, when it fits', () => {
    const map = buildOutline({
      paths: ['src/a.ts', 'src/b.ts', 'README.md'],
      sent: new Set(['src/a.ts']),
      symbols: new Map([['src/b.ts', ['parse', 'emit']]]),
      maxChars: 1000,
    });
    expect(map).toBe(
      'Project files (3; * = shown below; (N files) = folded):\n./ README.md\nsrc/ a.ts*, b.ts (defines parse, emit)\n',
    );
  });

  it('folds the least relevant folders first and still accounts for every file within the cap', () => {
    for (const max of [300, 900, 2500, 6000]) {
      const map = buildOutline({ paths, sent: new Set(['src/core/retry.ts']), maxChars: max });
      expect(map.length).toBeLessThanOrEqual(max);
      if (map.includes('more folders not listed')) continue;
      expect(accounted(map)).toBe(paths.length);
      expect(map).toContain('src/core/ http.ts, retry.ts*');
    }
  });
});
