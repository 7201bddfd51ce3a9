import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, fingerprintTree, gitIn, replacePlan, runCli } from '../support/fixture.js';

// The run journal under CLAWCODE_HOME, tampered with: a manifest whose pre-image names a FIFO in the run folder
// or a path out of it (`../../dev/zero`), or a FIFO where the manifest should be. `undo` read them with
// readFile: it waited for good on the FIFO, and read /dev/zero until memory ran out. Journal files are read as
// regular files only, never through a symlink or a path out of the run folder: one line, exit 1, nothing changed.

const GREET = 'export const greet = (name) => "hi " + name;\n';
const HELLO = 'export const greet = (name) => "hello " + name;\n';
const PLAN = JSON.stringify(replacePlan('greet.js', [{ find: '"hi "', replace: '"hello "' }], 'Say hello.'));

let base: string;
let project: string;
let env: NodeJS.ProcessEnv;
let runDir: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'clawcode-journal-attack-'));
  project = join(base, 'project');
  await mkdir(project);
  await writeFile(join(project, 'greet.js'), GREET);
  await writeFile(join(base, 'plan.json'), PLAN);
  gitIn(project, 'init', '-q');
  env = cleanEnv({ CLAWCODE_HOME: join(base, 'home') });
  const r = await runCli(['apply', join(base, 'plan.json'), '--yes', '--dir', project], { env, cwd: project });
  expect(r.code, r.stderr).toBe(0);
  const runs = join(base, 'home', 'runs');
  const [projectRuns] = await readdir(runs);
  const [run] = await readdir(join(runs, projectRuns!));
  runDir = join(runs, projectRuns!, run!);
});
afterEach(async () => rm(base, { recursive: true, force: true }));

/** Point the manifest's one pre-image somewhere else. */
async function setPreImage(name: string): Promise<void> {
  const path = join(runDir, 'manifest.json');
  const manifest = JSON.parse(await readFile(path, 'utf8')) as { files: { preImage: string }[] };
  manifest.files[0]!.preImage = name;
  await writeFile(path, JSON.stringify(manifest));
}

async function undo(): Promise<{ code: number | null; stderr: string }> {
  return runCli(['undo', '--yes', '--dir', project], { env, cwd: project, timeoutMs: 15_000 });
}

describe('a tampered run journal', () => {
  it('a pre-image that is a FIFO in the run folder: one line, exit 1, nothing changed (fails on main)', async () => {
    execFileSync('mkfifo', [join(runDir, 'pre-fifo')]);
    await setPreImage('pre-fifo');
    const tree = fingerprintTree(project);
    const r = await undo();
    // Killed by the timeout (the old hang), the code is null.
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toBe(`clawcode: The journaled pre-image of greet.js in ${runDir} is corrupt\n`);
    expect(fingerprintTree(project)).toEqual(tree);
    expect(await readFile(join(project, 'greet.js'), 'utf8')).toBe(HELLO);
  }, 30_000);

  it('a pre-image named by a path out of the run folder: the manifest is corrupt, never followed (fails on main)', async () => {
    await setPreImage('../../../../../../../../../../dev/zero');
    const tree = fingerprintTree(project);
    const r = await undo();
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toBe('clawcode: Nothing to undo: no applied run in this project\n');
    expect(fingerprintTree(project)).toEqual(tree);
  }, 30_000);

  it('a FIFO in place of the manifest: history and undo answer at once (fails on main)', async () => {
    await rm(join(runDir, 'manifest.json'));
    execFileSync('mkfifo', [join(runDir, 'manifest.json')]);
    const history = await runCli(['history', '--dir', project], { env, cwd: project, timeoutMs: 15_000 });
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toBe('No runs yet in this project.\n');
    const r = await undo();
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toBe('clawcode: Nothing to undo: no applied run in this project\n');
  }, 40_000);

  it('an untouched journal still undoes', async () => {
    const r = await undo();
    expect(r.code, r.stderr).toBe(0);
    expect(await readFile(join(project, 'greet.js'), 'utf8')).toBe(GREET);
  });
});
