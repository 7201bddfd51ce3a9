import { spawn, spawnSync } from 'node:child_process';
import { chmod, chown, readdir, readFile, stat } from 'node:fs/promises';

import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { CLI_PATH, type CliResult, replacePlan, runCli } from '../support/fixture.js';
import { replies, type ProviderServer } from '../support/provider-server.js';
import { useLoopbackProject } from '../support/loopback-project.js';

// A target the user cannot write is refused as a permission error before anything is written: no journal,
// no bytes changed, exit 1. Root can write a 0444 file, and is refused all the same (the owner marked it).

const GREET = 'function greet(name) {\n  return "Hello " + name;\n}\n';
const PLAN = replacePlan(
  'greet.js',
  [{ find: 'return "Hello " + name;', replace: 'return "Hello " + name + "!";' }],
  'Add an exclamation mark.',
);
// A second file the run would create: all or nothing.
PLAN.patches.push({
  file: 'other.js',
  operation: 'replace',
  find: '',
  replace: 'export {};\n',
  replace_all: null,
  occurrence: null,
});
const NOBODY = 65534;

const lp = useLoopbackProject({ prefix: 'clawcode-read-only-', files: { 'greet.js': GREET } });
let server: ProviderServer;
let project: string;
let home: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  ({ server, project, home, env } = lp);
});

async function journals(): Promise<string[]> {
  return readdir(join(home, 'runs')).catch(() => []);
}

describe('a file the user cannot write', () => {
  it('a read-only file (0444) is refused before anything is written, exit 1', async () => {
    await chmod(join(project, 'greet.js'), 0o444);
    server.reply(replies.plan(PLAN));
    const r = await runCli(['add an exclamation mark', '--dir', project, '--yes'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain('Wrote');
    expect(r.stderr).toBe(
      'clawcode: Cannot write greet.js: it is read-only (mode 0444); nothing was written.\n' +
        'Make it writable (chmod u+w greet.js) and run again, or leave it out of the task.\n',
    );
    expect(await readFile(join(project, 'greet.js'), 'utf8')).toBe(GREET);
    expect((await stat(join(project, 'greet.js'))).mode & 0o777).toBe(0o444);
    // The other file of the run was not created either: all or nothing.
    await expect(stat(join(project, 'other.js'))).rejects.toThrow();
    expect(await journals()).toEqual([]);
  });

  it('under --json the refusal is the report error, with its code', async () => {
    await chmod(join(project, 'greet.js'), 0o444);
    server.reply(replies.plan(PLAN));
    const r = await runCli(['add an exclamation mark', '--dir', project, '--yes', '--json'], { env });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'permission_denied', exitCode: 1 });
  });

  // Switching to another user needs root, and a CLI that user can read (a checkout under /root is not).
  const asNobody =
    process.getuid?.() === 0 &&
    spawnSync(process.execPath, ['-e', `require('fs').readFileSync(${JSON.stringify(CLI_PATH)})`], {
      uid: NOBODY,
      gid: NOBODY,
    }).status === 0;

  it.runIf(asNobody)('a file another user owns (0644), run as a user who may not write it, is refused', async () => {
    for (const dir of [project, home]) await chown(dir, NOBODY, NOBODY);
    server.reply(replies.plan(PLAN));
    const r = await new Promise<CliResult>((resolve) => {
      const child = spawn(process.execPath, [CLI_PATH, 'add an exclamation mark', '--dir', project, '--yes'], {
        env: { ...env, HOME: home },
        uid: NOBODY,
        gid: NOBODY,
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end();
    });
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toBe(
      'clawcode: Cannot write greet.js: this user may not write it (mode 0644); nothing was written.',
    );
    expect(await readFile(join(project, 'greet.js'), 'utf8')).toBe(GREET);
    expect((await stat(join(project, 'greet.js'))).uid).toBe(0);
  });
});
