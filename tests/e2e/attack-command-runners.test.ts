import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../../utils/shell/sandbox.js';
import { runCli } from '../support/fixture.js';
import { planOf } from '../support/plans.js';
import { replies } from '../support/provider-server.js';
import { useCliInPty } from '../support/pty.js';

// The coverage tools on the allow-list (c8, nyc) run the command that follows them: `c8 rm -rf src` is `rm -rf src`
// under a coverage reporter. With --yes --run-commands and no terminal, such a line must be judged by the command
// it runs (refused or left for a person's yes), never run as "a local build/test tool".

const sandbox = await detectSandbox();
const skipReason = sandbox.available ? '' : ` (skipped: ${sandbox.reason})`;
const SOURCE = 'export const a = 1;\n';

const pty = useCliInPty({
  prefix: 'clawcode-attack-runners-',
  files: { 'src/a.js': SOURCE, 'package.json': '{"name":"p","version":"1.0.0"}\n' },
  env: { CI: 'true' },
  rows: 30,
});

interface Report {
  commands: { command: string; ran: boolean; skipped?: string; decision?: string }[];
}

describe(`a coverage runner wrapping another command${skipReason}`, () => {
  it.skipIf(!sandbox.available)(
    'c8 / nyc (also through npx and npm exec) in front of rm do not run it unasked',
    { timeout: 60_000 },
    async () => {
      const commands = [
        'c8 rm -rf src',
        'nyc rm -rf src',
        'npx c8 rm -rf src',
        'npm exec nyc -- rm -rf src',
        'c8 -r vitest rm -rf src',
        'nyc --all true rm src/a.js',
      ];
      // Local stand-ins for the two tools (no network in the sandbox): each runs the command it is given.
      await mkdir(join(pty.project, 'node_modules/.bin'), { recursive: true });
      for (const tool of ['c8', 'nyc']) {
        await writeFile(
          join(pty.project, 'node_modules/.bin', tool),
          '#!/bin/sh\nwhile [ "${1#-}" != "$1" ]; do shift; done\nexec "$@"\n',
        );
        await chmod(join(pty.project, 'node_modules/.bin', tool), 0o755);
      }
      pty.server.reply(replies.plan(planOf([], { commands })));
      const result = await runCli(['run the checks', '--dir', pty.project, '--yes', '--run-commands', '--json'], {
        env: pty.env,
        timeoutMs: 45_000,
      });
      const report = JSON.parse(result.stdout) as Report;
      for (const c of report.commands) {
        expect(c.ran, c.command).toBe(false);
        expect(c.decision, c.command).not.toBe('auto-approve');
      }
      expect(await readFile(join(pty.project, 'src/a.js'), 'utf8')).toBe(SOURCE);
    },
  );
});
