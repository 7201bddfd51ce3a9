import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { scanProject } from '../../agent/context/scan.js';
import { preparePlan } from '../../agent/prepare.js';
import { createAgentEmitter, type AgentEventMap } from '../../agent/events.js';
import { runWriteStage } from '../../agent/write-stage.js';
import { mergeShardPlans } from '../../agent/wide/merge.js';
import { parseScopeAnswer } from '../../agent/wide/scope-request.js';
import { prepareWideChange } from '../../agent/wide/wide.js';
import type { Shard } from '../../agent/wide/shards.js';
import type { PatchOp, Plan } from '../../utils/plan.js';
import { git, removeTempDirs, tempDir } from '../support/git.js';

beforeEach(async () => {
  vi.stubEnv('CLAWCODE_HOME', await mkdtemp(join(tmpdir(), 'clawcode-home-')));
});
afterEach(removeTempDirs);

const plan = (patches: PatchOp[]): Plan => ({
  analysis: '',
  files_to_edit: [],
  patches,
  commands: [],
  agent_notes: [],
});
const rule = (file: string, find: string, replace: string): PatchOp => ({ file, operation: 'rewrite', find, replace });

/** A git project with `files` committed (and `untracked` left untracked). */
function project(files: Record<string, string>, untracked: Record<string, string> = {}): string {
  const root = tempDir('clawcode-rules-');
  const put = (all: Record<string, string>) => {
    for (const [path, text] of Object.entries(all)) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), text);
    }
  };
  put(files);
  git(root, 'init', '-q');
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', 'init');
  put(untracked);
  return root;
}

describe('rules in preparePlan', () => {
  it('rewrites every file of the pathspec the path policy allows, and nothing else', async () => {
    const root = project(
      {
        'src/a.ts': 'getUser(1);\n',
        'src/deep/b.ts': 'const u = getUser(id);\n',
        'src/c.js': 'getUser(3);\n',
        'lib/d.ts': 'getUser(4);\n',
        'src/.env.ts': 'getUser(5);\n',
        '.gitignore': 'src/gen/\n',
      },
      { 'src/gen/e.ts': 'getUser(6);\n' },
    );
    const events: AgentEventMap['rewrite_done'][] = [];
    const emitter = createAgentEmitter();
    emitter.on('rewrite_done', (e) => events.push(e));
    const p = await preparePlan(root, plan([rule('src/**/*.ts', 'getUser($ID)', 'fetchUser($ID)')]), emitter);
    expect(p.ok).toBe(true);
    // Not the .js file (another extension), lib/ (another folder), the secret or the ignored file.
    expect(p.changes.map((c) => c.path)).toEqual(['src/a.ts', 'src/deep/b.ts']);
    expect(p.changes[1]!.after).toBe('const u = fetchUser(id);\n');
    expect(p.results[0]).toMatchObject({ applied: true, matchCount: 2, searched: 2 });
    expect(events).toEqual([
      {
        index: 0,
        operation: 'rewrite',
        pathspec: 'src/**/*.ts',
        find: 'getUser($ID)',
        replace: 'fetchUser($ID)',
        matches: 2,
        files: 2,
        unparsed: [],
      },
    ]);
  });

  it('applies in order in memory: a later find/replace sees the rule; a failing patch fails the whole plan', async () => {
    const root = project({ 'a.ts': 'getUser(1);\n', 'b.ts': 'getUser(2);\n' });
    const ok = await preparePlan(
      root,
      plan([
        rule('*.ts', 'getUser($ID)', 'fetchUser($ID)'),
        { file: 'a.ts', operation: 'replace', find: 'fetchUser(1);', replace: 'await fetchUser(1);' },
      ]),
    );
    expect(ok.changes.map((c) => [c.path, c.after])).toEqual([
      ['a.ts', 'await fetchUser(1);\n'],
      ['b.ts', 'fetchUser(2);\n'],
    ]);
    const failed = await preparePlan(
      root,
      plan([
        rule('*.ts', 'getUser($ID)', 'fetchUser($ID)'),
        { file: 'a.ts', operation: 'replace', find: 'nope', replace: 'x' },
      ]),
    );
    expect(failed.ok).toBe(false);
    expect(failed.changes).toEqual([]);
  });

  it('says what was searched when a rule matches nothing, naming files that did not parse', async () => {
    const root = project({ 'a.ts': 'getUser(1);\n', 'b.ts': 'getUser(\n', 'c.tsx': 'const x = 1;\n' });
    const p = await preparePlan(root, plan([rule('.', 'getUser($A, $B)', 'f($A)')]));
    expect(p.ok).toBe(false);
    expect(p.results[0]).toMatchObject({
      applied: false,
      code: 'rewrite_no_match',
      error: 'pattern matched 0 nodes in 2 TypeScript files and 1 TSX file; 1 file did not parse',
      unparsed: ['b.ts'],
    });
    const none = await preparePlan(root, plan([rule('docs/', 'getUser($A)', 'f($A)')]));
    expect(none.results[0]).toMatchObject({ code: 'rewrite_no_files' });
  });

  it('drops a patch or rule whose find equals its replace, with a note, and applies the rest', async () => {
    const root = project({ 'a.ts': 'getUser(1);\n' });
    const p = await preparePlan(
      root,
      plan([
        { file: 'a.ts', operation: 'replace', find: 'getUser', replace: 'getUser' },
        rule('*.ts', 'getUser($A)', 'getUser($A)'),
        { file: 'a.ts', operation: 'replace', find: 'getUser(1)', replace: 'getUser(2)' },
      ]),
    );
    expect(p.ok).toBe(true);
    expect(p.results.slice(0, 2)).toMatchObject([
      { applied: true, dropped: true, note: 'find equals replace: nothing to change; dropped' },
      { applied: true, dropped: true },
    ]);
    expect(p.changes.map((c) => c.after)).toEqual(['getUser(2);\n']);
  });

  it('replaces a literal in every file of a pathspec with replace_all', async () => {
    const root = project({ 'docs/a.md': 'use getUser\n', 'docs/b.yml': 'x: getUser getUser\n', 'c.md': 'getUser\n' });
    const p = await preparePlan(
      root,
      plan([{ file: 'docs/', operation: 'replace', find: 'getUser', replace: 'fetchUser', replace_all: true }]),
    );
    expect(p.changes.map((c) => [c.path, c.after])).toEqual([
      ['docs/a.md', 'use fetchUser\n'],
      ['docs/b.yml', 'x: fetchUser fetchUser\n'],
    ]);
    expect(p.results[0]).toMatchObject({
      matchCount: 3,
      files: [
        { path: 'docs/a.md', matches: 1 },
        { path: 'docs/b.yml', matches: 2 },
      ],
    });
  });
});

