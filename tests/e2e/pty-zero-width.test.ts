import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replacePlan } from '../support/fixture.js';
import { replies } from '../support/provider-server.js';
import { useCliInPty } from '../support/pty.js';

// A terminal that reports 0 columns (Python's pty.fork(), `script` run from a non-terminal) and SIGTERM, on the
// built CLI. ora divided by the width: at 0 it cleared lines forever, and the blocked event loop ignored SIGTERM.

const GREET = 'function greet(name) {\n  return "Hello " + name;\n}\n';
const PLAN = replacePlan(
  'greet.js',
  [{ find: 'return "Hello " + name;', replace: 'return "Hello " + name + "!";' }],
  'Add an exclamation mark.',
);

const pty = useCliInPty({ prefix: 'clawcode-pty-zero-', files: { 'greet.js': GREET }, rows: 24 });

async function lockFiles(): Promise<string[]> {
  const dir = join(pty.env.CLAWCODE_HOME!, 'locks');
  return (await readdir(dir).catch(() => [])).filter((name) => name.endsWith('.lock'));
}

describe('a terminal 0 columns wide', () => {
  it('plans and writes with --yes, without a spinner, in a few kilobytes of output', { timeout: 60_000 }, async () => {
    // A reply that trickles in for a second: the spinner would be drawing the whole time.
    pty.server.reply({ type: 'text', text: JSON.stringify(PLAN), chunkChars: 40, intervalMs: 100 });
    const s = pty.start(['add an exclamation mark', '--yes'], 0, 0);
    expect(await s.exitCode(30_000)).toBe(0);
    expect(s.output()).toContain('Wrote 1 file');
    expect(s.raw().length).toBeLessThan(20_000);
    expect(s.raw()).not.toContain('\u001b[1A');
    expect(await readFile(join(pty.project, 'greet.js'), 'utf8')).toContain('name + "!"');
  });

  it('SIGTERM ends a run waiting on the model: exit 143, the project lock released', { timeout: 60_000 }, async () => {
    pty.server.reply({ type: 'hang' });
    const s = pty.start(['add an exclamation mark', '--dry-run'], 0, 0);
    const deadline = Date.now() + 20_000;
    while (pty.server.completions().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(pty.server.completions()).toHaveLength(1);
    expect(await lockFiles()).toHaveLength(1);
    s.kill('SIGTERM');
    expect(await s.exitCode(10_000)).toBe(143);
    expect(await lockFiles()).toEqual([]);
    expect(s.raw().length).toBeLessThan(20_000);
  });
});

describe('SIGTERM at a prompt', () => {
  it(
    'ends the run at the confirmation with exit 143, nothing written, the lock released',
    { timeout: 60_000 },
    async () => {
      pty.server.reply(replies.plan(PLAN));
      const s = pty.start(['add an exclamation mark'], 80, 24);
      await s.waitFor('Apply these changes');
      expect(await lockFiles()).toHaveLength(1);
      s.kill('SIGTERM');
      expect(await s.exitCode(10_000)).toBe(143);
      expect(await lockFiles()).toEqual([]);
      expect(await readFile(join(pty.project, 'greet.js'), 'utf8')).toBe(GREET);
    },
  );
});
