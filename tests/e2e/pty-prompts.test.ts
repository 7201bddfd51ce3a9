import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replies } from '../support/provider-server.js';
import { useCliInPty } from '../support/pty.js';
import { REPO_ROOT, replacePlan } from '../support/fixture.js';

// The console prompts of the built CLI in a pseudo-terminal: only y/yes/n/no/Enter answer a yes/no
// question; any other text asks again.

const ORIGINAL = "export const greeting = 'hello';\n";
const RUN = `node -e "require('fs').writeFileSync('ran.txt','ran')"`;

/** The greeting made shorter, and a command that needs a person's yes (inline code). */
const GREETING_PLAN = {
  ...replacePlan('src/greet.js', [{ find: "'hello'", replace: "'hi'" }], 'Change the greeting.'),
  commands: [RUN],
};

const pty = useCliInPty({ prefix: 'clawcode-pty-prompts-', files: { 'src/greet.js': ORIGINAL }, rows: 40 });

const exists = (path: string) =>
  access(join(pty.project, path)).then(
    () => true,
    () => false,
  );

describe('yes/no prompts', () => {
  it(
    '":undo" at a command question is not a yes: the question is asked again and "n" leaves the command unrun',
    { timeout: 60_000 },
    async () => {
      pty.server.reply(replies.plan(GREETING_PLAN));
      const s = pty.start(['shorter greeting', '--dir', pty.project, '--provider', 'openai']);
      await s.waitFor('Apply these changes to 1 file?');
      s.mark();
      s.write('y\r');
      // Inline code needs a person's yes for that command, and Enter alone means no.
      await s.waitFor('Run it? (y/N)');
      s.mark();
      s.write(':undo\r');
      await s.waitFor('Answer y (yes) or n (no); Enter means no.');
      expect(await exists('ran.txt')).toBe(false);
      s.mark();
      s.write('\u0015sure\r'); // Ctrl-U clears the line first
      await s.waitFor('Answer y (yes) or n (no)');
      expect(await exists('ran.txt')).toBe(false);
      s.write('\u0015n\r');
      await s.waitFor('What next?');
      expect(await exists('ran.txt')).toBe(false);
      expect(await readFile(join(pty.project, 'src/greet.js'), 'utf8')).toBe(ORIGINAL.replace("'hello'", "'hi'"));
      s.write('\r');
      expect(await s.exitCode()).toBe(0);
    },
  );
});

describe('the spinner', () => {
  it('counts the seconds while the provider has not answered', { timeout: 60_000 }, async () => {
    pty.server.reply(replies.hang());
    const s = pty.start(['shorter greeting', '--dir', pty.project, '--provider', 'openai']);
    // Under load a tick can be late and skip a second: any count from 2 up shows the clock runs.
    await s.waitFor(/Planning with gpt-4o-mini… [2-9] s/, 30_000);
    s.mark();
    s.write('\u0003');
    await s.waitFor('What next?');
    s.write('\r');
    expect(await s.exitCode()).toBe(130);
  });
});

describe("the README's yes/no defaults", () => {
  it('names the prompts as they appear, with the default each shows', { timeout: 60_000 }, async () => {
    const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
    // The README said every question took Enter as yes, while "Run it?" takes it as no.
    expect(readme).not.toMatch(/Enter \(yes\)/);
    const named = [...readme.matchAll(/`([^`]+\? \((?:Yrnh|Y\/n|y\/N)\))`/g)].map((m) => m[1]!);
    expect(named).toEqual(
      expect.arrayContaining(['Apply these changes to 1 file? (Yrnh)', 'Run it? (y/N)', 'Scan it anyway? (y/N)']),
    );
    pty.server.reply(replies.plan(GREETING_PLAN));
    const s = pty.start(['shorter greeting']);
    await s.waitFor('Apply these changes to 1 file? (Yrnh)');
    s.write('\r');
    await s.waitFor('Run it? (y/N)');
    s.write('\r');
    await s.waitFor('What next?');
    s.write('\r');
    expect(await s.exitCode()).toBe(0);
    // Enter wrote the change (yes) and left the command unrun (no), as the README says.
    expect(await readFile(join(pty.project, 'src/greet.js'), 'utf8')).toBe("export const greeting = 'hi';\n");
    expect(await exists('ran.txt')).toBe(false);
  });
});
