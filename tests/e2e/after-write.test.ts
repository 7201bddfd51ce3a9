import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, copyPackageFixture, GIT_TEST_ENV, gitIn, runCli, snapshotTree } from '../support/fixture.js';
import { replies, startProviderServer, type ProviderServer } from '../support/provider-server.js';

// After the write: --verify / --verify-cmd, --rollback-on-fail, --commit, and the checks
// that run before the model call so that no paid plan is lost.

const FIND = 'exports.CommanderError = CommanderError;';
const REPLACE = 'exports.CommanderError = CommanderError;\nexports.VERIFIED = true;';
const PLAN = {
  analysis: 'Export a flag.',
  files_to_edit: [{ path: 'lib/error.js', reason: 'flag' }],
  patches: [
    { file: 'lib/error.js', operation: 'replace', find: FIND, replace: REPLACE, replace_all: null, occurrence: null },
  ],
  commands: ["node -e \"require('fs').writeFileSync('cmd-ran.txt', '1')\""],
  agent_notes: [],
};

let server: ProviderServer;
let project: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  server = await startProviderServer();
});
afterAll(async () => server.close());
beforeEach(async () => {
  server.reset();
  project = await copyPackageFixture('commander');
  env = cleanEnv({
    CLAWCODE_HOME: await mkdtemp(join(tmpdir(), 'clawcode-home-')),
    OPENAI_API_KEY: 'k',
    OPENAI_BASE_URL: `${server.url}/v1`,
  });
});

describe('verify after writing', () => {
  it('--verify-cmd passing keeps the change and reports it', async () => {
    server.reply(replies.plan(PLAN));
    const result = await runCli(
      ['export a flag', '--dir', project, '--yes', '--json', '--verify-cmd', 'node -e "process.exit(0)"'],
      { env },
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.verify).toMatchObject({ exitCode: 0, rolledBack: false });
    expect(await readFile(join(project, 'lib/error.js'), 'utf8')).toContain('exports.VERIFIED = true;');
  });

  it('a failing verify with --rollback-on-fail restores the exact bytes, skips the commands and exits 4', async () => {
    const before = await snapshotTree(project);
    server.reply(replies.plan(PLAN));
    const result = await runCli(
      [
        'export a flag',
        '--dir',
        project,
        '--yes',
        '--run-commands',
        '--json',
        '--verify-cmd',
        'node -e "process.exit(3)"',
        '--rollback-on-fail',
      ],
      { env },
    );
    expect(result.code).toBe(4);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      status: 'rolled_back',
      filesWritten: [],
      verify: { exitCode: 3, rolledBack: true },
    });
    expect(report.commands[0]).toMatchObject({ ran: false, skipped: 'verify_failed' });
    const after = await snapshotTree(project);
    expect(after.size).toBe(before.size);
    for (const [path, bytes] of before) expect(after.get(path)?.equals(bytes), path).toBe(true);
  });

  it('a rollback the verify command made impossible says the files stay written, and keeps the report', async () => {
    server.reply(replies.plan(PLAN), replies.plan(PLAN));
    // The verify command edits the file it checks, then fails: the run's bytes are gone, so undo refuses.
    const verify = 'echo "// touched by the test script" >> lib/error.js; exit 3';
    const args = ['export a flag', '--dir', project, '--yes', '--verify-cmd', verify, '--rollback-on-fail'];
    const json = await runCli([...args, '--json'], { env });
    expect(json.code, json.stderr).toBe(4);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ status: 'applied', filesWritten: ['lib/error.js'], verify: { rolledBack: false } });
    expect(report.verify.rollbackError).toMatch(/files changed since it ran: lib\/error\.js \(modified\)/);
    expect(report.error).toMatch(
      /not rolled back .*: the file written stays written \(undo with: clawcode undo \S+ --force\)$/,
    );
    const text = await readFile(join(project, 'lib/error.js'), 'utf8');
    expect(text).toContain('exports.VERIFIED = true;');
    expect(text).toContain('// touched by the test script');

    const console = await runCli(args, { env });
    expect(console.code).toBe(4);
    expect(`${console.stdout}${console.stderr}`).not.toMatch(/nothing was (written|changed)/);
    expect(console.stdout).toContain('Not rolled back: Cannot undo run');
  });

  it('a failing verify without rollback keeps the files, exits 4, and can be undone', async () => {
    server.reply(replies.plan(PLAN));
    const result = await runCli(
      ['export a flag', '--dir', project, '--yes', '--verify-cmd', 'node -e "process.exit(5)"'],
      { env },
    );
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/verify failed/);
    expect(await readFile(join(project, 'lib/error.js'), 'utf8')).toContain('exports.VERIFIED = true;');
    expect((await runCli(['undo', '--dir', project, '--yes'], { env })).code).toBe(0);
    expect(await readFile(join(project, 'lib/error.js'), 'utf8')).not.toContain('VERIFIED');
  });

  it('bare --verify uses the test command detected from package.json on a first run', async () => {
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'x', scripts: { test: 'node -e "process.exit(0)"' } }),
    );
    server.reply(replies.plan(PLAN));
    const result = await runCli(['export a flag', '--dir', project, '--yes', '--json', '--verify'], { env });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).verify).toMatchObject({ command: 'npm test', exitCode: 0 });
  });

  it('--rollback-on-fail without a verify command is a usage error before any model call', async () => {
    const result = await runCli(['export a flag', '--dir', project, '--yes', '--rollback-on-fail'], { env });
    expect(result.code).toBe(2);
    expect(server.completions()).toHaveLength(0);
  });
});