describe('a rule over more than 500 files', () => {
  it('is refused without a terminal unless yes; a person is asked before the diffs', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 501; i++) files[`src/f${i}.ts`] = `getUser(${i});\n`;
    const root = project(files);
    const p = plan([rule('src/', 'getUser($A)', 'fetchUser($A)')]);
    const prepared = await preparePlan(root, p);
    expect(prepared.changes).toHaveLength(501);
    const refused = await runWriteStage({ rootDir: root, task: 't', plan: p, prepared, remember: false });
    expect(refused).toMatchObject({ status: 'failed', exitCode: 3, filesWritten: [] });
    expect(refused.error).toMatch(/change 501 files, more than 500: refused without --yes/);
    const notices: string[] = [];
    const declined = await runWriteStage({
      rootDir: root,
      task: 't',
      plan: p,
      prepared,
      remember: false,
      decisions: { approveLargeRewrite: async (n) => (notices.push(`asked ${n}`), false) },
      onNotice: (n) => notices.push(n.type),
    });
    expect(declined.status).toBe('declined');
    expect(notices).toEqual(['asked 501', 'declined']);
  });
});

describe('scan: a tracked build/ is source', () => {
  it('lists tracked files under the default ignore folders, and leaves the untracked ones out', async () => {
    const root = project(
      { 'build/build-validation.js': 'x\n', 'dist/keep.js': 'y\n', 'src/a.js': 'z\n' },
      {
        'build/out.js': 'generated\n',
        'dist/bundle.js': 'generated\n',
      },
    );
    const scan = await scanProject(root);
    expect(scan.fileList).toEqual(['build/build-validation.js', 'dist/keep.js', 'src/a.js']);
  });
});

describe('rules in wide changes', () => {
  const shard = (index: number, paths: string[]): Shard => ({
    index,
    files: paths.map((path) => ({ path, text: '', ranges: null, chars: 0 })),
    chars: 0,
  });

  it('merges identical patches from two shards into one and keeps rules from shards', () => {
    const same: PatchOp = { file: 'big.ts', operation: 'replace', find: 'a', replace: 'b' };
    const merged = mergeShardPlans([
      { shard: shard(0, ['big.ts']), status: 'planned', plan: plan([same, rule('src/**/*.ts', 'f($A)', 'g($A)')]) },
      { shard: shard(1, ['big.ts']), status: 'planned', plan: plan([same, rule('src/**/*.ts', 'f($A)', 'g($A)')]) },
    ]);
    expect(merged.plan.patches).toEqual([same, rule('src/**/*.ts', 'f($A)', 'g($A)')]);
    expect(merged.refused).toEqual([]);
  });

  it('a scope answered with rules alone needs no shard', async () => {
    const root = project({ 'src/a.ts': 'getUser(1);\n' });
    const scope = parseScopeAnswer(
      JSON.stringify({
        patterns: [],
        pathspecs: [],
        rules: [{ file: 'src/', find: 'getUser($A)', replace: 'fetchUser($A)' }],
        reason: 'a rename',
      }),
    );
    const prepared = await prepareWideChange({ rootDir: root, task: 'rename', budgetChars: 18_000, scope });
    expect(prepared.requests).toEqual([]);
    expect(prepared.rules).toEqual([rule('src/', 'getUser($A)', 'fetchUser($A)')]);
    expect(() =>
      parseScopeAnswer(
        JSON.stringify({
          patterns: [],
          pathspecs: [],
          rules: [{ file: 'a', find: 'f($A)', replace: 'g($B)' }],
          reason: '',
        }),
      ),
    ).toThrow(/scope schema/);
    // An answer from before rules existed still parses.
    expect(parseScopeAnswer(JSON.stringify({ patterns: ['x'], pathspecs: [], reason: '' })).rules).toEqual([]);
  });
});
