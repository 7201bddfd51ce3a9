import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectSandbox } from '../../utils/shell/sandbox.js';
import { cleanEnv, fingerprintTree, gitIn, runCli } from '../support/fixture.js';

// Before a plan command runs, clawcode lists the project's control paths to bind them read-only, and a
// folder shaped as a git directory may hold a `commondir` file naming another one. That file comes with the
// project: committed as a symlink to a FIFO (or `/dev/tty`), opening it blocked the run for good, after the
// write and before the command. It is read as every untrusted file is: a regular file, never blocking.

const sandbox = await detectSandbox();
const skipReason = sandbox.available ? '' : ` (skipped: ${sandbox.reason})`;

let base: string;
let project: string;
let sentinel: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'clawcode-control-reads-'));
  project = join(base, 'project');
  sentinel = join(base, 'sentinel');
  for (const dir of [join(project, 'meta/objects'), join(project, 'meta/refs'), sentinel])
    await mkdir(dir, { recursive: true });
  await writeFile(join(project, 'meta/HEAD'), 'ref: refs/heads/main\n');
  await writeFile(join(project, 'meta/objects/.keep'), '');
  await writeFile(join(project, 'meta/refs/.keep'), '');
  await writeFile(
    join(project, 'package.json'),
    '{"name":"p","version":"1.0.0","scripts":{"test":"echo ran > out.txt"}}\n',
  );
  await writeFile(join(project, 'a.txt'), 'x\n');
  execFileSync('mkfifo', [join(sentinel, 'fifo')]);
  await symlink(join(sentinel, 'fifo'), join(project, 'meta/commondir'));
  gitIn(project, 'init', '-q');
  env = cleanEnv({ CLAWCODE_HOME: join(base, 'home') });
});
afterAll(async () => rm(base, { recursive: true, force: true }));

describe('a commondir led to a FIFO by a committed symlink', () => {
  it.skipIf(!sandbox.available)(
    `a plan command still runs, in seconds (fails on main: the run hangs)${skipReason}`,
    { timeout: 60_000 },
    async () => {
      const sentinelBefore = fingerprintTree(sentinel);
      const planFile = join(base, 'plan.json');
      const patch = {
        file: 'a.txt',
        operation: 'replace',
        find: 'x',
        replace: 'y',
        replace_all: null,
        occurrence: null,
      };
      const plan = { analysis: 'Edit.', files_to_edit: [], patches: [patch], commands: ['npm test'], agent_notes: [] };
      await writeFile(planFile, JSON.stringify(plan));
      const result = await runCli(['apply', planFile, '--yes', '--run-commands', '--dir', project], {
        env,
        timeoutMs: 30_000,
      });
      // Killed by the timeout (a hang), this is null.
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('y\n');
      expect(await readFile(join(project, 'out.txt'), 'utf8')).toBe('ran\n');
      expect(fingerprintTree(sentinel)).toEqual(sentinelBefore);
    },
  );
});
