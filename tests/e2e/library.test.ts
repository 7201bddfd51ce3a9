import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Imported by package name, as a user of the library would (resolved through package.json "exports").
import { applyPlan, planTask, selectContext, PatchApplyError, type AgentEventName } from 'clawcode';
import { cleanEnv, copyPackageFixture, runCli, snapshotTree } from '../support/fixture.js';
import { replies, startProviderServer, type ProviderServer } from '../support/provider-server.js';

const PLAN = {
  analysis: 'Export a version constant.',
  files_to_edit: [{ path: 'lib/error.js', reason: 'constant' }],
  patches: [
    {
      file: 'lib/error.js',
      operation: 'replace',
      find: 'exports.CommanderError = CommanderError;',
      replace: 'exports.CommanderError = CommanderError;\nexports.ERROR_API = 1;',
      replace_all: null,
      occurrence: null,
    },
  ],
  commands: [],
  agent_notes: [],
};

let server: ProviderServer;
beforeAll(async () => {
  server = await startProviderServer();
});
afterAll(async () => server.close());

describe('clawcode as a library', () => {
  it('planTask + applyPlan produce the same bytes as the CLI on the same plan, with events and no printing', async () => {
    const home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
    const viaLibrary = await copyPackageFixture('commander');
    const viaCli = await copyPackageFixture('commander');

    server.reply(replies.plan(PLAN));
    const events: AgentEventName[] = [];
    const run = await planTask({
      rootDir: viaLibrary,
      task: 'export an error API version from lib/error.js',
      provider: { provider: 'openai', name: 'openai', model: 'gpt-4o-mini', apiKey: 'k', baseURL: `${server.url}/v1` },
      homeDir: home,
      onEvent: (name) => events.push(name),
    });
    expect(run.prepared.ok).toBe(true);
    expect(run.prepared.changes.map((c) => c.path)).toEqual(['lib/error.js']);
    expect(events).toEqual(expect.arrayContaining(['planning', 'context', 'model_request', 'model_reply', 'diffs']));

    const applied = await applyPlan({ rootDir: viaLibrary, plan: run.plan, task: run.task, homeDir: home });
    expect(applied.filesWritten).toEqual(['lib/error.js']);
    expect(applied.run?.status).toBe('applied');

    const planFile = join(home, 'plan.json');
    await writeFile(planFile, JSON.stringify(PLAN));
    const cli = await runCli(['apply', planFile, '--dir', viaCli, '--yes'], { env: cleanEnv({ CLAWCODE_HOME: home }) });
    expect(cli.code).toBe(0);
    const [a, b] = [await snapshotTree(viaLibrary), await snapshotTree(viaCli)];
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    for (const [path, bytes] of a) expect(b.get(path)?.equals(bytes), path).toBe(true);
  });

  it('applyPlan refuses a plan that does not apply with a PatchApplyError (exit code 3) and writes nothing', async () => {
    const root = await copyPackageFixture('commander');
    const before = await snapshotTree(root);
    const bad = { ...PLAN, patches: [{ ...PLAN.patches[0]!, find: 'not there' }] };
    const error = await applyPlan({
      rootDir: root,
      plan: JSON.stringify(bad),
      homeDir: await mkdtemp(join(tmpdir(), 'h-')),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PatchApplyError);
    expect((error as PatchApplyError).exitCode).toBe(3);
    const after = await snapshotTree(root);
    for (const [path, bytes] of before) expect(after.get(path)?.equals(bytes)).toBe(true);
  });

  it('selectContext returns the budgeted context', async () => {
    const root = await copyPackageFixture('commander');
    const context = await selectContext({
      rootDir: root,
      task: 'CommanderError exit code',
      budgetChars: 6000,
      homeDir: await mkdtemp(join(tmpdir(), 'h-')),
    });
    expect(context.totalChars).toBeLessThanOrEqual(6000);
    expect(context.files.length).toBeGreaterThan(0);
    expect(context.scannedFiles).toBeGreaterThan(5);
  });
});
