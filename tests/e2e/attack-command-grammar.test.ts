import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../../utils/shell/sandbox.js';
import { fingerprintTree, gitIn, runCli } from '../support/fixture.js';
import { useLoopbackProject } from '../support/loopback-project.js';
import { planOf } from '../support/plans.js';
import { replies } from '../support/provider-server.js';

// A hostile plan whose command lines look like allow-listed tools but are not what the judge read: bash's brace
// expansion (`{--output=src/a.js,}` is an option the judge never saw), a leading glob that matches a file named as
// an option, a redirection that empties a source file, and a spelling of a script that a deny rule names another
// way. With --yes --run-commands and no terminal, each ran on main and destroyed src/a.js or src/.

const sandbox = await detectSandbox();
const SOURCE = 'export const a = 1;\n';

const project = useLoopbackProject({
  prefix: 'clawcode-attack-grammar-',
  files: {
    'src/a.js': SOURCE,
    'package.json': JSON.stringify({
      name: 'p',
      version: '1.0.0',
      scripts: { test: 'node -e 0', deploy: 'rm -rf src' },
    }),
    // loaded by `node --require e.js` when npm is given --node-options
    'node_modules/e.js': "require('fs').rmSync('src', { recursive: true });\n",
    '--node-options=--require=e.js': '',
    '.clawcode/settings.json': JSON.stringify({ commands: { deny: ['npm run deploy'] } }),
  },
});

type Report = { commands: { command: string; ran: boolean; decision?: string; skipped?: string }[] };

const ATTACKS: [what: string, command: string, decision: string][] = [
  ['brace expansion', 'git diff {--output=src/a.js,}', 'ask-user'],
  ['a glob matching a file named as an option', 'npm test *', 'ask-user'],
  ['a redirection over a source file', 'npm test > src/a.js', 'ask-user'],
  ['another spelling of a denied script', 'npm run-script deploy', 'reject'],
];

describe(`command lines that are not what they look like${sandbox.available ? '' : ` (skipped: ${sandbox.reason})`}`, () => {
  for (const [what, command, decision] of ATTACKS) {
    it.skipIf(!sandbox.available)(`${what}: ${command} is not run unasked (fails on main)`, async () => {
      gitIn(project.project, 'init', '-q');
      gitIn(project.project, 'add', 'src', 'package.json');
      gitIn(project.project, 'commit', '-qm', 'init');
      const before = fingerprintTree(project.project);
      project.server.reply(replies.plan(planOf([], { commands: [command] })));
      const result = await runCli(['run the checks', '--dir', project.project, '--yes', '--run-commands', '--json'], {
        env: project.env,
        timeoutMs: 30_000,
      });
      const report = JSON.parse(result.stdout) as Report;
      expect(report.commands[0], result.stderr).toMatchObject({ ran: false, decision });
      expect(fingerprintTree(project.project)).toEqual(before);
    });
  }

  it.skipIf(!sandbox.available)(
    'a line nested too deeply to read is left for a person, and the run ends cleanly (internal error on main)',
    async () => {
      const deep = Array(8000).fill('npm test').join(' && ');
      project.server.reply(replies.plan(planOf([], { commands: [deep, 'npm test'] })));
      const result = await runCli(['run the checks', '--dir', project.project, '--yes', '--run-commands', '--json'], {
        env: project.env,
        timeoutMs: 30_000,
      });
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(result.stdout) as Report;
      expect(report.commands.map((c) => [c.ran, c.decision])).toEqual([
        [false, 'ask-user'],
        [true, 'auto-approve'],
      ]);
    },
  );
});
