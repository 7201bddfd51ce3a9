import { mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, gitIn, runCli, snapshotTree } from '../support/fixture.js';
import { SAMPLE_RULE } from '../support/provider-env.js';
import { replies, startProviderServer, type ProviderServer } from '../support/provider-server.js';

// Codemod rules through the built CLI and the real openai SDK against the loopback server: one plan
// request whose plan holds a rule and a find/replace, reviewed, journaled, undone byte for byte; and
// `clawcode rewrite`, the same without a model.

let server: ProviderServer;
let project: string;
let home: string;
let env: NodeJS.ProcessEnv;

const USERS = 6;
const userFile = (i: number): string =>
  `import { getUser } from '../api';\n\nexport async function load${i}(id) {\n  const user = getUser(id);\n  return getUser(user.parentId) ?? user;\n}\n`;

beforeAll(async () => {
  server = await startProviderServer({ apiKey: 'sk-test-codemod' });
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  server.reset();
  project = await mkdtemp(join(tmpdir(), 'clawcode-codemod-e2e-'));
  await mkdir(join(project, 'src/views'), { recursive: true });
  await mkdir(join(project, 'build'), { recursive: true });
  for (let i = 0; i < USERS; i++) await writeFile(join(project, 'src/views', `v${i}.ts`), userFile(i));
  await writeFile(join(project, 'src/api.ts'), 'export function getUser(id) {\n  return db.find(id);\n}\n');
  await writeFile(join(project, 'src/legacy.js'), 'getUser(1);\n');
  await writeFile(join(project, '.env'), 'getUser(secret)\n');
  await writeFile(join(project, 'build/build-validation.js'), "'use strict';\nmodule.exports = 1;\n");
  await writeFile(join(project, 'README.md'), '# fixture\n\nCall getUser(id).\n');
  gitIn(project, 'init', '-q');
  gitIn(project, 'add', '-A');
  gitIn(project, 'commit', '-qm', 'init');
  home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
  env = cleanEnv({
    CLAWCODE_HOME: home,
    OPENAI_API_KEY: 'sk-test-codemod',
    OPENAI_BASE_URL: `${server.url}/v1`,
  });
});

const RULE_PLAN = {
  analysis: 'getUser becomes fetchUser with the cache on; the API keeps its old name as an alias.',
  files_to_edit: [{ path: 'src/api.ts', reason: 'the alias' }],
  patches: [
    SAMPLE_RULE,
    {
      file: 'src/api.ts',
      operation: 'replace',
      find: '  return db.find(id);\n}\n',
      replace: '  return db.find(id);\n}\n\nexport const fetchUser = (id, _options) => getUser(id);\n',
      replace_all: null,
      occurrence: null,
    },
  ],
  commands: [],
  agent_notes: [],
};

const rewritten = (i: number): string =>
  userFile(i)
    .replace('getUser(id)', 'fetchUser(id, { cache: true })')
    .replace('getUser(user.parentId)', 'fetchUser(user.parentId, { cache: true })');

