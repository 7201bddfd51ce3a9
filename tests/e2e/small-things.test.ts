import { readFile, writeFile } from 'node:fs/promises';

import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { replacePlan, REPO_ROOT, runCli } from '../support/fixture.js';
import { replies, type ProviderServer } from '../support/provider-server.js';
import { useLoopbackProject } from '../support/loopback-project.js';
import { useCliInPty } from '../support/pty.js';

// The smaller first-contact defects, each through the built CLI: --files taking the task, -V, --quiet, one error
// style, config list --json, config add with flags, the timeout after streaming started, plurals, model and wall
// time apart, and the project map's wording.

const GREET = 'export const greet = (name) => "hi " + name;\n';
const PLAN = replacePlan('greet.js', [{ find: '"hi "', replace: '"hello "' }], 'Say hello.');

const lp = useLoopbackProject({ prefix: 'clawcode-small-', files: { 'greet.js': GREET } });
let server: ProviderServer;
let project: string;
let home: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  ({ server, project, home, env } = lp);
});

const run = (args: string[], input?: string) => runCli(args, { env, cwd: project, input });

describe('the command line', () => {
  it('--files that took the task says so, with the command that works (exit 2)', async () => {
    const r = await run(['--files', 'greet.js', 'say hello', '--dry-run']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'clawcode: No task given: --files took "say hello" as a file too (every word after it is one).\n' +
        'Put the task first: clawcode "say hello" --files greet.js\n',
    );
  });

  it('-V prints the version, as -v does', async () => {
    const { version } = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await run(['-V'])).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('commander errors read like every other error', async () => {
    const r = await run(['--bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe("clawcode: unknown option '--bogus'");
  });

  it('--quiet --yes prints the outcome line only', async () => {
    server.reply(replies.plan(PLAN));
    const r = await run(['say hello', '--yes', '--quiet']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^✓ Wrote 1 file \(undo: clawcode undo \S+\)\n$/);
  });

  it('the summary: "1 file written", model and wall time apart', async () => {
    server.reply(replies.plan(PLAN));
    const r = await run(['say hello', '--yes']);
    expect(r.stdout).toContain('Result: applied, 1 file written');
    expect(r.stdout).toMatch(/Time: model \d+ ms · wall [\d.]+ m?s/);
  });

  it('check of a one-patch plan: "The patch applies cleanly."', async () => {
    await writeFile(join(project, 'plan.json'), JSON.stringify(PLAN));
    const r = await run(['check', 'plan.json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('✓ The patch applies cleanly.');
  });

  it("the prompt's project map says the marked files' text comes below it, as it does", async () => {
    server.reply(replies.plan(PLAN));
    await run(['say hello', '--dry-run']);
    const prompt = server.completions()[0]!.body.messages[1].content as string;
    expect(prompt).toContain('* = shown below;');
    expect(prompt.indexOf('# Project files')).toBeLessThan(prompt.indexOf('# File contents'));
  });

  it('a timeout after the reply started streaming says the reply did not finish, and how much came', async () => {
    // Frames 1.5 s apart: the role frame at 1.5 s, the first 13 characters at 3 s, the next due at 4.5 s.
    server.reply({ type: 'text', text: JSON.stringify(PLAN), chunkChars: 13, intervalMs: 1500 });
    const r = await run(['say hello', '--dry-run', '--timeout', '4000']);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toMatch(
      /^clawcode: \S+ did not finish its reply within 4 s \(model gpt-4o-mini\): 13 characters had arrived$/,
    );
  }, 30_000);
});

describe('config without prompts', () => {
  it('config add <kind> with flags saves an entry after the check; config list --json lists it', async () => {
    const add = await run(['config', 'add', 'openai', '--name', 'work', '--model', 'test-model', '--default']);
    expect(add.stderr).toBe('');
    expect(add.code).toBe(0);
    expect(JSON.parse(await readFile(join(home, 'config.json'), 'utf8'))).toEqual({
      providers: { work: { provider: 'openai', model: 'test-model' } },
      defaultProvider: 'work',
    });
    const list = await run(['config', 'list', '--json']);
    expect(list.code).toBe(0);
    const listed = JSON.parse(list.stdout) as { providers: { name: string; default: boolean; model: string }[] };
    expect(listed.providers.find((p) => p.name === 'work')).toMatchObject({ default: true, model: 'test-model' });
  });

  it('a failed check saves nothing (exit 1); a missing required field is a usage error', async () => {
    const bad = await run(['config', 'add', 'openai', '--name', 'work', '--model', 'no-such-model']);
    expect(bad.code).toBe(1);
    expect(bad.stderr.split('\n')[0]).toMatch(/^clawcode: Not saved: work did not pass the check: /);
    const missing = await runCli(['config', 'add', 'groq', '--no-check'], { env: { ...env, GROQ_API_KEY: '' } });
    expect(missing.code).toBe(2);
    expect(missing.stderr.split('\n')[0]).toBe('clawcode: config add groq: --api-key is needed (or GROQ_API_KEY).');
  });
});

const pty = useCliInPty({ prefix: 'clawcode-small-pty-', files: { 'greet.js': GREET }, rows: 30 });

describe('in the What-next loop', () => {
  it('an error reads as one clawcode: line and its hint, not a box', { timeout: 30_000 }, async () => {
    pty.server.reply(replies.unauthorized());
    const s = pty.start(['say hello']);
    await s.waitFor('What next?');
    expect(s.output()).toMatch(/clawcode: .*401/);
    expect(s.output()).not.toContain('╭');
    s.write('\r');
    await s.exitCode();
  });
});
