import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { detectSandbox } from '../../utils/shell/sandbox.js';
import { asNobody, chownTree, NOBODY, runCliAs } from '../support/as-user.js';
import { cleanEnv, fingerprintTree, gitIn, replacePlan, runCli, writeFiles } from '../support/fixture.js';

// An unasked command (allow-listed, run with --yes --run-commands) may write anywhere in the sandbox's project
// root. On main an allow-listed tool handed a project path by option, or a project script, emptied or overwrote
// the project's files and nothing put them back: `pytest --basetemp=src` deleted src/, `npm test` and `make` ran
// whatever the committed (or plan-written) script said. Now the files it may not change are kept before it runs
// and put back after it, with the files it added; the command counts as failed (exit 4).

const sandbox = await detectSandbox();
const has = (tool: string, ...args: string[]): boolean =>
  spawnSync(tool, args.length > 0 ? args : ['--version'], { stdio: 'ignore' }).status === 0;

const FILES: Record<string, string> = {
  'src/a.js': 'export const a = 1;\n',
  'src/b.js': 'export const b = 2;\n',
  '.gitignore': '.env\nnode_modules/\n.venv/\n',
  'node_modules/.bin/vitest': '#!/bin/sh\n',
  '.venv/pyvenv.cfg': 'home = /usr/bin\n',
  '.venv/lib/site-packages/x.py': 'x = 1\n',
  '.env': 'TOKEN=keep-me\n',
  'tests/test_a.py': 'def test_a(tmp_path):\n    assert True\n',
  'package.json': JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'echo gone > src/b.js' } }),
  Makefile: [
    'wipe:\n\trm -rf src\n',
    'env:\n\techo TOKEN=lost > .env\n',
    'clear-notes:\n\trm -rf notes\n',
    'build:\n\tmkdir -p dist && echo built > dist/out.js && echo made > made.txt\n',
    'fmt:\n\tsed -i s/42/43/ src/a.js\n',
    'lock:\n\techo gone > src/b.js; chmod 000 src\n',
    'plant:\n\techo evil > node_modules/.bin/vitest; echo evil > .venv/lib/site-packages/evil.pth; true\n',
    'cache:\n\tmkdir -p node_modules/.vite/vitest && echo {} > node_modules/.vite/vitest/results.json\n',
  ].join('\n'),
};

type Report = {
  commands: { command: string; ran: boolean; exitCode: number | null; restored?: string; skipped?: string }[];
};

let project = '';
let env: NodeJS.ProcessEnv = {};

beforeEach(() => {
  const base = mkdtempSync(join(tmpdir(), 'clawcode-attack-writes-'));
  project = join(base, 'p');
  writeFiles(project, FILES);
  gitIn(project, 'init', '-q');
  gitIn(project, 'add', '-A');
  gitIn(project, 'commit', '-qm', 'init', '--no-verify');
  env = cleanEnv({ CLAWCODE_HOME: mkdtempSync(join(tmpdir(), 'clawcode-home-')) });
});

/** Apply `plan` with --yes --run-commands --json; the report and the exit code. */
async function apply(plan: object): Promise<{ code: number | null; report: Report; stderr: string }> {
  const file = join(project, '..', 'plan.json');
  writeFileSync(file, JSON.stringify(plan));
  const result = await runCli(['apply', file, '--dir', project, '--yes', '--run-commands', '--json'], {
    env,
    timeoutMs: 60_000,
  });
  return { code: result.code, report: JSON.parse(result.stdout) as Report, stderr: result.stderr };
}

/** The tree without the folders a test tool may make freely (its caches). */
function tree(): Map<string, string> {
  const all = fingerprintTree(project);
  for (const key of [...all.keys()]) if (/^(\.pytest_cache|\.benchmarks|\.git)(\/|$)/.test(key)) all.delete(key);
  return all;
}

const commandsOnly = (commands: string[]) => ({ ...replacePlan('src/a.js', []), files_to_edit: [], commands });

