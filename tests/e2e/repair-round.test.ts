import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, copyPackageFixture, runCli, snapshotTree } from '../support/fixture.js';
import { replies, startProviderServer, type ProviderServer } from '../support/provider-server.js';

// The one repair round, through the built CLI and the real openai SDK against the loopback server: a real
// fix whose plan has one made-up find is applied byte-exact after exactly two requests.

const FIND = "    this.flags = flags;\n    this.description = description || '';\n";
const REPLACE =
  "    this.flags = flags;\n    this.description = description || '';\n    this.createdAt = Date.now();\n";
// The model made up an identifier: `this.flagSpec` is nowhere in lib/option.js.
const WRONG_FIND = "    this.flagSpec = flags;\n    this.description = description || '';\n";
const NEW_FILE = "'use strict';\n\nexports.log = (...args) => console.error('[commander]', ...args);\n";

const patch = (file: string, find: string, replace: string) => ({
  file,
  operation: 'replace',
  find,
  replace,
  replace_all: null,
  occurrence: null,
});
const plan = (patches: unknown[]) => ({
  analysis: 'Record when each option is created, and add a logging helper.',
  files_to_edit: [{ path: 'lib/option.js', reason: 'timestamp' }],
  patches,
  commands: [],
  agent_notes: [],
});

let server: ProviderServer;
let project: string;
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
  const home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
  env = cleanEnv({ CLAWCODE_HOME: home, OPENAI_API_KEY: 'sk-test-e2e', OPENAI_BASE_URL: `${server.url}/v1` });
});

const TASK = 'add a createdAt timestamp in the Option constructor of lib/option.js';

describe('the repair round', () => {
  it('sends the refused patch back once and applies the repaired plan byte-exact', async () => {
    const before = await snapshotTree(project);
    server.reply(
      replies.plan(plan([patch('lib/log.js', '', NEW_FILE), patch('lib/option.js', WRONG_FIND, REPLACE)]), {
        usage: { input: 1000, output: 50 },
      }),
    );
    server.reply(replies.plan(plan([patch('lib/option.js', FIND, REPLACE)]), { usage: { input: 300, output: 20 } }));

    const result = await runCli([TASK, '--dir', project, '--yes', '--provider', 'openai', '--json'], { env });
    expect(result.code).toBe(0);
    const calls = server.completions();
    expect(calls).toHaveLength(2);
    const repairPrompt: string = calls[1]!.body.messages[1].content;
    expect(repairPrompt).toContain('## Patch 2 (lib/option.js)');
    expect(repairPrompt).toContain('Error: find text not found');
    expect(repairPrompt).toContain(WRONG_FIND);
    // The real text around the closest match, to copy from, with line numbers only in the heading.
    expect(repairPrompt).toMatch(/Lines \d+-\d+ of lib\/option\.js, exactly as in the file/);
    expect(repairPrompt).toContain(FIND);
    expect(repairPrompt).not.toContain('## Patch 1');

    const original = before.get('lib/option.js')!.toString('utf8');
    expect(await readFile(join(project, 'lib/option.js'), 'utf8')).toBe(original.replace(FIND, () => REPLACE));
    expect(await readFile(join(project, 'lib/log.js'), 'utf8')).toBe(NEW_FILE);

    const report = JSON.parse(result.stdout);
    expect(report.repair).toMatchObject({ patches: [2], applied: true });
    expect(report.repair.firstError).toContain('patch #2 (lib/option.js): find text not found');
    expect(report.usage).toMatchObject({ inputTokens: 1300, outputTokens: 70 });
    expect(report.patches.map((p: { applied: boolean }) => p.applied)).toEqual([true, true]);
  });

  it('with --no-repair exits 3 after one request and writes nothing', async () => {
    const before = await snapshotTree(project);
    server.reply(replies.plan(plan([patch('lib/log.js', '', NEW_FILE), patch('lib/option.js', WRONG_FIND, REPLACE)])));
    server.reply(replies.plan(plan([patch('lib/option.js', FIND, REPLACE)])));

    const result = await runCli([TASK, '--dir', project, '--yes', '--provider', 'openai', '--no-repair'], { env });
    expect(result.code).toBe(3);
    expect(server.completions()).toHaveLength(1);
    expect(result.stderr).toContain('patch #2 (lib/option.js): find text not found');
    const after = await snapshotTree(project);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [path, bytes] of before) expect(after.get(path)?.equals(bytes), path).toBe(true);
  });

  it('never makes a second round: a repair that still does not apply exits 3 after two requests', async () => {
    const before = await snapshotTree(project);
    server.reply(replies.plan(plan([patch('lib/option.js', WRONG_FIND, REPLACE)])));
    server.reply(replies.plan(plan([patch('lib/option.js', WRONG_FIND, REPLACE)])));
    server.reply(replies.plan(plan([patch('lib/option.js', FIND, REPLACE)])));

    const result = await runCli([TASK, '--dir', project, '--yes', '--provider', 'openai', '--events'], { env });
    expect(result.code).toBe(3);
    expect(server.completions()).toHaveLength(2);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; patches?: number[] });
    expect(events.find((e) => e.event === 'repair_request')).toMatchObject({ patches: [1] });
    const after = await snapshotTree(project);
    for (const [path, bytes] of before) expect(after.get(path)?.equals(bytes), path).toBe(true);
  });

  it('tells the model a patch names a file that does not exist', async () => {
    server.reply(replies.plan(plan([patch('lib/nope.js', 'const x = 1;\n', 'const x = 2;\n')])));
    server.reply(replies.plan(plan([patch('lib/option.js', FIND, REPLACE)])));
    const result = await runCli([TASK, '--dir', project, '--yes', '--provider', 'openai'], { env });
    expect(result.code).toBe(0);
    const repairPrompt: string = server.completions()[1]!.body.messages[1].content;
    expect(repairPrompt).toContain('Error: no such file; `find: ""` creates it');
  });
});
