import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, copyPackageFixture, runCli, snapshotTree } from '../support/fixture.js';
import { replies, startProviderServer, type ProviderServer } from '../support/provider-server.js';

// Saved plans and the offline route through the built CLI: --plan-out → check → apply,
// --print-prompt → a pasted model answer → apply -, and --events JSON lines.

const FIND = 'class CommanderError extends Error {\n';
const REPLACE = 'class CommanderError extends Error { // clawcode was here\n';
const PLAN = {
  analysis: 'Mark the error class.',
  files_to_edit: [{ path: 'lib/error.js', reason: 'comment' }],
  patches: [
    { file: 'lib/error.js', operation: 'replace', find: FIND, replace: REPLACE, replace_all: null, occurrence: null },
  ],
  commands: [],
  agent_notes: [],
};

let server: ProviderServer;
let project: string;
let env: NodeJS.ProcessEnv;
let work: string;

beforeAll(async () => {
  server = await startProviderServer();
});
afterAll(async () => server.close());
beforeEach(async () => {
  server.reset();
  project = await copyPackageFixture('commander');
  work = await mkdtemp(join(tmpdir(), 'clawcode-plans-'));
  env = cleanEnv({
    CLAWCODE_HOME: await mkdtemp(join(tmpdir(), 'clawcode-home-')),
    OPENAI_API_KEY: 'k',
    OPENAI_BASE_URL: `${server.url}/v1`,
  });
});

describe('saved plans', () => {
  it('--plan-out saves the plan with base hashes; check then apply it with no model call', async () => {
    const original = await readFile(join(project, 'lib/error.js'), 'utf8');
    const planFile = join(work, 'plan.json');
    server.reply(replies.plan(PLAN));
    const planned = await runCli(
      ['mark the CommanderError class', '--dir', project, '--dry-run', '--plan-out', planFile],
      { env },
    );
    expect(planned.code).toBe(0);
    const saved = JSON.parse(await readFile(planFile, 'utf8'));
    expect(saved).toMatchObject({ version: 1, task: 'mark the CommanderError class', provider: 'openai' });
    expect(saved.baseHashes['lib/error.js']).toMatch(/^[0-9a-f]{64}$/);
    expect(await readFile(join(project, 'lib/error.js'), 'utf8')).toBe(original);

    const check = await runCli(['check', planFile, '--dir', project, '--json'], { env });
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout)).toEqual({
      ok: true,
      patches: [{ index: 0, file: 'lib/error.js', status: 'applies', detail: 'exact', baseChanged: false }],
    });

    const applied = await runCli(['apply', planFile, '--dir', project, '--yes'], { env });
    expect(applied.code).toBe(0);
    expect(await readFile(join(project, 'lib/error.js'), 'utf8')).toBe(original.replace(FIND, () => REPLACE));
    expect(server.completions()).toHaveLength(1); // only the planning run called the model

    const again = await runCli(['check', planFile, '--dir', project, '--json'], { env });
    expect(again.code).toBe(3);
    expect(JSON.parse(again.stdout).patches[0]).toMatchObject({ status: 'already_applied', baseChanged: true });
  });

  it('after apply, check says "already applied" for a replacement that keeps its find (not "applies" again)', async () => {
    const planFile = join(work, 'keeps-find.json');
    const keeps = { ...PLAN.patches[0], replace: `${FIND}  // clawcode: marked\n` };
    await writeFile(planFile, JSON.stringify({ ...PLAN, patches: [keeps] }));
    const applied = await runCli(['apply', planFile, '--dir', project, '--yes'], { env });
    expect(applied.code).toBe(0);
    const check = await runCli(['check', planFile, '--dir', project], { env });
    expect(check.stdout).toBe('#1 lib/error.js: already applied\n✗ Not every patch applies.\n');
    expect(check.code).toBe(3);
  });

  it('check reports a conflict and apply refuses it, writing nothing (exit 3)', async () => {
    const planFile = join(work, 'plan.json');
    await writeFile(
      planFile,
      JSON.stringify({ ...PLAN, patches: [{ ...PLAN.patches[0], find: 'no such text in the file\n' }] }),
    );
    const before = await snapshotTree(project);
    const check = await runCli(['check', planFile, '--dir', project], { env });
    expect(check.code).toBe(3);
    expect(check.stdout).toMatch(/#1 lib\/error\.js: conflict/);
    const apply = await runCli(['apply', planFile, '--dir', project, '--yes'], { env });
    expect(apply.code).toBe(3);
    const after = await snapshotTree(project);
    for (const [path, bytes] of before) expect(after.get(path)?.equals(bytes), path).toBe(true);
  });

  it('--print-prompt needs no provider, and a pasted model answer applies from stdin', async () => {
    const noProvider = cleanEnv({ CLAWCODE_HOME: env.CLAWCODE_HOME });
    const prompt = await runCli(['mark the CommanderError class in lib/error.js', '--dir', project, '--print-prompt'], {
      env: noProvider,
    });
    expect(prompt.code).toBe(0);
    expect(prompt.stdout).toContain('JSON schema');
    expect(prompt.stdout).toContain('# Task\nmark the CommanderError class in lib/error.js');
    expect(prompt.stdout).toContain('lib/error.js');

    const answer = `Here you go:\n\`\`\`json\n${JSON.stringify(PLAN, null, 2)}\n\`\`\``;
    const applied = await runCli(['apply', '-', '--dir', project, '--yes', '--json'], {
      env: noProvider,
      input: answer,
    });
    expect(applied.code).toBe(0);
    expect(JSON.parse(applied.stdout)).toMatchObject({ status: 'applied', filesWritten: ['lib/error.js'] });
    expect(await readFile(join(project, 'lib/error.js'), 'utf8')).toContain('// clawcode was here');
  });

  it('--print-prompt writes nothing under CLAWCODE_HOME (no memory, no index, no recent projects)', async () => {
    const home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
    const prompt = await runCli(['mark the CommanderError class', '--dir', project, '--print-prompt'], {
      env: cleanEnv({ CLAWCODE_HOME: home }),
    });
    expect(prompt.code).toBe(0);
    expect(prompt.stdout).toContain('# Task\nmark the CommanderError class');
    expect(await readdir(home)).toEqual([]);
  });

  it('apply of an invalid plan file is one clear line, exit 2 like a missing file', async () => {
    const bad = join(work, 'bad.json');
    await writeFile(bad, '{"patches": [{"file": 3}]}');
    const invalid = await runCli(['apply', bad, '--dir', project, '--yes'], { env });
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/^clawcode: Plan file .*bad\.json is not a plan: at patches\.0\.file/);
    const missing = await runCli(['apply', join(work, 'none.json'), '--dir', project, '--yes'], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^clawcode: Plan file .*none\.json not found\./);
  });
});

