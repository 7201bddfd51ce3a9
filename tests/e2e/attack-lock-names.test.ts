import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, fingerprintTree, gitIn, replacePlan, runCli } from '../support/fixture.js';

// Each file write takes a lock named `<file>.cclock` beside the file, in the project. A cloned repository can
// commit an entry of that name: a symlink to /dev/zero (read whole: 600 MB, then the symlink deleted), to a FIFO
// or a terminal (the run waits for good), or a file of its own (deleted as a stale lock once 30 s old). Only a
// regular file holding a lock's text is a lock; anything else stops the write with one line and is left alone.

const GREET = 'export const greet = (name) => "hi " + name;\n';
const PLAN = JSON.stringify(replacePlan('greet.js', [{ find: '"hi "', replace: '"hello "' }], 'Say hello.'));

let base: string;
let project: string;
let sentinel: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'clawcode-lock-names-'));
  project = join(base, 'project');
  sentinel = join(base, 'sentinel');
  await mkdir(project);
  await mkdir(sentinel);
  await writeFile(join(project, 'greet.js'), GREET);
  await writeFile(join(base, 'plan.json'), PLAN);
  await writeFile(join(sentinel, 'keep.txt'), 'outside the root\n');
  execFileSync('mkfifo', [join(sentinel, 'fifo')]);
  gitIn(project, 'init', '-q');
  env = cleanEnv({ CLAWCODE_HOME: join(base, 'home') });
});
afterEach(async () => {
  if (base) await rm(base, { recursive: true, force: true });
});

/** Apply the plan, expecting the refusal; the tree, its .git and the sentinel are as they were. */
async function expectRefused(): Promise<void> {
  const tree = fingerprintTree(project);
  const outside = fingerprintTree(sentinel);
  const r = await runCli(['apply', join(base, 'plan.json'), '--yes', '--dir', project], {
    env,
    cwd: project,
    timeoutMs: 15_000,
  });
  // Killed by the timeout (a hang), the code is null.
  expect(r.code, r.stdout + r.stderr).toBe(1);
  expect(r.stderr).toBe(
    'clawcode: Failed while writing greet.js: greet.js.cclock beside it is not a clawcode lock; move it away; ' +
      'every file this run wrote was restored\n',
  );
  expect(fingerprintTree(project)).toEqual(tree);
  expect(fingerprintTree(sentinel)).toEqual(outside);
  expect(await readFile(join(project, 'greet.js'), 'utf8')).toBe(GREET);
}

describe('an entry named like a write lock, committed in the project', () => {
  it('a symlink to /dev/zero: refused, never read, kept (fails on main)', async () => {
    await symlink('/dev/zero', join(project, 'greet.js.cclock'));
    await expectRefused();
  });

  it('a symlink to a FIFO outside the root: refused at once, no hang (fails on main)', async () => {
    await symlink(join(sentinel, 'fifo'), join(project, 'greet.js.cclock'));
    await expectRefused();
  }, 30_000);

  it('a file of the project, an hour old: refused and kept, not removed as a stale lock (fails on main)', async () => {
    await writeFile(join(project, 'greet.js.cclock'), 'notes of my own\n');
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(join(project, 'greet.js.cclock'), hourAgo, hourAgo);
    await expectRefused();
  });

  it("a stale lock of clawcode's own (a dead writer's) is still taken over", async () => {
    await writeFile(join(project, 'greet.js.cclock'), '999999999 - 0123456789ab');
    const r = await runCli(['apply', join(base, 'plan.json'), '--yes', '--dir', project], { env, cwd: project });
    expect(r.code, r.stderr).toBe(0);
    expect(await readFile(join(project, 'greet.js'), 'utf8')).toContain('"hello "');
  });
});
