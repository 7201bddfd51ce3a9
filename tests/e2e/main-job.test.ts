import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, copyPackageFixture, REPO_ROOT, runCli, snapshotTree } from '../support/fixture.js';
import { replies, startProviderServer, type ProviderServer } from '../support/provider-server.js';
import { detectSandbox } from '../../utils/shell/sandbox.js';

// The built CLI on a copy of a real package's source (commander, from node_modules), planning
// through the real openai SDK against the loopback server. Exact bytes on disk are checked.

const FIND = "    this.flags = flags;\n    this.description = description || '';\n";
const REPLACE =
  "    this.flags = flags;\n    this.description = description || '';\n    this.createdAt = Date.now();\n";
const NEW_FILE = "'use strict';\n\nexports.log = (...args) => console.error('[commander]', ...args);\n";

function plan(overrides: Partial<{ patches: unknown[]; commands: string[] }> = {}) {
  return {
    analysis: 'Record when each option is created, and add a logging helper.',
    files_to_edit: [
      { path: 'lib/option.js', reason: 'timestamp' },
      { path: 'lib/log.js', reason: 'new helper' },
    ],
    patches: overrides.patches ?? [
      {
        file: 'lib/option.js',
        operation: 'replace',
        find: FIND,
        replace: REPLACE,
        replace_all: null,
        occurrence: null,
      },
      { file: 'lib/log.js', operation: 'replace', find: '', replace: NEW_FILE, replace_all: null, occurrence: null },
    ],
    commands: overrides.commands ?? [],
    agent_notes: ['commander keeps options in lib/option.js'],
  };
}

const sandbox = await detectSandbox();

/** Add npm scripts to the fixture's package.json. */
async function addScripts(scripts: Record<string, string>): Promise<void> {
  const path = join(project, 'package.json');
  const pkg = JSON.parse(await readFile(path, 'utf8')) as { scripts?: Record<string, string> };
  await writeFile(path, JSON.stringify({ ...pkg, scripts: { ...pkg.scripts, ...scripts } }, null, 2));
}

let server: ProviderServer;
let project: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startProviderServer({ apiKey: 'sk-test-e2e' });
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  server.reset();
  project = await copyPackageFixture('commander');
  home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
  env = cleanEnv({ CLAWCODE_HOME: home, OPENAI_API_KEY: 'sk-test-e2e', OPENAI_BASE_URL: `${server.url}/v1` });
});

