import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packContext } from '../../../agent/context/pack.js';
import { closeGaps, fenceFor, mergeRanges, rangesText, wholeFileText } from '../../../agent/context/pack-text.js';
import { chunkLines, continuations, importHead, MAX_CHUNK_LINES, scoreChunks } from '../../../agent/context/regions.js';

/** The index of the block holding 1-based `line`, -1 when none does. */
function chunkAt(chunks: readonly (readonly [number, number])[], line: number): number {
  return chunks.findIndex(([a, b]) => a <= line && line <= b);
}

/** Assert that the definition on the line `header` starts a block of its own, continuing nothing. */
function expectOwnBlock(lines: readonly string[], header: string): void {
  const chunks = chunkLines(lines);
  const at = lines.indexOf(header) + 1;
  const i = chunkAt(chunks, at);
  expect(chunks[i]![0]).toBe(at);
  expect(continuations(lines, chunks)[i]).toBe(false);
}

/** A one-line file ranked as high as the first: with it, the first-ranked file does not lead. */
const peer = { path: 'peer.py', score: 1, text: 'x = 1\n' };

function pyFile(n: number): string {
  const out = ['import os', 'from .util import helper', ''];
  for (let i = 0; i < n; i++) out.push(`def func_${i}(x):`, `    value = x + ${i}`, `    return helper(value)`, '');
  return out.join('\n');
}

describe('chunkLines', () => {
  it('covers every line with blocks of at most MAX_CHUNK_LINES, in order', () => {
    const lines = pyFile(120).split('\n');
    const chunks = chunkLines(lines);
    expect(chunks[0]?.[0]).toBe(1);
    expect(chunks[chunks.length - 1]?.[1]).toBe(lines.length);
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]![0]).toBe(chunks[i - 1]![1] + 1);
    for (const [a, b] of chunks) expect(b - a + 1).toBeLessThanOrEqual(MAX_CHUNK_LINES);
  });

  it('starts blocks at definitions, not in their middle', () => {
    const lines = pyFile(60).split('\n');
    for (const [a] of chunkLines(lines).slice(1)) expect(lines[a - 1]).toMatch(/^(def |$)/);
  });

  it('keeps a decorator with the definition below it', () => {
    const lines = ['class Box:', '    """A box."""', ''];
    for (let i = 0; i < 40; i++)
      lines.push('    @property', `    def side_${i}(self):`, `        return self._sides[${i}]`, '');
    const chunks = chunkLines(lines);
    const at = lines.indexOf('    def side_7(self):') + 1;
    expect(chunks[chunkAt(chunks, at)]![0]).toBe(at - 1);
    for (const [a] of chunks.slice(1)) expect(lines[a - 1]).toMatch(/^ {4}@property$|^$/);
  });
});

describe('scoreChunks', () => {
  // A printer whose methods are named after the classes they print; the report names the class.
  const printer = ['class Printer:'];
  for (const cls of ['Sum', 'Product', 'Integral', 'Limit'])
    printer.push(
      `    def _print_${cls}(self, expr):`,
      ...Array.from({ length: 30 }, (_, i) => `        part_${i} = self._print(expr.args[${i % 3}])`),
      // The sum's printer mentions products more often than the product's own printer does.
      ...(cls === 'Sum' ? ['        a = product(1)', '        b = product(2)', '        c = product(3)'] : []),
      '        return part_0',
      '',
    );
  const lines = printer;
  const chunks = chunkLines(lines);
  const idf = new Map([['product', 3]]);
  const blockOf = (name: string): number => chunkAt(chunks, lines.findIndex((l) => l.includes(`def ${name}(`)) + 1);

  it('for a long report, scores a definition named with a task word as one of its parts', () => {
    expect(chunks.length).toBeGreaterThan(2);
    const scores = scoreChunks(lines, chunks, idf, new Set(), true);
    const best = scores.indexOf(Math.max(...scores));
    expect(best).toBe(blockOf('_print_Product'));
    expect(scores[best]).toBeGreaterThan(0);
  });

  it('gives no name-part bonus by default, nor to a one-part name the whole-name bonus covers', () => {
    const plain = scoreChunks(lines, chunks, idf, new Set());
    expect(plain.indexOf(Math.max(...plain))).toBe(blockOf('_print_Sum'));
    const named = scoreChunks(lines, chunks, idf, new Set(), true);
    expect(named[blockOf('_print_Product')]! - plain[blockOf('_print_Product')]!).toBeCloseTo(2 * 3);
    // `_print_Sum` has no part that is a task word: a long report scores it by its three mentions
    // alone (1 + ln tf), a short request by the saturated count.
    expect(named[blockOf('_print_Sum')]).toBeCloseTo(3 * (1 + Math.log(3)));
    expect(plain[blockOf('_print_Sum')]).toBeCloseTo((3 * 3 * 2.2) / (3 + 1.2));
    const single = ['def product(xs):', ...Array.from({ length: 5 }, () => '    return 1')];
    const c = chunkLines(single);
    expect(scoreChunks(single, c, idf, new Set(), true)).toEqual(scoreChunks(single, c, idf, new Set(), false));
  });
});

