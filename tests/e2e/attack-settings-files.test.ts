import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, fingerprintTree, gitIn, runCli } from '../support/fixture.js';

// Project settings come with the project: `.clawcode/settings.json` and `.clawcode/settings.local.json` are
// untrusted files, read on every run. A committed symlink can lead them anywhere: to a FIFO (a read that
// never returns, and which SIGTERM cannot interrupt), to a device that never ends, or to a JSON file outside
// the root. They are read through the one path policy, like instruction files: one line, exit 1, nothing
// read outside the root and nothing written.

let base: string;
let project: string;
let sentinel: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'clawcode-settings-attack-'));
  project = join(base, 'project');
  sentinel = join(base, 'sentinel');
  await mkdir(join(project, 'src'), { recursive: true });
  await mkdir(join(project, '.clawcode'), { recursive: true });
  await mkdir(sentinel, { recursive: true });
  await writeFile(join(project, 'src/app.js'), "exports.run = () => 'run';\n");
  gitIn(project, 'init', '-q');
  execFileSync('mkfifo', [join(sentinel, 'fifo')]);
  // Outside the root, JSON that would grant something if it were taken for the project's settings.
  await writeFile(join(sentinel, 'settings.json'), '{"budgetChars": 1234}\n');
  env = cleanEnv({ CLAWCODE_HOME: join(base, 'home') });
});
afterAll(async () => rm(base, { recursive: true, force: true }));

const cases: [string, string, () => string][] = [
  ['settings.json', 'a FIFO outside the root', () => join(sentinel, 'fifo')],
  ['settings.local.json', 'a FIFO outside the root', () => join(sentinel, 'fifo')],
  ['settings.json', 'a device that never ends (/dev/zero)', () => '/dev/zero'],
  ['settings.json', 'a JSON file outside the root', () => join(sentinel, 'settings.json')],
];

describe('project settings files led elsewhere by a committed symlink', () => {
  it.each(cases)('.clawcode/%s -> %s: one line, exit 1, in seconds (fails on main)', async (name, _label, target) => {
    const link = join(project, '.clawcode', name);
    await symlink(target(), link);
    try {
      const treeBefore = fingerprintTree(project);
      const sentinelBefore = fingerprintTree(sentinel);
      const result = await runCli(['context', 'rename run', '--json', '--dir', project], { env, timeoutMs: 15_000 });
      // Killed by the timeout (a hang), this is null.
      expect(result.code, result.stdout + result.stderr).toBe(1);
      const out = (result.stdout + result.stderr).trim();
      expect(out.split('\n')).toHaveLength(1);
      expect(out).toContain(`.clawcode/${name}`);
      expect(out).not.toContain('1234');
      expect(fingerprintTree(project)).toEqual(treeBefore);
      expect(fingerprintTree(sentinel)).toEqual(sentinelBefore);
    } finally {
      await rm(link);
    }
  });

  it('a settings file inside the root, reached through a symlink, still applies', async () => {
    await writeFile(join(project, 'shared-settings.json'), '{"budgetChars": 4321}\n');
    const link = join(project, '.clawcode', 'settings.json');
    await symlink('../shared-settings.json', link);
    try {
      const result = await runCli(['context', 'rename run', '--json', '--dir', project], { env, timeoutMs: 15_000 });
      expect(result.code, result.stderr).toBe(0);
      expect((JSON.parse(result.stdout) as { budget: number }).budget).toBe(4321);
    } finally {
      await rm(link);
      await rm(join(project, 'shared-settings.json'));
    }
  });
});
