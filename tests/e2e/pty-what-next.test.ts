import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replies } from '../support/provider-server.js';
import { replacePlan } from '../support/fixture.js';
import { useCliInPty } from '../support/pty.js';

// The built CLI's "What next?" loop in an 80x24 terminal: it takes the shell's :commands, so `:undo` undoes
// the last run instead of going to the model, and `:model` picks from the server's list.

const ORIGINAL = 'export const a = 0;\n';

const pty = useCliInPty({
  prefix: 'clawcode-pty-what-next-',
  files: { 'a.js': ORIGINAL, 'package.json': '{ "name": "a" }\n' },
  rows: 24,
  models: ['gpt-4o-mini', 'big-model'],
});

const file = () => readFile(join(pty.project, 'a.js'), 'utf8');

describe('the What-next loop of the built CLI', () => {
  it(
    'takes :undo, :help and :model as commands: none of them reaches the model; the next task uses the model picked',
    { timeout: 90_000 },
    async () => {
      pty.server.reply(
        replies.plan(replacePlan('a.js', [{ find: 'export const a = 0;', replace: 'export const a = 1;' }])),
      );
      const s = pty.start(['set a to 1', '--provider', 'openai'], 80);
      await s.answer('Apply these changes to 1 file?', 'y\r');
      await s.answer('What next?', ':undo\r');
      expect(await file()).toBe('export const a = 1;\n');
      await s.answer('Undo 1 file?', 'y\r');
      await s.waitFor('Undid run');
      expect(await file()).toBe(ORIGINAL);

      await s.answer('What next?', ':help\r');
      await s.waitFor(':exit');
      for (const command of [':undo', ':model', ':provider', ':project', ':files'])
        expect(s.sinceMark()).toContain(command);
      await s.answer('What next?', ':udno\r');
      await s.waitFor('Unknown command :udno (not sent to the model)');

      await s.answer('What next?', ':model\r');
      await s.waitFor('big-model');
      s.mark();
      s.write('big');
      await s.waitFor('❯ big-model');
      s.write('\r');
      await s.waitFor('Model: big-model');
      expect(pty.server.completions()).toHaveLength(1);

      pty.server.reply(
        replies.plan(replacePlan('a.js', [{ find: 'export const a = 0;', replace: 'export const a = 2;' }])),
      );
      await s.answer('What next?', 'set a to 2\r');
      await s.answer('Apply these changes to 1 file?', 'n\r');
      expect(pty.server.completions()).toHaveLength(2);
      expect(pty.server.completions()[1]?.body?.model).toBe('big-model');
      await s.answer('What next?', '\r');
      expect(await s.exitCode()).toBe(0);
      expect(await file()).toBe(ORIGINAL);
    },
  );
});