describe('scoreChunks term weighting', () => {
  // An 80-line block repeating one task word, then a 10-line block holding two task words once each.
  const long = ['func render() {', ...Array.from({ length: 78 }, (_, i) => `\tdrawPreview(${i})`), '}'];
  const short = ['func resize() {', '\tpreview.window = size', ...Array.from({ length: 7 }, () => '\tx++'), '}'];
  const lines = [...long, ...short];
  const chunks = chunkLines(lines);
  const idf = new Map([
    ['preview', 1],
    ['window', 1.5],
  ]);

  it('saturates a repeated word: two task words in a short block beat one word repeated through a long one', () => {
    expect(chunks).toEqual([
      [1, 80],
      [81, 90],
    ]);
    const [l, s] = scoreChunks(lines, chunks, idf, new Set());
    expect(s).toBeGreaterThan(l!);
    // However often a word occurs in a block, it adds at most idf·(k1 + 1) = 1 × 2.2.
    expect(l).toBeLessThan(2.2);
  });

  it('keeps counting a repeated word for a long report: the block it runs through stays first', () => {
    const [l, s] = scoreChunks(lines, chunks, idf, new Set(), true);
    expect(l).toBeCloseTo(1 + Math.log(78));
    expect(s).toBeCloseTo(1 + 1.5);
  });
});

describe('continuations', () => {
  it('marks the blocks of a long function cut in pieces, not the next definition or a class body', () => {
    const body = Array.from({ length: 150 }, (_, i) => `    step_${i} = run(${i})`);
    const lines = [
      'class Rewriter:',
      '    def run(self, mod):',
      ...body.map((l) => `    ${l}`),
      '    def other(self):',
      '        return 1',
      'def free():',
      '    return 2',
    ];
    const chunks = chunkLines(lines);
    const cont = continuations(lines, chunks);
    const runStart = chunkAt(chunks, 2);
    const inside = chunks.findIndex(([a]) => a > 80 && a < 150);
    expect(cont[inside]).toBe(true);
    expect(cont[runStart]).toBe(false);
    expectOwnBlock(lines, '    def other(self):');
  });
});

describe('continuations in brace languages', () => {
  it('keeps a long JS function open across its nested `if (…) {` blocks', () => {
    const body: string[] = [];
    for (let i = 0; i < 40; i++)
      body.push(`  if (items[${i}]) {`, `    total += ${i};`, '  }', `  count_${i} = total;`);
    const lines = [
      'function render(items) {',
      '  let total = 0;',
      ...body,
      '  return total;',
      '}',
      '',
      'function other() {',
      '  return 1;',
      '}',
    ];
    const chunks = chunkLines(lines);
    const cont = continuations(lines, chunks);
    const inside = chunks.findIndex(([a]) => a > 60 && a < 150);
    expect(inside).toBeGreaterThan(0);
    expect(cont[inside]).toBe(true);
    expectOwnBlock(lines, 'function other() {');
  });
});

describe('packContext within one long function', () => {
  it('sends the rest of a long function whose head matched, before unrelated matching blocks', () => {
    const body = Array.from({ length: 150 }, (_, i) => `        total_${i} = total_${i - 1 < 0 ? 0 : i - 1} + ${i}`);
    const lines = [
      'import os',
      '',
      'def render_table(rows):',
      '    """Render the table of rows."""',
      ...body.map((l) => l.slice(4)),
      '    return total_149',
      '',
      ...Array.from({ length: 250 }, (_, i) => `def helper_${i}(x):\n    return x + ${i}\n`),
    ];
    const text = lines.join('\n');
    const all = text.split('\n');
    const [packed] = packContext([{ path: 'pkg/table.py', score: 1, text }], {
      budgetChars: 11000,
      idf: new Map([
        ['render', 3],
        ['table', 3],
      ]),
      defTerms: new Set(['render']),
    });
    const ret = all.indexOf('    return total_149') + 1;
    expect(packed!.ranges!.some(([a, b]) => a <= ret && ret <= b)).toBe(true);
  });
});