describe('--events', () => {
  it('prints one JSON line per pipeline event, ending with the report', async () => {
    server.reply(replies.plan(PLAN));
    const result = await runCli(['mark the error class', '--dir', project, '--yes', '--events'], { env });
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const names = events.map((e) => e.event);
    expect(names[0]).toBe('planning');
    for (const name of [
      'scan',
      'context',
      'model_request',
      'model_reply',
      'read_file',
      'diffs',
      'write_file',
      'success',
    ])
      expect(names).toContain(name);
    expect(names.at(-1)).toBe('report');
    expect(events.at(-1).report.filesWritten).toEqual(['lib/error.js']);
  });
});

describe('clawcode init', () => {
  it('writes a starter AGENTS.md from what it detects, and never overwrites it', async () => {
    const first = await runCli(['init', '--dir', project], { env });
    expect(first.code).toBe(0);
    const text = await readFile(join(project, 'AGENTS.md'), 'utf8');
    expect(text).toContain('Stack: TypeScript');
    expect(text).toContain('Tests: `npm test`');
    await writeFile(join(project, 'AGENTS.md'), 'mine\n');
    const second = await runCli(['init', '--dir', project], { env });
    expect(second.code).toBe(2);
    expect(await readFile(join(project, 'AGENTS.md'), 'utf8')).toBe('mine\n');
  });
});

describe('clawcode context', () => {
  it('shows the instruction files it sends and counts them in the budget; --json keeps the DESIGN.md shape', async () => {
    await writeFile(join(project, 'AGENTS.md'), 'Always use strict mode.\n'.repeat(20));
    const table = await runCli(['context', 'CommanderError exit code', '--dir', project, '--budget', '9000'], { env });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/instructions: AGENTS\.md \(\d+ chars\)/);
    const json = await runCli(['context', 'CommanderError exit code', '--dir', project, '--budget', '9000', '--json'], {
      env,
    });
    const result = JSON.parse(json.stdout);
    expect(Object.keys(result).sort()).toEqual(['budget', 'files', 'ms', 'scannedFiles', 'totalChars']);
    expect(result.budget).toBe(9000);
    expect(result.totalChars).toBeLessThanOrEqual(9000);
    expect(result.files.reduce((n: number, f: { chars: number }) => n + f.chars, 0)).toBeLessThan(result.totalChars);
  });
});
