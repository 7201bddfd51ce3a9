import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { replies, type RecordedRequest } from '../support/provider-server.js';
import { useCliInPty, type PtySession } from '../support/pty.js';

// Follow-up context in `clawcode --shell` and in the TUI (built CLI, pseudo-terminal, loopback provider):
// the second task's request holds the files the first task edited, `:add` pins more, `:clear` starts clean.

// Large enough that neither file fits beside the other in the 2,600-character budget used below.
const pad = (word: string): string =>
  Array.from({ length: 24 }, (_, i) => `// ${word} note ${i}: ${'-'.repeat(40)}`).join('\n');
const GREET = `export const greeting = 'hello';\n${pad('greeting')}\n`;
const EXTRACT = `export function extractionStep(input) {\n  return input.trim();\n}\n${pad('extraction')}\n`;
const SMALL = 'export const limit = 3;\n';

const pty = useCliInPty({
  prefix: 'clawcode-pty-followup-',
  files: { 'src/greet.js': GREET, 'src/extract.js': EXTRACT, 'src/limits.js': SMALL },
  env: { CI: 'true' },
  rows: 30,
});

const plan = {
  analysis: 'Change the greeting.',
  files_to_edit: [{ path: 'src/greet.js', reason: 'the greeting lives here' }],
  patches: [
    {
      file: 'src/greet.js',
      operation: 'replace',
      find: "'hello'",
      replace: "'hi'",
      replace_all: null,
      occurrence: null,
    },
  ],
  commands: [],
  agent_notes: [],
};
const empty = { analysis: 'Nothing to change.', files_to_edit: [], patches: [], commands: [], agent_notes: [] };

/** The user prompt of a recorded chat completion request. */
function userPrompt(r: RecordedRequest): string {
  const messages = (r.body?.messages ?? []) as { role: string; content: string }[];
  return messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n');
}

/**
 * Wait until `task` has ended in the TUI: the latest frame (each redraw starts with the header line)
 * shows the task's outcome line below its "Planning:" line and the ready keys again. The request count
 * alone is not enough: it grows before the run ends, and a Ctrl-C then cancels the run instead of leaving.
 */
async function settled(s: PtySession, requests: number, task: string): Promise<void> {
  await vi.waitFor(
    () => {
      expect(pty.server.completions()).toHaveLength(requests);
      const out = s.output();
      const frame = out.slice(out.lastIndexOf('openai · gpt-4o-mini │'));
      // The run's first line may have scrolled out of the last frame: look from where it was drawn.
      const run = out.slice(out.lastIndexOf(`Planning: ${task}`));
      expect(run).toMatch(/[✔✖] /);
      expect(frame).toContain('Enter run · Tab diff');
    },
    { timeout: 30_000, interval: 50 },
  );
}

describe('follow-up context in the shell and the TUI', () => {
  it(
    "the second task keeps the first task's files; :add pins one; :files lists them; :clear starts clean",
    { timeout: 120_000 },
    async () => {
      pty.server.reply(replies.plan(plan), replies.plan(empty), replies.plan(empty));
      const s = pty.start(['--shell', '--dir', pty.project, '--provider', 'openai', '--budget', '2600']);
      await s.waitFor('clawcode:');
      s.mark();
      s.write('make the greeting shorter\r');
      await s.waitFor('Apply these changes to 1 file?');
      s.mark();
      s.write('y\r');
      await s.waitFor('clawcode:');
      expect(await readFile(join(pty.project, 'src/greet.js'), 'utf8')).toBe(GREET.replace("'hello'", "'hi'"));
      // The request's size is shown before it is sent.
      expect(s.output()).toMatch(/Sending [\d,]+ chars \(~[\d,]+ tokens\): context [\d,]+ of 2,600 chars/);

      s.mark();
      s.write(':add src/limits.js\r');
      await s.waitFor('Pinned src/limits.js');
      s.mark();
      s.write(':files\r');
      await s.waitFor('kept    src/greet.js');
      expect(s.sinceMark()).toContain('pinned  src/limits.js');

      // The follow-up names nothing in greet.js: it is there because the first task edited it.
      s.mark();
      s.write('now finish the extraction step\r');
      await s.waitFor('The plan changes no file.');
      await s.waitFor('clawcode:');
      const second = userPrompt(pty.server.completions()[1]!);
      expect(second).toContain('## src/limits.js (whole file)');
      expect(second).toContain('## src/greet.js (whole file)');
      expect(second).toContain("export const greeting = 'hi';");
      expect(second.indexOf('## src/limits.js')).toBeLessThan(second.indexOf('## src/greet.js'));

      s.mark();
      s.write(':clear\r');
      await s.waitFor('clawcode:');
      s.mark();
      s.write(':files\r');
      await s.waitFor('the next task starts clean');
      s.mark();
      s.write('now finish the extraction step\r');
      await s.waitFor('The plan changes no file.');
      await s.waitFor('clawcode:');
      const third = userPrompt(pty.server.completions()[2]!);
      expect(third).not.toContain('## src/greet.js');

      s.mark();
      s.write(':exit\r');
      await s.waitFor('Bye.');
      expect(await s.exitCode()).toBe(0);
    },
  );

  it(
    "in the TUI too: the second task keeps the first task's file; :add pins one; :files lists them; :clear starts clean",
    { timeout: 120_000 },
    async () => {
      pty.server.reply(replies.plan(plan), replies.plan(empty), replies.plan(empty));
      const s = pty.start(['--provider', 'openai', '--budget', '2600'], 100);
      await s.waitFor('describe a task');
      await s.typeLine('make the greeting shorter');
      await s.waitFor('Apply these changes to 1 file? (y/n/r)');
      s.mark();
      s.write('y');
      await settled(s, 1, 'make the greeting shorter');
      expect(await readFile(join(pty.project, 'src/greet.js'), 'utf8')).toBe(GREET.replace("'hello'", "'hi'"));

      await s.typeLine(':add src/limits.js');
      await s.waitFor('Pinned src/limits.js');
      await s.typeLine(':files');
      await s.waitFor('kept    src/greet.js');
      expect(s.sinceMark()).toContain('pinned  src/limits.js');
      // A files command is answered by the TUI: nothing reached the model.
      expect(pty.server.completions()).toHaveLength(1);

      // The follow-up names nothing in greet.js: it is there because the first task edited it.
      await s.typeLine('now finish the extraction step');
      await settled(s, 2, 'now finish the extraction step');
      const second = userPrompt(pty.server.completions()[1]!);
      expect(second).toContain('## src/limits.js (whole file)');
      expect(second).toContain('## src/greet.js (whole file)');
      expect(second).toContain("export const greeting = 'hi';");
      expect(second.indexOf('## src/limits.js')).toBeLessThan(second.indexOf('## src/greet.js'));

      await s.typeLine(':clear');
      await s.waitFor('Cleared: the next task starts clean.');
      // A task text not already on screen: the echo is then surely the typed one.
      await s.typeLine('finish the extraction step again');
      await settled(s, 3, 'finish the extraction step again');
      const third = userPrompt(pty.server.completions()[2]!);
      expect(third).not.toContain('## src/greet.js');

      s.write('\u0003');
      expect(await s.exitCode()).toBe(0);
    },
  );
});