describe(`an unasked command keeps the project's files${sandbox.available ? '' : ` (skipped: ${sandbox.reason})`}`, () => {
  const attacks: [name: string, command: string, tool: string[]][] = [
    ['a Makefile target deleting src/', 'make wipe', ['make']],
    ['the test script overwriting a file', 'npm test', ['npm']],
    ['an ignored .env overwritten', 'make env', ['make']],
    ['pytest --basetemp naming src/', 'python3 -m pytest --basetemp=src -q', ['python3', '-m', 'pytest', '--version']],
  ];
  for (const [name, command, tool] of attacks) {
    it.skipIf(!sandbox.available || !has(tool[0]!, ...tool.slice(1)))(
      `${name}: put back, exit 4 (fails on main)`,
      { timeout: 90_000 },
      async () => {
        const before = tree();
        const { code, report, stderr } = await apply(commandsOnly([command]));
        expect(report.commands[0], stderr).toMatchObject({ ran: true });
        expect(report.commands[0]!.restored).toMatch(/^the command changed .*put back as it was/);
        expect(code).toBe(4);
        expect(tree()).toEqual(before);
      },
    );
  }

  it.skipIf(!sandbox.available || !has('make'))(
    'an ignore rule the plan writes does not take untracked files out of the guard',
    { timeout: 90_000 },
    async () => {
      writeFiles(project, { 'notes/todo.md': 'mine, not committed\n' });
      const plan = {
        ...replacePlan('.gitignore', [{ find: '.env\n', replace: '.env\nnotes/\n' }]),
        commands: ['make clear-notes'],
      };
      const { code, report, stderr } = await apply(plan);
      expect(report.commands[0]!.restored, JSON.stringify(report) + stderr).toContain('notes/todo.md');
      expect(code).toBe(4);
      expect(readFileSync(join(project, 'notes/todo.md'), 'utf8')).toBe('mine, not committed\n');
    },
  );

  it.skipIf(!sandbox.available || !has('make'))(
    'a command may change the files the plan wrote and add files: kept, exit 0',
    { timeout: 90_000 },
    async () => {
      const plan = {
        ...replacePlan('src/a.js', [{ find: 'a = 1', replace: 'a = 42' }]),
        commands: ['make fmt', 'make build'],
      };
      const { code, report, stderr } = await apply(plan);
      expect(
        report.commands.map((c) => [c.exitCode, c.restored]),
        stderr,
      ).toEqual([
        [0, undefined],
        [0, undefined],
      ]);
      expect(code).toBe(0);
      expect(readFileSync(join(project, 'src/a.js'), 'utf8')).toBe('export const a = 43;\n');
      expect(readFileSync(join(project, 'made.txt'), 'utf8')).toBe('made\n');
      expect(readFileSync(join(project, 'dist/out.js'), 'utf8')).toBe('built\n');
    },
  );

  it.skipIf(!sandbox.available || !has('make'))(
    'cannot plant code in the installed dependencies the person runs later; their caches stay writable (fails on main)',
    { timeout: 90_000 },
    async () => {
      const before = fingerprintTree(project);
      const { code, report, stderr } = await apply(commandsOnly(['make plant', 'make cache']));
      expect(
        report.commands.map((c) => c.exitCode),
        stderr,
      ).toEqual([0, 0]);
      expect(code).toBe(0);
      const after = fingerprintTree(project);
      for (const path of ['node_modules/.bin/vitest', '.venv/lib/site-packages/x.py'])
        expect(after.get(path)).toBe(before.get(path));
      expect(after.has('.venv/lib/site-packages/evil.pth')).toBe(false);
      expect(readFileSync(join(project, 'node_modules/.vite/vitest/results.json'), 'utf8')).toBe('{}\n');
    },
  );

  it.skipIf(!sandbox.available || !asNobody || !has('make'))(
    'as an unprivileged user: a file is put back into a folder the command closed to its owner',
    { timeout: 90_000 },
    async () => {
      const before = tree();
      const file = join(project, '..', 'plan.json');
      writeFileSync(file, JSON.stringify(commandsOnly(['make lock'])));
      chownTree(join(project, '..'), NOBODY);
      chownTree(env.CLAWCODE_HOME!, NOBODY);
      const args = ['apply', file, '--dir', project, '--yes', '--run-commands', '--json'];
      const result = await runCliAs(NOBODY, args, env);
      const report = JSON.parse(result.stdout) as Report;
      expect(report.commands[0]!.restored, result.stderr).toMatch(/^the command changed src\//);
      expect(result.code).toBe(4);
      expect(tree()).toEqual(before);
    },
  );
});
