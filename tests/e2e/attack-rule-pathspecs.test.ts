import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, fingerprintTree, gitIn, runCli } from '../support/fixture.js';

// A codemod rule (and a literal replace_all over a pathspec) names its files with a git pathspec from the
// plan. Both matchers behind it backtrack: git's wildmatch took 23 s for `:(glob)*a*a*a*a*b` over one
// 250-character name, and the gitignore-style regular expression used without git (or when git matched
// nothing) took minutes for twelve `**/a/` over a path 40 folders deep, synchronously, past Ctrl-C and
// SIGTERM. A plan of a few such rules held the run for hours. Matching now has one deadline per plan and
// the pathspec is refused in one line.

let base: string;
let env: NodeJS.ProcessEnv;

function rule(file: string): Record<string, unknown> {
  return {
    file,
    operation: 'rewrite',
    find: 'getUser($A)',
    replace: 'fetchUser($A)',
    replace_all: null,
    occurrence: null,
  };
}

async function project(name: string, withGit: boolean): Promise<string> {
  const root = join(base, name);
  const deep = join(root, ...Array.from({ length: 40 }, () => 'a'));
  await mkdir(deep, { recursive: true });
  await writeFile(join(deep, 'f.js'), 'getUser(1);\n');
  await writeFile(join(root, `${'a'.repeat(250)}.js`), 'getUser(2);\n');
  await writeFile(join(root, 'package.json'), '{"name":"p"}\n');
  if (withGit) {
    gitIn(root, 'init', '-q');
    gitIn(root, 'add', '.');
    gitIn(root, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-qm', 'init');
  }
  return root;
}

async function applyPlan(root: string, patches: unknown[]) {
  const file = join(base, `plan-${Math.random().toString(36).slice(2)}.json`);
  const plan = { analysis: 'Rename.', files_to_edit: [], patches, commands: [], agent_notes: [] };
  await writeFile(file, JSON.stringify(plan));
  const started = Date.now();
  const result = await runCli(['apply', file, '--yes', '--any-folder', '--dir', root], { env, timeoutMs: 90_000 });
  return { ...result, ms: Date.now() - started };
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'clawcode-rule-pathspecs-'));
  env = cleanEnv({ CLAWCODE_HOME: join(base, 'home') });
});
afterAll(async () => rm(base, { recursive: true, force: true }));

describe('a rule whose pathspec backtracks', () => {
  it(
    'in git: the first of three is refused within its 10 s and nothing is written (fails on main: 15 s each)',
    { timeout: 120_000 },
    async () => {
      const root = await project('git', true);
      const before = fingerprintTree(root);
      const slow = ':(glob)*a*a*a*a*a*a*b';
      const result = await applyPlan(root, [rule(slow), rule(`${slow}*`), rule(`${slow}?`)]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`clawcode: Pathspec "${slow}" took over 10 s to match the project's files`);
      expect(result.ms).toBeLessThan(40_000);
      expect(fingerprintTree(root)).toEqual(before);
    },
  );

  it('without git: the glob is stopped, not waited for (fails on main: minutes)', { timeout: 120_000 }, async () => {
    const root = await project('plain', false);
    const before = fingerprintTree(root);
    const slow = `${'**/a/'.repeat(12)}*.ts`;
    const result = await applyPlan(root, [rule(slow)]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`clawcode: Pathspec ":(glob)${slow}" took over 10 s`);
    expect(result.ms).toBeLessThan(40_000);
    expect(fingerprintTree(root)).toEqual(before);
  });

  it('a plain pathspec still rewrites its files', async () => {
    const root = await project('plain-ok', true);
    const result = await applyPlan(root, [rule('a/**/*.js')]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('1 match in 1 file');
  });
});