describe('clawcode "<task>" end to end', () => {
  it('applies a plan byte-exact with only OPENAI_API_KEY and OPENAI_BASE_URL set, and can undo it', async () => {
    const before = await snapshotTree(project);
    server.reply(replies.plan(plan(), { usage: { input: 1200, output: 80 } }));

    const result = await runCli(
      [
        'add a createdAt timestamp in the Option constructor of lib/option.js',
        '--dir',
        project,
        '--yes',
        '--provider',
        'openai',
      ],
      { env },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);

    const original = before.get('lib/option.js')!.toString('utf8');
    expect(original).toContain(FIND);
    expect(await readFile(join(project, 'lib/option.js'), 'utf8')).toBe(original.replace(FIND, () => REPLACE));
    expect(await readFile(join(project, 'lib/log.js'), 'utf8')).toBe(NEW_FILE);
    const after = await snapshotTree(project);
    for (const [path, bytes] of before)
      if (path !== 'lib/option.js') expect(after.get(path)?.equals(bytes), path).toBe(true);
    expect([...after.keys()].filter((p) => !before.has(p))).toEqual(['lib/log.js']);

    // One model call, through the real SDK, with structured output and the task in the prompt.
    const calls = server.completions();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers.authorization).toBe('Bearer sk-test-e2e');
    expect(calls[0]!.body.response_format.type).toBe('json_schema');
    expect(calls[0]!.body.messages[1].content).toContain('add a createdAt timestamp in the Option constructor');
    expect(calls[0]!.body.messages[1].content).toContain('lib/option.js');
    expect(result.stdout).toContain('+    this.createdAt = Date.now();');
    expect(result.stdout).toMatch(/Wrote 2 files/);

    // Session memory recorded under CLAWCODE_HOME.
    const sessions = join(home, 'memory', 'sessions');
    const [sessionFile] = execFileSync('ls', [sessions], { encoding: 'utf8' }).trim().split('\n');
    const memory = JSON.parse(await readFile(join(sessions, sessionFile!), 'utf8'));
    expect(memory.lastTasks[0]).toBe('add a createdAt timestamp in the Option constructor of lib/option.js');
    expect(memory.recentFiles).toEqual(['lib/option.js', 'lib/log.js']);

    const undo = await runCli(['undo', '--dir', project, '--yes'], { env });
    expect(undo.code).toBe(0);
    const restored = await snapshotTree(project);
    expect([...restored.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [path, bytes] of before) expect(restored.get(path)?.equals(bytes), path).toBe(true);
  });

  it('--dry-run shows the diff and writes nothing', async () => {
    const before = await snapshotTree(project);
    server.reply(replies.plan(plan()));
    const result = await runCli(['add a timestamp', '--dir', project, '--dry-run'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('+    this.createdAt = Date.now();');
    expect(result.stdout).toContain('Dry run: nothing written.');
    const after = await snapshotTree(project);
    expect(after.size).toBe(before.size);
    for (const [path, bytes] of before) expect(after.get(path)?.equals(bytes), path).toBe(true);
  });

  it('a patch that does not apply writes nothing and exits 3, naming the patch', async () => {
    const before = await snapshotTree(project);
    server.reply(
      replies.plan(
        plan({
          patches: [
            { file: 'lib/option.js', operation: 'replace', find: FIND, replace: REPLACE },
            { file: 'lib/help.js', operation: 'replace', find: 'this text is not in help.js at all\n', replace: 'x' },
          ],
        }),
      ),
    );
    // The one repair round asks for patch 2 again; its reply still does not apply.
    server.reply(
      replies.plan(
        plan({
          patches: [{ file: 'lib/help.js', operation: 'replace', find: 'still not in help.js\n', replace: 'x' }],
        }),
      ),
    );
    const result = await runCli(['change things', '--dir', project, '--yes'], { env });
    expect(result.code).toBe(3);
    expect(server.completions()).toHaveLength(2);
    expect(result.stderr).toMatch(/patch #2 \(lib\/help\.js\)/);
    const after = await snapshotTree(project);
    for (const [path, bytes] of before) expect(after.get(path)?.equals(bytes), path).toBe(true);
    expect(after.size).toBe(before.size);
  });

  it.skipIf(!sandbox.available)(
    '--json prints one report that matches what happened, and runs commands only with --run-commands',
    async () => {
      // An allow-listed command (npm run <script>): inline `node -e` code needs a person's yes for each command.
      const command = 'npm run mark';
      await addScripts({ mark: `node -e "require('fs').writeFileSync('ran.txt','ok')"` });
      server.reply(replies.plan(plan({ commands: [command] }), { usage: { input: 1500, output: 90 } }));
      const result = await runCli(['add a timestamp', '--dir', project, '--yes', '--json'], { env });
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout);
      expect(report.status).toBe('applied');
      expect(report.filesWritten).toEqual(['lib/option.js', 'lib/log.js']);
      expect(report.patches.map((p: { applied: boolean; strategy: string }) => [p.applied, p.strategy])).toEqual([
        [true, 'exact'],
        [true, 'empty_file'],
      ]);
      expect(report.usage).toEqual({ inputTokens: 1500, outputTokens: 90, totalTokens: 1590 });
      expect(report.commands).toEqual([
        {
          command,
          ran: false,
          exitCode: null,
          skipped: 'not_confirmed',
          decision: 'auto-approve',
          reason: 'npm run mark runs a project script',
        },
      ]);
      expect(report.runId).toMatch(/\S+/);
      for (const key of ['contextMs', 'modelMs', 'applyMs', 'writeMs', 'totalMs'])
        expect(typeof report.timings[key]).toBe('number');
      expect(report.context.scannedFiles).toBeGreaterThan(5);
      await expect(readFile(join(project, 'ran.txt'), 'utf8')).rejects.toThrow();

      server.reply(replies.plan(plan({ patches: [], commands: [command] })));
      const withCommands = await runCli(['run it', '--dir', project, '--yes', '--run-commands', '--json'], { env });
      expect(withCommands.code).toBe(0);
      expect(JSON.parse(withCommands.stdout).commands[0]).toMatchObject({
        command,
        ran: true,
        exitCode: 0,
        sandboxed: true,
      });
      expect(await readFile(join(project, 'ran.txt'), 'utf8')).toBe('ok');
    },
  );

  it.skipIf(!sandbox.available)('a failing command exits 4', async () => {
    await addScripts({ fail: 'node -e "process.exit(7)"' });
    server.reply(replies.plan(plan({ patches: [], commands: ['npm run fail'] })));
    const result = await runCli(['run tests', '--dir', project, '--yes', '--run-commands'], { env });
    expect(result.code).toBe(4);
    expect(result.stdout).toMatch(/exited 7/);
  });

  it('an invalid reply, also after the one repair request, exits 1 and writes nothing', async () => {
    const before = await snapshotTree(project);
    server.reply(replies.text('this is not json'), replies.text('{"analysis": 5, "patches": "nope"}'));
    const result = await runCli(['add a timestamp', '--dir', project, '--yes'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')[0]).toMatch(/^clawcode: .*(plan|JSON)/);
    expect(server.completions()).toHaveLength(2);
    const after = await snapshotTree(project);
    for (const [path, bytes] of before) expect(after.get(path)?.equals(bytes), path).toBe(true);
  });

  it('with no provider and no terminal, exits 1 with one line saying how to configure', async () => {
    const result = await runCli(['add a timestamp', '--dir', project, '--yes'], {
      env: cleanEnv({ CLAWCODE_HOME: home }),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/No provider configured: set OPENAI_API_KEY .*clawcode config/);
    expect(result.stdout).toBe('');
  });

  it('without --yes and without a terminal, refuses before the model call (exit 2) naming the flags that fit', async () => {
    const before = await snapshotTree(project);
    server.reply(replies.plan(plan()));
    const result = await runCli(['add a timestamp', '--dir', project], { env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'clawcode: No terminal to confirm in: pass --yes to write the changes, or --dry-run, --json or --print-prompt to write nothing.\n',
    );
    expect(server.completions()).toHaveLength(0);
    const after = await snapshotTree(project);
    expect(after.size).toBe(before.size);
    for (const [path, bytes] of before) expect(after.get(path)?.equals(bytes), path).toBe(true);
  });

  it('bad input is a one-line usage error with exit 2', async () => {
    const missing = await runCli(['task', '--dir', join(project, 'nope'), '--dry-run'], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/Project folder not found/);
    const badBudget = await runCli(['task', '--budget', 'lots'], { env });
    expect(badBudget.code).toBe(2);
    const badFlag = await runCli(['task', '--no-such-flag'], { env });
    expect(badFlag.code).toBe(2);
  });
});

describe('start-up cost', () => {
  it('--version and --help load no provider SDK and no Ink', async () => {
    const trace = join(await mkdtemp(join(tmpdir(), 'clawcode-trace-')), 'imports.txt');
    for (const flag of ['--version', '--help']) {
      await writeFile(trace, '');
      const result = await runCli([flag], {
        env: {
          ...env,
          CLAWCODE_TRACE_IMPORTS: trace,
          NODE_OPTIONS: `--import ${join(REPO_ROOT, 'tests/support/trace-imports.mjs')}`,
        },
      });
      expect(result.code).toBe(0);
      const loaded = await readFile(trace, 'utf8');
      expect(loaded).toContain('commander');
      for (const heavy of [
        '/openai/',
        '/groq-sdk/',
        '/@google/genai/',
        '/ink/',
        '/react/',
        '/ora/',
        '/boxen/',
        '/@inquirer/',
      ]) {
        expect(loaded.includes(heavy), `${flag} loaded ${heavy}`).toBe(false);
      }
    }
    const version = await runCli(['--version'], { env });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('interrupting', () => {
  it('Ctrl-C (SIGINT) during the model call aborts the request, exits 130 and writes nothing', async () => {
    const { spawn } = await import('node:child_process');
    const { CLI_PATH } = await import('../support/fixture.js');
    server.reply({ type: 'hang' });
    const before = await snapshotTree(project);
    const child = spawn(process.execPath, [CLI_PATH, 'add a timestamp', '--dir', project, '--yes'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // Wait until the request has reached the server, then interrupt.
    for (let i = 0; i < 200 && server.completions().length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(server.completions()).toHaveLength(1);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(130);
    expect(stderr).not.toMatch(/internal error/);
    const after = await snapshotTree(project);
    expect(after.size).toBe(before.size);
    for (const [path, bytes] of before) expect(after.get(path)?.equals(bytes), path).toBe(true);
  });
});
