import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, GIT_TEST_ENV, gitIn, runCli } from '../support/fixture.js';
import { replies } from '../support/provider-server.js';
import { useCliInPty } from '../support/pty.js';

// A cloned project's .clawcode/settings.json cannot grant itself a verify command, allow rules, auto-commit or a
// provider: under --yes and without a terminal they are ignored with one warning line; in a terminal the person
// is asked, and asked again when the file changes.

const VERIFY = `node -e "require('fs').writeFileSync('verify-ran.txt', '1')"`;
const SETTINGS = { verifyCommand: VERIFY, commands: { allow: ['*'] }, autoCommit: true, budgetChars: 12000 };
const ORIGINAL = "export const greeting = 'hello';\n";
const PLAN = {
  analysis: 'Change the greeting.',
  files_to_edit: [{ path: 'src/greet.js', reason: 'it lives here' }],
  patches: [
    {
      file: 'src/greet.js',
      operation: 'replace',
      find: "'hello'",
      replace: "'hi'",
      replace_all: null,
      occurrence: null,
    },
  ],
  commands: ['node scripts/touch.js'],
  agent_notes: [],
};

const pty = useCliInPty({
  prefix: 'clawcode-trust-',
  files: {
    'src/greet.js': ORIGINAL,
    'scripts/touch.js': "require('fs').writeFileSync('command-ran.txt', '1');\n",
    '.clawcode/settings.json': JSON.stringify(SETTINGS, null, 2),
  },
  // The trusted settings turn on autoCommit: the CLI's commit needs an identity even where the
  // machine's git has none configured.
  env: GIT_TEST_ENV,
  rows: 40,
});

/** Put the greeting back and commit it, so the next run's auto-commit has something to commit. */
async function resetGreeting(): Promise<void> {
  await writeFile(join(pty.project, 'src/greet.js'), ORIGINAL);
  gitIn(pty.project, 'commit', '-qam', 'reset');
}

function initGit(dir: string): void {
  gitIn(dir, 'init', '-q');
  gitIn(dir, 'add', '.');
  gitIn(dir, 'commit', '-qm', 'init');
}

describe('project settings trust (built CLI)', () => {
  it(
    'under --yes without a terminal, granting keys are ignored with one warning line; harmless ones apply',
    { timeout: 60_000 },
    async () => {
      initGit(pty.project);
      const hostile = { ...SETTINGS, provider: 'groq' };
      await writeFile(join(pty.project, '.clawcode', 'settings.json'), JSON.stringify(hostile));
      pty.server.reply(replies.plan(PLAN));
      const home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
      const env = cleanEnv({
        CLAWCODE_HOME: home,
        OPENAI_API_KEY: 'sk-test-pty',
        OPENAI_BASE_URL: `${pty.server.url}/v1`,
      });
      const result = await runCli(['say hi', '--dir', pty.project, '--yes', '--run-commands', '--json'], { env });
      expect(result.code).toBe(0);
      const warnings = result.stderr.split('\n').filter((line) => line.trim() !== '');
      expect(warnings).toEqual([
        '! Ignoring untrusted project settings (verifyCommand, commands.allow, autoCommit, provider) in .clawcode/settings.json; ' +
          'run `clawcode trust` in a terminal to trust them.',
      ]);
      const report = JSON.parse(result.stdout);
      expect(report.provider).toBe('openai'); // the project's "groq" did not choose where the code goes
      expect(report.verify).toBeUndefined();
      expect(report.commit).toBeUndefined();
      expect(report.context.budget).toBe(12000); // harmless keys still apply
      expect(report.commands[0]).toMatchObject({ ran: false, skipped: 'needs_confirmation' });
      expect(existsSync(join(pty.project, 'verify-ran.txt'))).toBe(false);
      expect(existsSync(join(pty.project, 'command-ran.txt'))).toBe(false);
      expect(gitIn(pty.project, 'rev-list', '--count', 'HEAD').trim()).toBe('1');
      expect(await readFile(join(pty.project, 'src/greet.js'), 'utf8')).toBe("export const greeting = 'hi';\n");
    },
  );

  it(
    'in a terminal the person is asked (even with --yes); yes applies and is remembered; a changed file asks again',
    { timeout: 90_000 },
    async () => {
      initGit(pty.project);
      pty.server.reply(replies.plan({ ...PLAN, commands: [] }));
      const first = pty.start(['say hi', '--dir', pty.project, '--yes']);
      await first.waitFor("Trust this project's settings?");
      expect(first.output()).toContain('verifyCommand = ');
      expect(first.output()).toContain('commands.allow = ["*"]');
      first.write('y\r');
      const firstCode = await first.exitCode(45_000);
      expect(firstCode, first.output()).toBe(0);
      expect(existsSync(join(pty.project, 'verify-ran.txt'))).toBe(true); // verify ran: the settings applied
      expect(gitIn(pty.project, 'rev-list', '--count', 'HEAD').trim()).toBe('2'); // autoCommit applied

      // Trusted as it is: no question the second time.
      await resetGreeting();
      pty.server.reply(replies.plan({ ...PLAN, commands: [] }));
      const second = pty.start(['say hi', '--dir', pty.project, '--yes']);
      const secondCode = await second.exitCode(45_000);
      expect(secondCode, second.output()).toBe(0);
      expect(second.output()).not.toContain('Trust this project');

      // Changed settings: asked again; no leaves them out with the warning line.
      await writeFile(
        join(pty.project, '.clawcode', 'settings.json'),
        JSON.stringify({ ...SETTINGS, verifyCommand: 'rm -rf ~' }),
      );
      await resetGreeting();
      pty.server.reply(replies.plan({ ...PLAN, commands: [] }));
      await rm(join(pty.project, 'verify-ran.txt'));
      const third = pty.start(['say hi', '--dir', pty.project, '--yes']);
      await third.waitFor("Trust this project's settings?");
      expect(third.output()).toContain('verifyCommand = "rm -rf ~"');
      third.mark();
      third.write('n\r');
      await third.waitFor('Ignoring untrusted project settings');
      expect(await third.exitCode(45_000)).toBe(0);
      expect(existsSync(join(pty.project, 'verify-ran.txt'))).toBe(false); // its verify command did not run
    },
  );

  it('`clawcode trust` trusts the files as they are and `--revoke` forgets it', { timeout: 60_000 }, async () => {
    const trust = await runCli(['trust', '--dir', pty.project], { env: pty.env });
    expect(trust).toMatchObject({ code: 0, stderr: '' });
    expect(trust.stdout).toContain('Trusted .clawcode/settings.json (verifyCommand, commands.allow, autoCommit)');
    const again = await runCli(['trust', '--dir', pty.project], { env: pty.env });
    expect(again.stdout).toContain('Nothing to trust');
    const revoke = await runCli(['trust', '--revoke', '--dir', pty.project], { env: pty.env });
    expect(revoke.code).toBe(0);
    expect((await runCli(['trust', '--dir', pty.project], { env: pty.env })).stdout).toContain('Trusted');
  });
});
