import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, fingerprintTree, gitIn, runCli } from '../support/fixture.js';

// A plan of a few kilobytes must not make clawcode build, diff and write hundreds of megabytes: a literal
// `replace_all` over a pathspec, a codemod rule's template or a single file's `replace_all` multiplies a
// file by the length of `replace`, and chained spreading patches multiply again (each sees the previous
// result). Such a plan is refused like any patch that cannot apply: exit 3, one short line per patch,
// nothing written, in seconds, never an internal error.

let base: string;
let project: string;
let sentinel: string;
let work: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'clawcode-growth-attack-'));
  project = join(base, 'project');
  sentinel = join(base, 'sentinel');
  work = join(base, 'work');
  for (const dir of [join(project, 'src'), join(project, 'docs'), sentinel, work])
    await mkdir(dir, { recursive: true });
  await writeFile(join(sentinel, 'keep.txt'), 'sentinel\n');
  await writeFile(join(project, 'docs/a.txt'), `${'a'.repeat(1000)}\n`);
  await writeFile(join(project, 'src/many.js'), 'x;\n'.repeat(2000));
  gitIn(project, 'init', '-q');
  gitIn(project, 'add', '.');
  gitIn(project, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-qm', 'init');
  env = cleanEnv({ CLAWCODE_HOME: join(base, 'home') });
});
afterAll(async () => rm(base, { recursive: true, force: true }));
// On main a run wrote its tens of megabytes: the next attack starts from the committed tree again.
afterEach(() => {
  gitIn(project, 'checkout', '--', '.');
});

function patch(file: string, operation: 'replace' | 'rewrite', find: string, replace: string, all: boolean | null) {
  return { file, operation, find, replace, replace_all: all, occurrence: null };
}

function plan(patches: unknown[]): unknown {
  return { analysis: 'Tidy.', files_to_edit: [], patches, commands: [], agent_notes: [] };
}

const attacks: [string, () => unknown][] = [
  [
    'chained literal replace_all over a pathspec (1,000 characters to 40 million)',
    () =>
      plan([
        patch('docs/*.txt', 'replace', 'a', 'a'.repeat(100), true),
        patch('docs/*.txt', 'replace', 'a', 'a'.repeat(101), true),
        patch('docs/*.txt', 'replace', 'a', 'a'.repeat(4), true),
      ]),
  ],
  [
    'chained literal replace_all past the longest string (an internal error on main)',
    () => plan([100, 101, 102, 103].map((n) => patch('docs/*.txt', 'replace', 'a', 'a'.repeat(n), true))),
  ],
  [
    'one codemod rule with a 20 KB template over 2,000 sites',
    () => plan([patch('src/*.js', 'rewrite', 'x', 'y'.repeat(20_000), null)]),
  ],
  [
    'one replace_all of one file with a 40 KB replacement',
    () => plan([patch('docs/a.txt', 'replace', 'a', 'b'.repeat(40_000), true)]),
  ],
];

describe('a plan that multiplies the size of the project', () => {
  it.each(attacks)(
    '%s: exit 3, short output, nothing written (fails on main)',
    { timeout: 90_000 },
    async (_label, make) => {
      const treeBefore = fingerprintTree(project);
      const sentinelBefore = fingerprintTree(sentinel);
      const planFile = join(work, 'plan.json');
      await writeFile(planFile, JSON.stringify(make()));
      const result = await runCli(['apply', planFile, '--yes', '--dir', project], { env, timeoutMs: 60_000 });
      const out = result.stdout + result.stderr;
      expect(result.code, out.slice(0, 2000)).toBe(3);
      expect(out.length).toBeLessThan(10_000);
      for (const line of out.split('\n')) expect(line.length).toBeLessThan(300);
      expect(out).not.toMatch(/internal error/);
      expect(out).toMatch(/grow/);
      expect(fingerprintTree(project)).toEqual(treeBefore);
      expect(fingerprintTree(sentinel)).toEqual(sentinelBefore);
    },
  );

  it('a plan that grows files by a normal amount still applies', async () => {
    const planFile = join(work, 'plan.json');
    await writeFile(planFile, JSON.stringify(plan([patch('docs/*.txt', 'replace', 'a', 'ab', true)])));
    const result = await runCli(['apply', planFile, '--yes', '--dir', project], { env, timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
  });
});