describe('closeGaps', () => {
  it('joins ranges separated by at most the gap, keeps the others apart', () => {
    expect(
      closeGaps(
        [
          [1, 5],
          [8, 10],
          [40, 50],
        ],
        2,
      ),
    ).toEqual([
      [1, 10],
      [40, 50],
    ]);
    expect(
      closeGaps(
        [
          [1, 5],
          [9, 10],
        ],
        2,
      ),
    ).toEqual([
      [1, 5],
      [9, 10],
    ]);
    expect(closeGaps([], 25)).toEqual([]);
  });
});

describe('packContext', () => {
  it('for a long report, excerpts of one file leave room for the next candidates', () => {
    const cands = [3, 2, 1].map((score, i) => ({ path: `pkg/m${i}.py`, score, text: pyFile(300) }));
    const opts = { budgetChars: 18_000, idf: new Map([['helper', 2]]), defTerms: new Set<string>() };
    const short = packContext(cands, opts);
    const long = packContext(cands, { ...opts, longReport: true });
    expect(short.map((f) => f.path)).toEqual(['pkg/m0.py', 'pkg/m1.py']);
    expect(long.map((f) => f.path)).toEqual(['pkg/m0.py', 'pkg/m1.py', 'pkg/m2.py']);
    for (const f of long) expect(f.text.length).toBeLessThanOrEqual(18_000 - 12_000);
  });

  it('for a short request, excerpts of the first-ranked file may take three quarters of the budget', () => {
    // Every block of both files matches alike: the first file's blocks come first, up to its cap.
    const cands = [2, 1].map((score, i) => ({ path: `pkg/m${i}.py`, score, text: pyFile(300) }));
    const opts = { budgetChars: 8_000, idf: new Map([['helper', 2]]), defTerms: new Set<string>() };
    const [first, second] = packContext(cands, opts);
    expect(first!.path).toBe('pkg/m0.py');
    expect(first!.text.length).toBeGreaterThan(0.7 * 8_000);
    expect(first!.text.length).toBeLessThanOrEqual(0.75 * 8_000);
    expect(second!.path).toBe('pkg/m1.py');
    // The second file keeps the half share, and a long report keeps its own rule for the first.
    const swapped = packContext([{ ...cands[0]!, score: 0.5 }, cands[1]!], { ...opts, budgetChars: 30_000 });
    expect(swapped[1]!.text.length).toBeLessThanOrEqual(0.5 * 30_000);
    const long = packContext(cands, { ...opts, longReport: true });
    expect(long[0]!.text.length).toBeLessThanOrEqual(0.5 * 8_000);
  });

  it('grows the excerpts of the first-ranked file into the blocks beside them from 40,000, or whenever it leads', () => {
    // One function of a 44k-character file matches; six mid-size files match too and could fill the budget.
    const lines = ['import os', 'from .util import helper', ''];
    for (let i = 0; i < 700; i++)
      lines.push(
        i === 350 ? 'def target_fn(x):' : `def func_${i}(x):`,
        `    value = x + ${i}`,
        '    return helper(value)',
        '',
        '',
      );
    const top = { path: 'pkg/top.py', score: 2, text: lines.join('\n') };
    expect(top.text.length).toBeGreaterThan(40_000);
    const others = [1, 2, 3, 4, 5, 6].map((i) => ({
      path: `pkg/o${i}.py`,
      score: 1,
      text: pyFile(150).replace('func_75', 'target'),
    }));
    const at = lines.indexOf('def target_fn(x):') + 1;
    const opts = { idf: new Map([['target', 3]]), defTerms: new Set<string>() };
    // `score` is the first file's; the others score 1, so it leads from 1.3 on.
    const sent = (score: number, o: { budgetChars: number; longReport?: boolean }): [number, number][] =>
      packContext([{ ...top, score }, ...others], { ...opts, ...o })[0]!.ranges!;
    const covers = (ranges: [number, number][], line: number): boolean =>
      ranges.some(([a, b]) => a <= line && line <= b);
    // Not leading: at 60,000 the block above (func_349) and the one below (func_351) go with the matching one.
    const grown = sent(1.2, { budgetChars: 60_000 });
    expect(grown.some(([a, b]) => a <= at - 5 && at + 9 <= b)).toBe(true);
    // Leading, they do below 40,000 too.
    expect(sent(2, { budgetChars: 39_999 }).some(([a, b]) => a <= at - 5 && at + 9 <= b)).toBe(true);
    // Not leading below 40,000, or for a long report, the matching block goes alone.
    const cases: [number, { budgetChars: number; longReport?: boolean }][] = [
      [1.29, { budgetChars: 39_999 }],
      [2, { budgetChars: 39_999, longReport: true }],
      [2, { budgetChars: 60_000, longReport: true }],
    ];
    for (const [score, o] of cases) {
      const alone = sent(score, o);
      expect(covers(alone, at) && covers(alone, at + 2)).toBe(true);
      for (const line of [at - 5, at + 9]) expect(covers(alone, line)).toBe(false);
    }
    // Leading at 60,000, the excerpt grows deeper: ten blocks away on both sides.
    const deep = sent(2, { budgetChars: 60_000 });
    for (const line of [at - 50, at + 50]) {
      expect(covers(deep, line)).toBe(true);
      expect(covers(grown, line)).toBe(false);
    }
  });

  it('sends a file other than the first whole only up to 20,000 characters, whatever the budget', () => {
    const opts = { budgetChars: 60_000, idf: new Map([['helper', 2]]), defTerms: new Set<string>() };
    const large = pyFile(400);
    expect(large.length).toBeGreaterThan(20_000);
    expect(large.length).toBeLessThan(0.5 * 60_000);
    const top = { path: 'pkg/top.py', score: 2, text: pyFile(10) };
    const [, second] = packContext([top, { path: 'pkg/large.py', score: 1, text: large }], opts);
    expect(second!.path).toBe('pkg/large.py');
    expect(second!.ranges).not.toBeNull();
    // First-ranked, the same file goes whole; so does a second-ranked file under the cap.
    expect(packContext([{ path: 'pkg/large.py', score: 2, text: large }, top], opts)[0]!.ranges).toBeNull();
    const mid = { path: 'pkg/mid.py', score: 1, text: pyFile(250) };
    expect(mid.text.length).toBeLessThan(20_000);
    expect(packContext([top, mid], opts)[1]!.ranges).toBeNull();
  });

  it('leaves out a file below the relevance floor only when it is reached past the first 60,000 characters', () => {
    const opts = { budgetChars: 240_000, idf: new Map([['helper', 2]]), defTerms: new Set<string>() };
    const weak = { path: 'pkg/weak.py', score: 0.1, text: pyFile(3), belowFloor: true };
    const next = { path: 'pkg/next.py', score: 0.09, text: pyFile(3) };
    const sent = (topFuncs: number): string[] =>
      packContext([{ path: 'pkg/top.py', score: 1, text: pyFile(topFuncs) }, weak, next], opts).map((f) => f.path);
    // A first file of about 70,000 characters goes whole first: the weak file comes after it.
    expect(pyFile(1300).length).toBeGreaterThan(60_000);
    expect(sent(1300)).toEqual(['pkg/top.py', 'pkg/next.py']);
    expect(sent(10)).toEqual(['pkg/top.py', 'pkg/weak.py', 'pkg/next.py']);
  });

  it('sends a module of a few thousand characters whole at a small budget for a long report', () => {
    const text = pyFile(110);
    expect(text.length).toBeGreaterThan(6500);
    expect(text.length).toBeLessThan(7000);
    const opts = { idf: new Map([['helper', 2]]), defTerms: new Set<string>(), longReport: true };
    const [small] = packContext([{ path: 'pkg/mod.py', score: 1, text }], { ...opts, budgetChars: 11_000 });
    expect(small!.ranges).toBeNull();
    // Past two thirds of the budget, or for a short request past half of it, it goes as excerpts.
    const [tight] = packContext([{ path: 'pkg/mod.py', score: 1, text }], { ...opts, budgetChars: 10_000 });
    expect(tight!.ranges).not.toBeNull();
    const short = { ...opts, longReport: false, budgetChars: 11_000 };
    expect(packContext([{ path: 'pkg/mod.py', score: 1, text }], short)[0]!.ranges).not.toBeNull();
  });

  it('sends a small file whole and a large one as verbatim regions around the matching block', () => {
    const big = pyFile(300);
    const small = 'def tiny():\n    return 1\n';
    const files = packContext(
      [
        { path: 'big.py', score: 1, text: big },
        { path: 'small.py', score: 0.5, text: small },
      ],
      { budgetChars: 4000, idf: new Map([['func_150', 5]]), defTerms: new Set(['func_150']) },
    );
    expect(files.map((f) => f.path)).toEqual(['big.py', 'small.py']);
    expect(files[1]).toMatchObject({ ranges: null, text: wholeFileText('small.py', small) });
    const lines = big.split('\n').slice(0, -1); // the packer drops the empty "line" after the last newline
    const def = lines.indexOf('def func_150(x):') + 1;
    expect(files[0]!.ranges!.some(([a, b]) => a <= def && def + 2 <= b)).toBe(true);
    // The import head is sent; the budget left after the matching block goes to unmatched blocks.
    expect(files[0]!.ranges![0]![0]).toBe(1);
    expect(files[0]!.ranges![0]![1]).toBeGreaterThanOrEqual(importHead(lines)![1]);
    expect(files[0]!.text.length).toBeGreaterThan(0.5 * 4000 - 200); // its cap: half the budget
    expect(files[0]!.text).toBe(rangesText('big.py', lines, files[0]!.ranges!));
    for (const [a, b] of files[0]!.ranges!) expect(files[0]!.text).toContain(excerptBlock(lines, a, b));
  });

  it('starts an excerpt at the blank line above its block: the anchor of an insertion above the definition', () => {
    const big = pyFile(300);
    const lines = big.split('\n').slice(0, -1);
    const def = lines.indexOf('def func_150(x):') + 1;
    expect(lines[def - 2]).toBe('');
    // A second file as likely as the first keeps the first from leading (its excerpts would grow).
    const [file] = packContext([{ path: 'big.py', score: 1, text: big }, peer], {
      budgetChars: 1500,
      idf: new Map([['func_150', 5]]),
      defTerms: new Set(['func_150']),
    });
    expect(file!.ranges!.some(([a, b]) => a === def - 1 && def + 2 <= b)).toBe(true);
    expect(file!.text).toBe(rangesText('big.py', lines, file!.ranges!));
  });

  it('starts an excerpt at both blank lines PEP 8 puts above a top-level class', () => {
    const body = pyFile(150).split('\n');
    const at = body.indexOf('def func_75(x):');
    // Two blank lines, then the class: an insertion between them belongs to the class's place.
    const text = [...body.slice(0, at), '', 'class Target:', '    pass', '', ...body.slice(at)].join('\n');
    const lines = text.split('\n').slice(0, -1);
    const cls = lines.indexOf('class Target:') + 1;
    expect(lines[cls - 2]).toBe('');
    expect(lines[cls - 3]).toBe('');
    expect(lines[cls - 4]).not.toBe('');
    const [file] = packContext([{ path: 'big.py', score: 1, text }, peer], {
      budgetChars: 1500,
      idf: new Map([['target', 5]]),
      defTerms: new Set(['target']),
    });
    expect(file!.ranges!.some(([a, b]) => a === cls - 2 && cls + 1 <= b)).toBe(true);
  });

  it('sends the best block of a mid-size file when the whole file no longer fits', () => {
    // Each fits whole alone (≤ half the budget), but after a.py and c.py only a block of b.py does.
    const a = pyFile(40);
    const b = pyFile(20).replace('def func_15(x):', 'def target_fn(x):');
    const budget = Math.ceil(wholeFileText('a.py', a).length * 2.3);
    const files = packContext(
      [
        { path: 'a.py', score: 1, text: a },
        { path: 'c.py', score: 0.95, text: a },
        { path: 'b.py', score: 0.5, text: b },
      ],
      {
        budgetChars: budget,
        idf: new Map([
          ['target_fn', 5],
          ['func_1', 1],
        ]),
        defTerms: new Set(['target_fn']),
      },
    );
    expect(files.slice(0, 2).map((f) => [f.path, f.ranges])).toEqual([
      ['a.py', null],
      ['c.py', null],
    ]);
    const def = b.split('\n').indexOf('def target_fn(x):') + 1;
    expect(files[2]?.path).toBe('b.py');
    expect(files[2]!.ranges!.some(([s, e]) => s <= def && def + 2 <= e)).toBe(true);
  });

  it("never exceeds the budget, and each region is the file's own lines (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20_000 }),
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 0, max: 399 }),
        (budget, n, target) => {
          const text = pyFile(n);
          const lines = text.split('\n');
          const files = packContext(
            [
              { path: 'm.py', score: 1, text },
              { path: 'n.py', score: 0.9, text: pyFile(3) },
            ],
            {
              budgetChars: budget,
              idf: new Map([
                [`func_${target}`, 3],
                ['helper', 0.2],
              ]),
              defTerms: new Set([`func_${target}`]),
            },
          );
          const used = files.reduce((a, f) => a + f.text.length, 0);
          expect(used).toBeLessThanOrEqual(budget);
          for (const f of files) {
            if (f.path !== 'm.py' || f.ranges === null) continue;
            expect(f.ranges).toEqual(mergeRanges(f.ranges));
            for (const [a, b] of f.ranges) expect(f.text).toContain(excerptBlock(lines, a, b));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('finds the import head of JS, Python, Go and Rust files', () => {
    expect(
      importHead([
        "'use strict';",
        '',
        "import a from './a.js';",
        'import {',
        '  b,',
        "} from './b.js';",
        '',
        'export const x = 1;',
      ]),
    ).toEqual([1, 6]);
    expect(importHead(['"""Doc."""', 'import os', 'from x import (', '    y,', ')', 'def f():'])).toEqual([2, 5]);
    expect(importHead(['package cli', '', 'import (', '\t"fmt"', ')', 'func X() {}'])).toEqual([1, 5]);
    // A multi-line module docstring before the imports (requests, flask, astropy modules).
    const doc = [
      '# -*- coding: utf-8 -*-',
      '',
      '"""',
      'requests.models',
      '~~~~~~~~~~~~~~~',
      '',
      'The primary objects.',
      '"""',
      '',
      'import collections',
      'import socket',
      '',
      'class Request:',
    ];
    expect(importHead(doc)).toEqual([10, 11]);
    // An import continued with a trailing backslash (click 7, Python 2 style) ends where its last line does.
    const continued = [
      'import os',
      'from ._compat import open_stream, text_type, \\',
      '    get_filesystem_encoding',
      'from .utils import safecall',
      '',
      'class ParamType(object):',
    ];
    expect(importHead(continued)).toEqual([1, 4]);
    // Rust declares modules and crates beside its `use` lines (fd's main.rs); attributes read as comments.
    const rust = [
      '#[macro_use]',
      'extern crate clap;',
      'mod app;',
      'pub(crate) mod exec;',
      'pub mod fshelper;',
      '',
      'use std::env;',
      'pub use crate::exec::CommandSet;',
      '',
      'fn main() {',
    ];
    expect(importHead(rust)).toEqual([2, 8]);
    expect(importHead(['const x = 1;'])).toBeNull();
  });

  it('sends the imports of a large file without the licence header above them', () => {
    const licence = [
      '// Copyright 2013-2023 The Cobra Authors',
      '//',
      ...Array.from({ length: 11 }, (_, i) => `// licence line ${i}`),
    ];
    const body = Array.from({ length: 300 }, (_, i) => `func f${i}() int {\n\treturn ${i}\n}\n`).join('\n');
    const text = [...licence, '', 'package cobra', '', 'import (', '\t"fmt"', '\t"os"', ')', '', body].join('\n');
    const lines = text.split('\n');
    expect(importHead(lines)).toEqual([15, 20]);
    const [file] = packContext([{ path: 'command.go', score: 1, text }], {
      budgetChars: 2000,
      idf: new Map([['f150', 5]]),
      defTerms: new Set(['f150']),
    });
    // The head starts at the blank line above `package`; the licence above it is never sent.
    expect(file!.ranges![0]![0]).toBe(14);
    expect(file!.ranges![0]![1]).toBeGreaterThanOrEqual(20);
    expect(file!.text).not.toContain('licence line');
  });
});

/** One excerpt as the prompt shows it: its line marker outside the fence, the verbatim lines inside. */
function excerptBlock(lines: readonly string[], a: number, b: number): string {
  const body = `${lines.slice(a - 1, b).join('\n')}\n`;
  const fence = fenceFor(body);
  return `[lines ${a}-${b}]\n${fence}\n${body}${fence}\n`;
}
