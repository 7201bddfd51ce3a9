import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replies } from '../support/provider-server.js';
import { replacePlan } from '../support/fixture.js';
import { useCliInPty, type PtySession } from '../support/pty.js';

// The built CLI's TUI in an 80x24 terminal, used as a person uses it: what the screen says after a plan is
// declined or applied, the tokens of a repair round, the `e` key of the hunk review, and the model list
// from the server's `GET /v1/models` (`:model`). Screens are read as drawn (tests/support/pty.ts `screen`).

const ORIGINAL = `${Array.from({ length: 30 }, (_, i) => `// line ${i + 1}`).join('\n')}\n`;

const pty = useCliInPty({
  prefix: 'clawcode-pty-tui-review-',
  files: { 'src/greet.js': ORIGINAL, 'package.json': '{ "name": "greet" }\n' },
  env: { CI: 'true' },
  rows: 24,
  models: ['test-model', 'gpt-4o-mini', 'qwen2.5-coder:7b'],
});

const greet = () => readFile(join(pty.project, 'src/greet.js'), 'utf8');

/** The screen once it has stopped changing: what a person reads after the last redraw. */
async function settled(s: PtySession): Promise<string> {
  let last = '';
  for (let i = 0; i < 40; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const now = (await s.screen()).join('\n');
    if (now === last) return now;
    last = now;
  }
  return last;
}

