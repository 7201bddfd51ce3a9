import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, fingerprintTree, gitIn, runCli } from '../support/fixture.js';
import { git } from '../support/git.js';

// Hostile plan shapes that the path policy and plan validation used to let through to a confusing end: one
// file under two spellings (or through a symlink inside the root) patched twice, a file created "under" a
// file, symlink loops and chains longer than the kernel follows, lone UTF-16 surrogates that would be
// written as U+FFFD, and JSON nested past the stack. Each ends in one clear line and a non-zero exit with
// nothing written, or — for two spellings of one file — the patches chain on that one file as the plan
// format promises (a later patch sees the earlier result).

let base: string;
let project: string;
let sentinel: string;
let work: string;
let env: NodeJS.ProcessEnv;

const LINES = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n';

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'clawcode-spellings-attack-'));
  project = join(base, 'project');
  sentinel = join(base, 'sentinel');
  work = join(base, 'work');
  for (const dir of [join(project, 'src'), sentinel, work]) await mkdir(dir, { recursive: true });
  await writeFile(join(sentinel, 'keep.txt'), 'sentinel\n');
  await writeFile(join(project, 'src/a.ts'), LINES);
  await writeFile(join(project, 'README.md'), '# app\n');
  await symlink('src/a.ts', join(project, 'link.ts'));
  await symlink('src', join(project, 'lib'));
  // Symlinks that lead nowhere knowable: a loop, a folder loop, and 45 hops (more than the kernel follows)
  // ending at a file that does not exist yet outside the root.
  await symlink('loop.ts', join(project, 'loop.ts'));
  await symlink('d', join(project, 'd'));
  let previous = join(sentinel, 'new.txt');
  for (let i = 0; i < 45; i++) {
    await symlink(previous, join(project, `hop${i}`));
    previous = `hop${i}`;
  }
  for (const args of [
    ['init', '-q'],
    ['add', '.'],
    ['commit', '-qm', 'init'],
  ])
    git(project, ...args);
  env = cleanEnv({ CLAWCODE_HOME: join(base, 'home') });
});
afterAll(async () => rm(base, { recursive: true, force: true }));
afterEach(() => {
  gitIn(project, 'checkout', '--', '.');
  gitIn(project, 'clean', '-fdq');
});

function patch(file: string, find: string, replace: string): unknown {
  return { file, operation: 'replace', find, replace, replace_all: null, occurrence: null };
}

function plan(patches: unknown[]): string {
  return JSON.stringify({ analysis: 'Tidy.', files_to_edit: [], patches, commands: [], agent_notes: [] });
}

async function apply(planText: string): Promise<{ code: number | null; out: string }> {
  const file = join(work, 'plan.json');
  await writeFile(file, planText);
  const result = await runCli(['apply', file, '--yes', '--dir', project], { env, timeoutMs: 30_000 });
  return { code: result.code, out: result.stdout + result.stderr };
}

describe('one file under two names in one plan', () => {
  it.each([
    ['./src//a.ts', 'a second spelling'],
    ['link.ts', 'a symlink to it inside the root'],
    ['lib/a.ts', 'a path through a symlinked folder inside the root'],
  ])('%s (%s) and src/a.ts: both patches land in the one file, written once', async (alias) => {
    const r = await apply(plan([patch(alias, 'one\n', 'ONE\n'), patch('src/a.ts', 'seven\n', 'SEVEN\n')]));
    expect(r.code, r.out).toBe(0);
    expect(await readFile(join(project, 'src/a.ts'), 'utf8')).toBe(
      LINES.replace('one', 'ONE').replace('seven', 'SEVEN'),
    );
    expect(r.out).toMatch(/Wrote 1 file/);
    const undo = await runCli(['undo', '--yes', '--dir', project], { env, timeoutMs: 30_000 });
    expect(undo.code, undo.stdout + undo.stderr).toBe(0);
    expect(await readFile(join(project, 'src/a.ts'), 'utf8')).toBe(LINES);
  });

  it('the same find under two spellings is not applied twice from the old text (exit 3, nothing written)', async () => {
    const before = fingerprintTree(project);
    const r = await apply(plan([patch('src/a.ts', 'one\n', 'ONE\n'), patch('./src/a.ts', 'one\n', 'uno\n')]));
    expect(r.code, r.out).toBe(3);
    expect(r.out).not.toMatch(/twice|internal error/);
    expect(fingerprintTree(project)).toEqual(before);
  });
});

describe('check keys files as apply does', () => {
  it('the same find under two spellings: the second is a conflict, not a second "applies"', async () => {
    const file = join(work, 'check.json');
    await writeFile(file, plan([patch('src/a.ts', 'one\n', 'ONE\n'), patch('./src/a.ts', 'one\n', 'uno\n')]));
    const r = await runCli(['check', file, '--dir', project], { env, timeoutMs: 30_000 });
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.stdout).toContain('#1 src/a.ts: applies');
    expect(r.stdout).toContain('#2 src/a.ts: conflict');
  });
});

