import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { applyPatch } from '../../utils/patch.js';

beforeEach(async () => {
  vi.stubEnv('CLAWCODE_HOME', await mkdtemp(path.join(tmpdir(), 'clawcode-home-')));
});

const RUNS = Number(process.env.CLAWCODE_PROPERTY_RUNS ?? 1500);

/** Code-like lines from a small vocabulary, so lines, closers and whole blocks repeat. */
const lineArb = fc
  .tuple(
    fc.constantFrom('', '  ', '    '),
    fc.array(fc.constantFrom('let', 'x', 'y', 'return', 'foo(bar)', '=', '+', '1', 'if', 'log(x)', '// note'), {
      minLength: 1,
      maxLength: 4,
    }),
    fc.constantFrom('', ';', ' {', ','),
  )
  .map(([indent, words, end]) => indent + words.join(' ') + end);
const closers = fc.constantFrom('}', '  }', ')', '', 'end', '};');
/** A file where closers make up two lines in five: pieces and whole blocks repeat. */
const repetitiveFile = fc.array(fc.oneof({ weight: 3, arbitrary: lineArb }, { weight: 2, arbitrary: closers }), {
  minLength: 4,
  maxLength: 40,
});

describe('an elided find whose pieces repeat (the elided text may hold copies of them)', () => {
  it('gives the intended bytes or a refusal, whatever the replacement keeps, edits, adds or drops', () => {
    fc.assert(
      fc.property(
        repetitiveFile,
        fc.nat(),
        fc.integer({ min: 3, max: 12 }),
        fc.integer({ min: 1, max: 2 }),
        fc.integer({ min: 1, max: 2 }),
        fc.array(fc.constantFrom('keep', 'keep', 'change', 'edit', 'insert', 'drop'), {
          minLength: 12,
          maxLength: 12,
        }),
        (lines, at, len, headLen, tailLen, ops) => {
          const start = at % lines.length;
          const end = Math.min(lines.length, start + len);
          const block = lines.slice(start, end);
          fc.pre(block.length >= headLen + tailLen + 1);
          const head = block.slice(0, headLen);
          const tail = block.slice(block.length - tailLen);
          const middle = block.slice(headLen, block.length - tailLen);
          fc.pre(head[0]!.trim() !== '' && tail[tail.length - 1]!.trim() !== '');
          fc.pre(middle.some((l) => l.trim() !== ''));
          // A copy of a piece inside the elided text that replace rewrites or drops leaves the nearer copy as
          // the find's reading (the convention of the elision pass); a copy replace keeps must not mislead it.
          const pieceKeys = new Set([...head, ...tail].map((l) => l.trimEnd()));
          fc.pre(middle.every((l, k) => !pieceKeys.has(l.trimEnd()) || ['keep', 'insert'].includes(ops[k] ?? 'keep')));
          const newMiddle = middle.flatMap((line, k) => {
            const op = ops[k] ?? 'keep';
            if (op === 'keep' || line.trim() === '') return [line];
            if (op === 'change') return [`  changed${k}();`];
            // An edited line resembles the line it was (similar enough to count as that line edited).
            if (op === 'edit') return [`${line} + 2`];
            if (op === 'insert') return [line, `  added${k}();`];
            return [];
          });
          const content = `${lines.join('\n')}\n`;
          const find = [...head, '...', ...tail].join('\n');
          const replace = [...head, ...newMiddle, ...tail].join('\n');
          fc.pre(replace !== block.join('\n'));
          const want = `${[...lines.slice(0, start), ...head, ...newMiddle, ...tail, ...lines.slice(end)].join('\n')}\n`;
          const r = applyPatch(content, find, replace);
          if (r.applied) expect(r.newContent).toBe(want);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
