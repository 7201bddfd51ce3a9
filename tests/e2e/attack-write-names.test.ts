import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, fingerprintTree, gitIn, runCli } from '../support/fixture.js';

// clawcode writes through the folder it holds open (/proc/self/fd/<fd>/<name> on Linux), so a folder swapped
// for a symlink cannot redirect a write. A failure in there named that handle path: an append-only file
// (chattr +a: writable, so the checks before the write pass, but it cannot be replaced) ended the run with
// "Could not write /proc/self/fd/19/a.ts: EPERM …", a path the person cannot find. The error names the file
// where it is in the project.

let base: string;
let project: string;
let env: NodeJS.ProcessEnv;

/** chattr needs root and a file system with inode flags (ext4, xfs, btrfs; not tmpfs or overlayfs). */
function chattr(flag: string, file: string): boolean {
  return spawnSync('chattr', [flag, file]).status === 0;
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'clawcode-write-names-'));
  project = join(base, 'project');
  await mkdir(join(project, 'src'), { recursive: true });
  await writeFile(join(project, 'src/a.ts'), 'export const a = getUser(2);\n');
  await writeFile(join(project, 'src/b.ts'), 'export const b = getUser(3);\n');
  gitIn(project, 'init', '-q');
  env = cleanEnv({ CLAWCODE_HOME: join(base, 'home') });
});
afterAll(async () => {
  chattr('-a', join(project, 'src/b.ts'));
  await rm(base, { recursive: true, force: true });
});

describe('a file the system will not let clawcode replace', () => {
  it('is named by its project path, never the /proc handle; every file is restored', async (ctx) => {
    const target = join(project, 'src/b.ts');
    if (!chattr('+a', target)) ctx.skip();
    const before = fingerprintTree(project);
    const result = await runCli(['rewrite', 'getUser($A)', 'fetchUser($A)', '--yes', '--dir', project], { env });
    chattr('-a', target);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).not.toContain('/proc/self/fd');
    expect(result.stderr).toContain(`Could not write ${target}: EPERM`);
    expect(result.stderr).toContain('every file this run wrote was restored');
    expect(fingerprintTree(project)).toEqual(before);
  });
});