describe('refused with one clear line, nothing written', () => {
  const cases: [string, () => string, number, RegExp][] = [
    [
      'a file created under a file',
      () => plan([patch('README.md/x.ts', '', 'x\n')]),
      3,
      /README\.md\/x\.ts runs through a file/,
    ],
    ['a deeper path under a file', () => plan([patch('src/a.ts/b/c.ts', '', 'x\n')]), 3, /runs through a file/],
    [
      'a lone surrogate in replace',
      () => '{"patches":[{"file":"src/a.ts","find":"one","replace":"\\ud800"}]}',
      2,
      /patches\.0\.replace: replace holds a lone UTF-16 surrogate/,
    ],
    [
      'a lone surrogate in a path',
      () => '{"patches":[{"file":"src/\\udc00.ts","find":"","replace":"x"}]}',
      2,
      /patches\.0\.file: file holds a lone UTF-16 surrogate/,
    ],
    [
      'JSON nested 100,000 deep',
      () => `{"analysis":${'['.repeat(100_000)}${']'.repeat(100_000)},"patches":[]}`,
      2,
      /nests too deeply/,
    ],
  ];
  cases.push(
    ['a symlink loop', () => plan([patch('loop.ts', '', 'x\n')]), 3, /loop\.ts leads through a symlink loop/],
    [
      'a path through a folder loop',
      () => plan([patch('d/x.ts', '', 'x\n')]),
      3,
      /d\/x\.ts leads through a symlink loop/,
    ],
    [
      '45 symlinks ending outside at a file not made yet',
      () => plan([patch('hop44', '', 'x\n')]),
      3,
      /hop44 leads through a symlink loop or too many symlinks/,
    ],
    [
      'a plan that creates gen/a.ts as a file and gen/a.ts/b.ts under it',
      () => plan([patch('gen/a.ts', '', 'x\n'), patch('gen/a.ts/b.ts', '', 'y\n')]),
      3,
      /gen\/a\.ts\/b\.ts needs gen\/a\.ts to be a folder, but the plan also writes it as a file/,
    ],
    [
      'the same two creates in the other order',
      () => plan([patch('gen/a.ts/b.ts', '', 'y\n'), patch('gen/a.ts', '', 'x\n')]),
      3,
      /needs gen\/a\.ts to be a folder/,
    ],
  );
  it.each(cases)('%s', async (_label, make, code, message) => {
    const before = fingerprintTree(project);
    const sentinelBefore = fingerprintTree(sentinel);
    const r = await apply(make());
    expect(r.code, r.out).toBe(code);
    expect(r.out).toMatch(message);
    expect(r.out).not.toMatch(/internal error|ENOTDIR/);
    for (const line of r.out.split('\n')) expect(line.length).toBeLessThan(300);
    expect(fingerprintTree(project)).toEqual(before);
    expect(fingerprintTree(sentinel)).toEqual(sentinelBefore);
  });
});

describe('a path the file system finds too long once joined to the project folder', () => {
  it('is refused before anything is written (exit 3), not a read error after a good patch', async () => {
    // A project under a 500-byte folder: 19 names of 200 bytes are under the policy's 4,000-byte limit,
    // but with the root they pass Linux's PATH_MAX of 4,096.
    const deepRoot = join(base, 'L'.repeat(250), 'M'.repeat(250), 'project');
    await mkdir(join(deepRoot, 'src'), { recursive: true });
    await writeFile(join(deepRoot, 'src/a.ts'), LINES);
    gitIn(deepRoot, 'init', '-q');
    const before = fingerprintTree(deepRoot);
    const deep = Array.from({ length: 19 }, (_, i) => String.fromCharCode(97 + i).repeat(200)).join('/');
    const file = join(work, 'deep.json');
    await writeFile(file, plan([patch('src/a.ts', 'one\n', 'ONE\n'), patch(`${deep}/x.ts`, '', 'x\n')]));
    const r = await runCli(['apply', file, '--yes', '--dir', deepRoot], { env, timeoutMs: 30_000 });
    const out = r.stdout + r.stderr;
    expect(r.code, out).toBe(3);
    expect(out).toMatch(/is too long for the file system here/);
    for (const line of out.split('\n')) expect(line.length).toBeLessThan(400);
    expect(fingerprintTree(deepRoot)).toEqual(before);
  });
});

describe('a plan file saved as UTF-16 (what Windows PowerShell `>` writes)', () => {
  it.each([
    ['utf-16le', [0xff, 0xfe]],
    ['utf-16be', [0xfe, 0xff]],
  ] as const)('%s with its byte-order mark applies like the same plan in UTF-8', async (encoding, bom) => {
    const text = plan([patch('src/a.ts', 'two\n', 'TWO\n')]);
    const le = Buffer.from(text, 'utf16le');
    const body = encoding === 'utf-16le' ? le : Buffer.from(le).swap16();
    const file = join(work, `${encoding}.json`);
    await writeFile(file, Buffer.concat([Buffer.from(bom), body]));
    const r = await runCli(['apply', file, '--yes', '--dir', project], { env, timeoutMs: 30_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await readFile(join(project, 'src/a.ts'), 'utf8')).toBe(LINES.replace('two', 'TWO'));
  });
});
