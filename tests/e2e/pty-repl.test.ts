import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useDriverInPty, type PtySession } from '../support/pty.js';

const UP = '\u001b[A';
const pty = useDriverInPty({ driver: 'repl-driver.ts', prefix: 'clawcode-pty-repl-' });
const startRepl = () => pty.start();

async function typeLine(s: PtySession, line: string, expected: string | RegExp) {
  await s.typeLine(line);
  await s.waitFor(expected);
}

describe('clawcode shell in a terminal', () => {
  it(
    'runs tasks, cancels one with Ctrl-C, recalls history with arrows, and leaves with Ctrl-D',
    { timeout: 90_000 },
    async () => {
      const s = startRepl();
      await s.waitFor('clawcode:');
      await typeLine(s, 'write a.txt hello', 'wrote a.txt');
      expect(await readFile(join(pty.project, 'a.txt'), 'utf8')).toBe('hello\n');

      // Ctrl-C during a task aborts that task only; the prompt comes back.
      await typeLine(s, 'wait', 'working...');
      s.mark();
      s.write('\u0003');
      await s.waitFor('Task cancelled.');
      await s.waitFor('clawcode:');
      await typeLine(s, 'write b.txt second', 'wrote b.txt');
      expect(await readFile(join(pty.project, 'b.txt'), 'utf8')).toBe('second\n');

      // Up three times: "write b.txt second", "wait", "write a.txt hello".
      s.mark();
      s.write(UP + UP + UP);
      await s.waitFor('write a.txt hello');
      s.write('\r');
      await s.waitFor('wrote a.txt');

      // Ctrl-C at an empty prompt only shows a hint; Ctrl-D leaves.
      s.mark();
      s.write('\u0003');
      await s.waitFor('To leave, press Ctrl-C again');
      s.mark();
      s.write('\u0004');
      await s.waitFor('Bye.');
      expect(await s.exitCode()).toBe(0);
    },
  );

  it('keeps history per project across sessions', { timeout: 90_000 }, async () => {
    const first = startRepl();
    await first.waitFor('clawcode:');
    await typeLine(first, 'remember me', 'ran: remember me');
    await typeLine(first, ':exit', 'Bye.');
    expect(await first.exitCode()).toBe(0);

    const second = startRepl();
    await second.waitFor('clawcode:');
    second.mark();
    second.write(UP);
    await second.waitFor('remember me');
    second.mark();
    second.write('\r');
    await second.waitFor('ran: remember me');
    second.write(':exit\r');
    expect(await second.exitCode()).toBe(0);
  });
});
