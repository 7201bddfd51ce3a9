import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { CLI_PATH, replacePlan, runCli } from '../support/fixture.js';
import { replies } from '../support/provider-server.js';
import { useCliProvider } from '../support/loopback-project.js';

// The undo command printed after a write is run exactly as printed, from where the person typed the task.

const GREET = 'export const greet = (name) => "hi " + name;\n';
const PLAN = replacePlan('greet.js', [{ find: '"hi "', replace: '"hello "' }], 'Say hello.');

const cli = useCliProvider();
let parent: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  cli.server.reset();
  parent = await mkdtemp(join(tmpdir(), 'clawcode-undo-hint-'));
  env = await cli.freshEnv();
});

/** Run a printed `clawcode …` command line in a POSIX shell from `cwd`, with the built CLI as clawcode. */
function runPrinted(command: string, cwd: string): { status: number | null; stderr: string } {
  expect(command.startsWith('clawcode ')).toBe(true);
  const line = `"$NODE_BIN" "$CLI" ${command.slice('clawcode '.length)}`;
  const r = spawnSync('sh', ['-c', line], {
    cwd,
    env: { ...env, NODE_BIN: process.execPath, CLI: CLI_PATH },
    encoding: 'utf8',
    input: '',
  });
  return { status: r.status, stderr: r.stderr };
}

async function project(name: string): Promise<string> {
  const dir = join(parent, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'greet.js'), GREET);
  return dir;
}

describe('the undo hint', () => {
  it('run with --dir from another folder, names that folder, and works as printed from there', async () => {
    const dir = await project("it's mine");
    cli.server.reply(replies.plan(PLAN));
    const r = await runCli(['say hello', '--dir', "it's mine", '--yes'], { env, cwd: parent });
    expect(r.code).toBe(0);
    const printed = /\(undo: (clawcode undo [^)]+)\)/.exec(r.stdout)?.[1];
    expect(printed).toMatch(/^clawcode undo \S+ --dir 'it'\\''s mine'$/);
    expect(r.stdout).toContain(`Undo with: ${printed}`);
    expect(await readFile(join(dir, 'greet.js'), 'utf8')).toContain('"hello "');

    const undo = runPrinted(`${printed} --yes`, parent);
    expect(undo.stderr).toBe('');
    expect(undo.status).toBe(0);
    expect(await readFile(join(dir, 'greet.js'), 'utf8')).toBe(GREET);
  });

  it('run from inside the project, has no --dir', async () => {
    const dir = await project('app');
    cli.server.reply(replies.plan(PLAN));
    const r = await runCli(['say hello', '--yes'], { env, cwd: dir });
    expect(r.code).toBe(0);
    const printed = /\(undo: (clawcode undo [^)]+)\)/.exec(r.stdout)?.[1];
    expect(printed).toMatch(/^clawcode undo \S+$/);
    expect(runPrinted(`${printed} --yes`, dir).status).toBe(0);
    expect(await readFile(join(dir, 'greet.js'), 'utf8')).toBe(GREET);
  });
});
