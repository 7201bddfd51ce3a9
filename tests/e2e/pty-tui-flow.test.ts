import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replies } from '../support/provider-server.js';
import { CLI_PATH } from '../support/fixture.js';
import { spawnPty, useCliInPty } from '../support/pty.js';

// The built CLI's TUI, started the way a person starts it (`clawcode` inside a project folder), planning
// against the loopback server: the hunk review, the command shown with its question, `:undo`.

const lines = Array.from({ length: 30 }, (_, i) => `// line ${i + 1}`);
const ORIGINAL = `${lines.join('\n')}\n`;
const RUN = 'node -e "console.log(42)"';
const PLAN = {
  analysis: 'Change two lines.',
  files_to_edit: [{ path: 'src/greet.js', reason: 'strings' }],
  patches: [
    {
      file: 'src/greet.js',
      operation: 'replace',
      find: '// line 2\n',
      replace: "export const greeting = 'hi';\n",
      replace_all: null,
      occurrence: null,
    },
    {
      file: 'src/greet.js',
      operation: 'replace',
      find: '// line 25\n',
      replace: "export const farewell = 'bye';\n",
      replace_all: null,
      occurrence: null,
    },
  ],
  commands: [RUN],
  agent_notes: [],
};

const pty = useCliInPty({
  prefix: 'clawcode-pty-tui-flow-',
  files: { 'src/greet.js': ORIGINAL, 'package.json': '{ "name": "greet" }\n' },
  env: { CI: 'true' },
  rows: 30,
});

const greet = () => readFile(join(pty.project, 'src/greet.js'), 'utf8');

describe('the TUI of the built CLI', () => {
  it(
    'opens on the current project folder without a picker, reviews hunks, shows the command it asks about, and :undo never reaches the model',
    { timeout: 90_000 },
    async () => {
      pty.server.reply(replies.plan(PLAN));
      // A recent project elsewhere used to make the picker appear even inside a project folder.
      const elsewhere = await mkdtemp(join(tmpdir(), 'clawcode-elsewhere-'));
      await writeFile(
        join(pty.env.CLAWCODE_HOME!, 'recent-projects.json'),
        JSON.stringify({ recent: [{ path: elsewhere, lastUsed: new Date().toISOString() }] }),
      );
      const s = pty.start(['--provider', 'openai'], 100);
      await s.waitFor('describe a task');
      expect(s.output()).not.toContain('Which project?');
      expect(s.output()).toContain(`│ ${pty.project.split('/').at(-1)}`);

      await s.typeLine('change two lines');
      await s.waitFor('Apply these changes to 1 file? (y/n/r)');
      expect(s.sinceMark()).toContain('answer y/n/r');
      s.mark();
      s.write('r');
      await s.waitFor('Apply this hunk to src/greet.js? (y/n/a/s/e/q)');
      expect(s.sinceMark()).toContain('src/greet.js (hunk 1/2)');
      s.mark();
      s.write('x'); // not an answer: the question stays open
      s.write('y');
      await s.waitFor('(hunk 2/2)');
      s.mark();
      s.write('n');
      // Inline code is not on the allow-list: the TUI asks about that one command, naming why.
      await s.waitFor('Run it? (y/n)');
      expect(s.sinceMark()).toContain(`$ ${RUN}`);
      expect(s.sinceMark()).toContain('Needs your yes (runs inline code (node -e))');
      s.mark();
      s.write('n');
      await s.waitFor('ready │');
      expect(await greet()).toBe(ORIGINAL.replace('// line 2\n', "export const greeting = 'hi';\n"));

      await s.typeLine(':undo');
      await s.waitFor('Undo 1 file? (y/n)');
      s.mark();
      s.write('y');
      await s.waitFor('Undid run');
      expect(await greet()).toBe(ORIGINAL);
      await s.waitFor('ready │');
      await s.typeLine(':undoo');
      await s.waitFor('Unknown command :undoo (not sent to the model)');
      expect(pty.server.completions()).toHaveLength(1);

      await s.waitFor('ready │');
      s.write('\u0003');
      expect(await s.exitCode()).toBe(0);
    },
  );

  it(
    'keeps the text typed while the project picker is on screen: the TUI input starts with it',
    { timeout: 90_000 },
    async () => {
      // Started outside any project, with a recent one: the picker appears.
      const outside = await mkdtemp(join(tmpdir(), 'clawcode-outside-'));
      await writeFile(
        join(pty.env.CLAWCODE_HOME!, 'recent-projects.json'),
        JSON.stringify({ recent: [{ path: pty.project, lastUsed: new Date().toISOString() }] }),
      );
      const s = spawnPty(process.execPath, [CLI_PATH, '--provider', 'openai'], {
        cwd: outside,
        env: pty.env,
        cols: 100,
        rows: 30,
      });
      try {
        await s.waitFor('Which project?');
        // The task and Enter in one burst, as a fast typist or a paste sends them: Enter keeps the current folder.
        s.write('fix the typo\r');
        await s.waitFor(`│ ${outside.split('/').at(-1)}`);
        await s.waitFor('fix the typo');
        expect(pty.server.requests).toHaveLength(0);
        s.mark();
        s.write(' now');
        await s.waitFor('fix the typo now');
      } finally {
        s.kill();
      }
    },
  );
});
