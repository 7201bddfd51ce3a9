import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { reviewChanges, type ReviewAnswer, type ReviewIo } from '../../../cli/task/review.js';

// Pure code, but every suite keeps CLAWCODE_HOME away from the real ~/.clawcode.
beforeEach(async () => {
  vi.stubEnv('CLAWCODE_HOME', await mkdtemp(join(tmpdir(), 'clawcode-home-')));
});

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('');
const before = lines(20);
const twoHunks = before.replace('line 2\n', 'LINE 2\n').replace('line 18\n', 'LINE 18\n');

/** A scripted person: answers in order, records what was shown and asked. */
function scripted(answers: ReviewAnswer[], edit?: (text: string) => string | null) {
  const shown: string[] = [];
  const asked: { question: string; choices: readonly ReviewAnswer[] }[] = [];
  const io: ReviewIo = {
    async ask(question, choices) {
      asked.push({ question, choices });
      const next = answers.shift();
      if (!next) throw new Error(`unexpected question: ${question}`);
      return next;
    },
    print: (text) => shown.push(text),
  };
  if (edit) io.edit = async (text) => edit(text);
  return { io, shown, asked, answers };
}

describe('reviewChanges', () => {
  it('y then n keeps only the first hunk and shows each hunk before asking', async () => {
    const p = scripted(['y', 'n']);
    const result = await reviewChanges([{ path: 'a.txt', before, after: twoHunks }], p.io);
    expect(result).toEqual({
      quit: false,
      accepted: [{ path: 'a.txt', after: before.replace('line 2\n', 'LINE 2\n') }],
    });
    expect(p.shown).toHaveLength(2);
    expect(p.shown[0]).toContain('a.txt (hunk 1/2)');
    expect(p.shown[0]).toContain('+LINE 2');
    expect(p.shown[1]).toContain('-line 18');
    expect(p.asked[0]!.choices).toEqual(['y', 'n', 'a', 's', 'q']);
  });

  it('a accepts the rest of the file without asking, then moves to the next file', async () => {
    const p = scripted(['a', 'y']);
    const result = await reviewChanges(
      [
        { path: 'a.txt', before, after: twoHunks },
        { path: 'new.txt', before: '', after: 'hello\n' },
      ],
      p.io,
    );
    expect(result.accepted).toEqual([
      { path: 'a.txt', after: twoHunks },
      { path: 'new.txt', after: 'hello\n' },
    ]);
    expect(p.asked).toHaveLength(2);
  });

  it('s skips the rest of a file and keeps what was accepted before', async () => {
    const three = twoHunks.replace('line 10\n', 'LINE 10\n');
    const p = scripted(['y', 's']);
    const result = await reviewChanges([{ path: 'a.txt', before, after: three }], p.io);
    expect(result.accepted).toEqual([{ path: 'a.txt', after: before.replace('line 2\n', 'LINE 2\n') }]);
    expect(p.asked).toHaveLength(2);
  });

  it('n on every hunk leaves the file out entirely', async () => {
    const p = scripted(['n', 'n']);
    expect(await reviewChanges([{ path: 'a.txt', before, after: twoHunks }], p.io)).toEqual({
      accepted: [],
      quit: false,
    });
  });

  it('q quits with nothing accepted, even after earlier yeses', async () => {
    const p = scripted(['a', 'q']);
    const result = await reviewChanges(
      [
        { path: 'a.txt', before, after: twoHunks },
        { path: 'b.txt', before: 'x\n', after: 'y\n' },
      ],
      p.io,
    );
    expect(result).toEqual({ accepted: [], quit: true });
  });

  it('e replaces the hunk with the edited text, shows the edited hunk and asks before taking it; a cancelled edit asks again', async () => {
    let calls = 0;
    const p = scripted(['e', 'e', 'y', 'n'], (text) => (++calls === 1 ? null : text.replace('LINE 2', 'Line two')));
    const result = await reviewChanges([{ path: 'a.txt', before, after: twoHunks }], p.io);
    expect(p.asked[0]!.choices).toContain('e');
    expect(p.asked[2]!.question).toBe('Apply the edited hunk to a.txt?');
    expect(p.shown[1]).toContain('a.txt (hunk 1/2)');
    expect(p.shown[1]).toContain('+Line two');
    expect(p.shown[1]).toContain('-line 2');
    expect(result.accepted).toEqual([{ path: 'a.txt', after: before.replace('line 2\n', 'Line two\n') }]);
    expect(calls).toBe(2);
  });

  it('an edited hunk answered n at the second question is left out', async () => {
    const p = scripted(['e', 'n', 'n'], (text) => text.replace('LINE 2', 'Line two'));
    const result = await reviewChanges([{ path: 'a.txt', before, after: twoHunks }], p.io);
    expect(result.accepted).toEqual([]);
  });

  it('colours hunks only when asked, and never under NO_COLOR by default', async () => {
    const plain = scripted(['y']);
    await reviewChanges([{ path: 'c.txt', before: 'a\n', after: 'b\n' }], plain.io, { env: { NO_COLOR: '1' } });
    expect(plain.shown.join('')).not.toMatch(/\u001b\[/);
    const coloured = scripted(['y']);
    await reviewChanges([{ path: 'c.txt', before: 'a\n', after: 'b\n' }], coloured.io, { color: true });
    expect(coloured.shown.join('')).toMatch(/\u001b\[32m\+b/);
  });

  it('preserves CRLF when only part of a CRLF file is accepted', async () => {
    const b = Array.from({ length: 12 }, (_, i) => `r${i}`).join('\r\n') + '\r\n';
    const a = b.replace('r1\r\n', 'R1\r\n').replace('r11\r\n', 'R11\r\n');
    const p = scripted(['n', 'y']);
    const result = await reviewChanges([{ path: 'w.txt', before: b, after: a }], p.io);
    expect(result.accepted[0]!.after).toBe(b.replace('r11\r\n', 'R11\r\n'));
  });
});