describe('checks before the model call', () => {
  it('--plan-out into a missing folder and --commit outside git fail with exit 2 and no model call', async () => {
    const planOut = await runCli(
      ['export a flag', '--dir', project, '--dry-run', '--plan-out', join(project, 'no/such/dir/plan.json')],
      { env },
    );
    expect(planOut.code).toBe(2);
    expect(planOut.stderr).toMatch(/--plan-out: folder not found/);
    const commit = await runCli(['export a flag', '--dir', project, '--yes', '--commit'], { env });
    expect(commit.code).toBe(2);
    expect(commit.stderr).toMatch(/not a git repository/);
    expect(server.completions()).toHaveLength(0);
  });

  it('--commit commits exactly the written files, leaving other changes alone', async () => {
    const git = (...args: string[]) => gitIn(project, ...args);
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'base');
    await writeFile(join(project, 'Readme.md'), 'local edit, not part of the task\n');
    server.reply(replies.plan(PLAN));
    const result = await runCli(['export a verified flag', '--dir', project, '--yes', '--commit'], {
      env: { ...env, ...GIT_TEST_ENV },
    });
    expect(result.code).toBe(0);
    expect(git('log', '-1', '--format=%s').trim()).toBe('export a verified flag');
    expect(git('show', '--name-only', '--format=', 'HEAD').trim()).toBe('lib/error.js');
    expect(git('status', '--porcelain')).toContain(' M Readme.md');
    // The commit id is printed, in the line after the write and in the summary.
    const head = git('rev-parse', 'HEAD').trim();
    expect(result.stdout).toContain(`Committed 1 file as ${head.slice(0, 10)}`);
    expect(result.stdout).toContain(`Commit: ${head}`);
  });

  it('undo of a committed run restores the files and records a revert commit', async () => {
    const git = (...args: string[]) => gitIn(project, ...args);
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'base');
    const original = await readFile(join(project, 'lib/error.js'), 'utf8');
    server.reply(replies.plan(PLAN));
    const gitEnv = { ...env, ...GIT_TEST_ENV };
    const result = await runCli(['export a verified flag', '--dir', project, '--yes', '--commit'], { env: gitEnv });
    expect(result.code).toBe(0);
    const committed = git('rev-parse', 'HEAD').trim();
    const undo = await runCli(['undo', '--dir', project, '--yes'], { env: gitEnv });
    expect(undo.code).toBe(0);
    const revert = git('rev-parse', 'HEAD').trim();
    expect(undo.stdout).toContain(
      `The run was committed as ${committed.slice(0, 10)}; recorded the undo as revert commit ${revert.slice(0, 10)}`,
    );
    expect(await readFile(join(project, 'lib/error.js'), 'utf8')).toBe(original);
    expect(git('log', '-1', '--format=%B').trim()).toBe(
      `Revert "export a verified flag"\n\nThis reverts commit ${committed}.`,
    );
    expect(git('show', '--name-only', '--format=', 'HEAD').trim()).toBe('lib/error.js');
    expect(git('status', '--porcelain')).toBe('');
  });

  it('after --rollback-on-fail the summary does not offer an undo', async () => {
    server.reply(replies.plan(PLAN));
    const result = await runCli(
      ['export a flag', '--dir', project, '--yes', '--verify-cmd', 'node -e "process.exit(3)"', '--rollback-on-fail'],
      { env },
    );
    expect(result.code).toBe(4);
    expect(result.stdout).toContain('Rolled back: the files are as they were before this run.');
    expect(result.stdout).toContain('Result: rolled back');
    expect(result.stdout).not.toContain('Undo with');
  });
});

describe('flag combinations', () => {
  it('--shell or --ui with --json is a usage error', async () => {
    const result = await runCli(['--shell', '--json', '--dir', project], { env });
    expect(result.code).toBe(2);
  });

  it('check refuses a plan path outside the project without reading it', async () => {
    const planFile = join(project, 'escape.json');
    await writeFile(planFile, JSON.stringify({ ...PLAN, patches: [{ ...PLAN.patches[0], file: '/etc/hostname' }] }));
    const result = await runCli(['check', planFile, '--dir', project, '--json'], { env });
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, refused: [{ code: 'path_absolute' }] });
  });
});