describe('the TUI of the built CLI at 80x24', () => {
  it(
    'after n the feed says the plan was declined and the diff is gone; numbers read as in the console',
    { timeout: 60_000 },
    async () => {
      pty.server.reply(
        replies.plan(replacePlan('src/greet.js', [{ find: '// line 2\n', replace: 'const declined = 1;\n' }])),
      );
      const s = pty.start(['--provider', 'openai'], 80);
      await s.waitFor('describe a task');
      await s.typeLine('change line two');
      await s.waitFor('Apply these changes to 1 file? (y/n/r)');
      expect((await s.screen()).join('\n')).toContain('+const declined = 1;');
      s.mark();
      s.write('n');
      await s.waitFor('ready │');
      const screen = await settled(s);
      expect(screen).toContain('Declined: nothing written.');
      expect(screen).not.toContain('+const declined = 1;');
      // gpt-4o-mini's default budget: 47% of its 128k-token window, the cap.
      expect(screen).toMatch(/Context: 2 files, \d{3}\/240,000 chars/);
      expect(await greet()).toBe(ORIGINAL);
    },
  );

  it(
    'counts the repair request in the tokens, and names the run :undo takes back once a task is written',
    { timeout: 60_000 },
    async () => {
      pty.server.reply(
        replies.plan(replacePlan('src/greet.js', [{ find: '// no such line\n', replace: 'x\n' }]), {
          usage: { input: 1000, output: 200 },
        }),
        replies.plan(replacePlan('src/greet.js', [{ find: '// line 3\n', replace: 'const repaired = 3;\n' }]), {
          usage: { input: 1500, output: 300 },
        }),
      );
      const s = pty.start(['--provider', 'openai'], 80);
      await s.waitFor('describe a task');
      await s.typeLine('change line three');
      await s.waitFor('Apply these changes to 1 file? (y/n/r)');
      s.mark();
      s.write('y');
      await s.waitFor('ready │');
      const screen = await settled(s);
      expect(screen).toContain('tokens 2,500↑ 500↓');
      const [runId] = await readdir(join(pty.env.CLAWCODE_HOME!, 'runs')).then(async (projects) =>
        readdir(join(pty.env.CLAWCODE_HOME!, 'runs', projects[0]!)),
      );
      expect(screen).toContain(`:undo takes it back (run ${runId})`);
      expect(await greet()).toContain('const repaired = 3;');
      expect(pty.server.completions()).toHaveLength(2);
    },
  );

  it(
    'offers e in the hunk review: the hunk is edited in $EDITOR, shown, then written',
    { timeout: 60_000 },
    async () => {
      pty.server.reply(
        replies.plan(replacePlan('src/greet.js', [{ find: '// line 2\n', replace: 'const greeting = "hello";\n' }])),
      );
      const editor = join(pty.env.CLAWCODE_HOME!, 'edit.sh');
      await writeFile(editor, '#!/bin/sh\nsed -i s/hello/hola/ "$1"\n', { mode: 0o755 });
      pty.env.VISUAL = editor;
      const s = pty.start(['--provider', 'openai'], 80);
      await s.waitFor('describe a task');
      await s.typeLine('greet');
      await s.waitFor('Apply these changes to 1 file? (y/n/r)');
      s.mark();
      s.write('r');
      await s.waitFor('Apply this hunk to src/greet.js? (y/n/a/s/e/q)');
      s.mark();
      s.write('e');
      await s.waitFor('Apply the edited hunk to src/greet.js?');
      const edited = await settled(s);
      expect(edited).toMatch(/│ \+const greeting = "hola"; +│/);
      expect(edited).toContain('y yes · n no · a rest of file · s skip file · e edit · q quit, write nothing');
      s.mark();
      s.write('y');
      await s.waitFor('ready │');
      expect(await greet()).toBe(ORIGINAL.replace('// line 2\n', 'const greeting = "hola";\n'));
      // The pane shows what was written: the edited hunk, not the plan's.
      const written = await settled(s);
      expect(written).toContain('+const greeting = "hola";');
      expect(written).not.toContain('"hello"');
    },
  );

  it(
    ':help lists every command; :model offers the server’s models (the next task uses the one picked), :provider the configured providers, :project moves the header',
    { timeout: 60_000 },
    async () => {
      const other = join(pty.project, 'other');
      await mkdir(other);
      await writeFile(join(other, 'package.json'), '{ "name": "other" }\n');
      const s = pty.start(['--provider', 'openai'], 80);
      await s.waitFor('describe a task');
      await s.typeLine(':help');
      await s.waitFor(':exit');
      const help = await settled(s);
      for (const command of [':project', ':provider', ':model', ':undo', ':add', ':files', ':clear', ':exit'])
        expect(help).toContain(command);
      expect(pty.server.completions()).toHaveLength(0);

      await s.typeLine(':model');
      await s.waitFor('qwen2.5-coder:7b');
      const picker = await settled(s);
      expect(picker).toContain('Which model?');
      expect(picker).toContain('gpt-4o-mini');
      s.mark();
      s.write('qwen');
      await s.waitFor('qwen');
      s.write('\r');
      await s.waitFor('Model: qwen2.5-coder:7b');
      await s.waitFor('openai · qwen2.5-coder:7b │');
      expect((await settled(s)).split('\n')[0]).toContain('openai · qwen2.5-coder:7b');

      pty.server.reply(
        replies.plan(replacePlan('src/greet.js', [{ find: '// line 4\n', replace: 'const four = 4;\n' }])),
      );
      await s.typeLine('change line four');
      await s.waitFor('Apply these changes');
      expect(pty.server.completions().at(-1)?.body?.model).toBe('qwen2.5-coder:7b');
      s.write('n');
      await s.waitFor('Declined');

      // A second provider in config.json: `:provider` offers both and switches to the one picked.
      await writeFile(
        join(pty.env.CLAWCODE_HOME!, 'config.json'),
        JSON.stringify({
          providers: {
            local: {
              provider: 'openai',
              preset: 'vllm',
              baseURL: `${pty.server.url}/v1`,
              apiKey: 'sk-test-pty',
              model: 'llama3',
            },
          },
        }),
        { mode: 0o600 },
      );
      await s.typeLine(':provider');
      await s.waitFor('Which provider?');
      await s.waitFor('local · llama3');
      expect(await settled(s)).toMatch(/│ ❯ local · llama3 +│\n│   openai · qwen2\.5-coder:7b \(in use\) +│/);
      s.mark();
      s.write('local');
      await s.waitFor('1 of 1');
      s.write('\r');
      await s.waitFor('Provider: local · llama3');
      await s.waitFor('local · llama3 │');
      expect((await settled(s)).split('\n')[0]).toContain('local · llama3');

      await s.typeLine(':project other');
      await s.waitFor('Project: ');
      await s.waitFor('llama3 │ other');
      expect((await settled(s)).split('\n')[0]).toContain('│ other');
    },
  );
});