describe('a task whose plan holds a rule and a find/replace', () => {
  it('applies both from one request, reports the rule, journals the run and undo restores every byte', async () => {
    const before = await snapshotTree(project);
    server.reply(replies.plan(RULE_PLAN));
    const result = await runCli(['rename getUser to fetchUser', '--dir', project, '--yes'], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(server.completions()).toHaveLength(1);
    // The prompt teaches both operations.
    const system = String(server.completions()[0]!.body.messages[0].content);
    expect(system).toContain('"operation": "rewrite"');
    expect(result.stdout).toContain(
      '✓ #1 rewrite `getUser($ID)` → `fetchUser($ID, { cache: true })`: 12 matches in 6 files',
    );
    expect(result.stdout).toMatch(
      /Changes by folder:\n {2}src\/\s+1 file\s+\+2 −0\n {2}src\/views\/\s+6 files\s+\+12 −12/,
    );
    for (let i = 0; i < USERS; i++) {
      expect(await readFile(join(project, 'src/views', `v${i}.ts`), 'utf8')).toBe(rewritten(i));
    }
    expect(await readFile(join(project, 'src/api.ts'), 'utf8')).toBe(
      'export function getUser(id) {\n  return db.find(id);\n}\n\nexport const fetchUser = (id, _options) => getUser(id);\n',
    );
    // Not a .js file, not the secret file, not the README: the pathspec and the path policy decide.
    const after = await snapshotTree(project);
    for (const p of ['src/legacy.js', '.env', 'README.md']) expect(after.get(p)?.equals(before.get(p)!), p).toBe(true);

    // One journal run holding all seven files; undo restores every byte.
    const runs = await readdir(join(home, 'runs'));
    expect(runs).toHaveLength(1);
    const undo = await runCli(['undo', '--dir', project, '--yes'], { env });
    expect(undo.code).toBe(0);
    expect(undo.stdout).toContain('7 files restored');
    const restored = await snapshotTree(project);
    expect([...restored.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [p, bytes] of before) expect(restored.get(p)?.equals(bytes), p).toBe(true);
  });

  it('--json carries each rule’s counts, --events a rewrite_done line, --plan-out a plan apply can replay', async () => {
    server.reply(replies.plan(RULE_PLAN));
    const planOut = join(home, 'plan.json');
    const json = await runCli(['rename getUser', '--dir', project, '--dry-run', '--json', '--plan-out', planOut], {
      env,
    });
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.patches[0]).toMatchObject({ index: 0, applied: true, matches: 12, files: 6, unparsed: [] });
    expect(report.changes).toHaveLength(7);

    server.reply(replies.plan(RULE_PLAN));
    const events = await runCli(['rename getUser', '--dir', project, '--dry-run', '--events'], { env });
    const lines = events.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.find((l) => l.event === 'rewrite_done')).toEqual({
      event: 'rewrite_done',
      index: 0,
      operation: 'rewrite',
      pathspec: 'src/**/*.ts',
      find: 'getUser($ID)',
      replace: 'fetchUser($ID, { cache: true })',
      matches: 12,
      files: 6,
      unparsed: [],
    });

    const check = await runCli(['check', planOut, '--dir', project], { env });
    expect(check.stdout).toContain('#1 src/**/*.ts: applies (12 matches in 6 files)');
    expect(check.code).toBe(0);
    const apply = await runCli(['apply', planOut, '--dir', project, '--yes'], { env });
    expect(apply.code).toBe(0);
    for (let i = 0; i < USERS; i++) {
      expect(await readFile(join(project, 'src/views', `v${i}.ts`), 'utf8')).toBe(rewritten(i));
    }
  });

  it('a rule that matches nothing goes to the one repair round with what was searched', async () => {
    const wrong = { ...RULE_PLAN, patches: [{ ...RULE_PLAN.patches[0], find: 'getUsers($ID)' }] };
    server.reply(replies.plan(wrong), replies.plan({ ...RULE_PLAN, patches: [RULE_PLAN.patches[0]] }));
    const result = await runCli(['rename getUser', '--dir', project, '--yes', '--json'], { env });
    expect(result.code).toBe(0);
    const repair = String(server.completions()[1]!.body.messages[1].content);
    expect(repair).toContain('## Patch 1 (rewrite rule over src/**/*.ts)');
    expect(repair).toContain('Error: pattern matched 0 nodes in 7 TypeScript files');
    expect(JSON.parse(result.stdout).repair).toMatchObject({ patches: [1], applied: true });
  });

  it('--wide: a scope answered with a rule sends no shard request; the rule is reviewed and written', async () => {
    server.reply(
      replies.plan({
        patterns: [],
        pathspecs: [],
        rules: [{ file: 'src/views/', find: 'getUser($ID)', replace: 'fetchUser($ID, { cache: true })' }],
        reason: 'a call-shape change, all mechanical',
      }),
    );
    const result = await runCli(['getUser takes options now', '--dir', project, '--wide', '--yes', '--json'], { env });
    expect(result.code).toBe(0);
    expect(server.completions()).toHaveLength(1);
    const report = JSON.parse(result.stdout);
    expect(report.shards).toEqual([]);
    expect(report.patches[0]).toMatchObject({ applied: true, matches: 12, files: 6 });
    for (let i = 0; i < USERS; i++) {
      expect(await readFile(join(project, 'src/views', `v${i}.ts`), 'utf8')).toBe(rewritten(i));
    }
  });

  it('pins a tracked build/ file: it is source', async () => {
    server.reply(replies.plan({ ...RULE_PLAN, patches: [] }));
    const result = await runCli(
      ['look at the build script', '--dir', project, '--files', 'build/build-validation.js', '--dry-run', '--json'],
      { env },
    );
    expect(result.code).toBe(0);
    expect(String(server.completions()[0]!.body.messages[1].content)).toContain('## build/build-validation.js');
  });
});

describe('clawcode rewrite', () => {
  it('runs one rule without a model: review output, journal, undo', async () => {
    const before = await snapshotTree(project);
    const result = await runCli(
      ['rewrite', 'getUser($ID)', 'fetchUser($ID)', '--dir', project, '--files', 'src/views/', '--yes'],
      { env },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('✓ #1 rewrite `getUser($ID)` → `fetchUser($ID)`: 12 matches in 6 files');
    expect(result.stdout).toContain('Model: none (one rule)');
    expect(await readFile(join(project, 'src/views/v0.ts'), 'utf8')).toBe(
      userFile(0).replace('getUser(id)', 'fetchUser(id)').replace('getUser(user.parentId)', 'fetchUser(user.parentId)'),
    );
    expect(server.requests).toHaveLength(0);
    const undo = await runCli(['undo', '--dir', project, '--yes'], { env });
    expect(undo.code).toBe(0);
    const restored = await snapshotTree(project);
    for (const [p, bytes] of before) expect(restored.get(p)?.equals(bytes), p).toBe(true);
  });

  it('--lang limits the files; bad arguments exit 2 in one line; no match exits 3 and writes nothing', async () => {
    const js = await runCli(['rewrite', 'getUser($A)', 'f($A)', '--dir', project, '--lang', 'js', '--json'], { env });
    const report = JSON.parse(js.stdout);
    expect(report.changes.map((c: { path: string }) => c.path)).toEqual(['src/legacy.js']);
    const lang = await runCli(['rewrite', 'a', 'b', '--dir', project, '--lang', 'cobol', '--yes'], { env });
    expect(lang.code).toBe(2);
    expect(lang.stderr).toContain('Unknown language "cobol"');
    const vars = await runCli(['rewrite', 'getUser($A)', 'f($B)', '--dir', project, '--yes'], { env });
    expect(vars.code).toBe(2);
    expect(vars.stderr).toContain('replace uses $B, which find does not capture');
    const before = await snapshotTree(project);
    const none = await runCli(['rewrite', 'noSuchCall($A)', 'f($A)', '--dir', project, '--yes'], { env });
    expect(none.code).toBe(3);
    expect(none.stderr).toContain('pattern matched 0 nodes in');
    const after = await snapshotTree(project);
    for (const [p, bytes] of before) expect(after.get(p)?.equals(bytes), p).toBe(true);
  });
});
