import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, gitIn, runCli } from '../support/fixture.js';

// Text printed in `colored` mode keeps SGR sequences (clawcode's own colours). Untrusted parts put into such a
// block must be escaped on their own first: a committed settings value or a folder name holding `ESC[8m`
// (conceal) hid the rest of the line in `config show` and in the instructions line of `context`.

const CONCEAL = '\u001b[8m';

let base: string;
let project: string;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'clawcode-colored-fields-'));
  project = join(base, 'project');
  await mkdir(join(project, '.clawcode'), { recursive: true });
  await writeFile(join(project, 'a.js'), 'export const a = 1;\n');
  gitIn(project, 'init', '-q');
  env = cleanEnv({ CLAWCODE_HOME: join(base, 'home') });
});
afterEach(async () => rm(base, { recursive: true, force: true }));

describe('untrusted fields in colored output', () => {
  it('config show: a committed deny rule holding ESC[8m is shown escaped (fails on main)', async () => {
    await writeFile(
      join(project, '.clawcode', 'settings.json'),
      JSON.stringify({ commands: { deny: [`rm ${CONCEAL}everything after is hidden`] } }),
    );
    const r = await runCli(['config', 'show', '--dir', project], { env, cwd: project });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout).toContain('deny: rm \\x1b[8meverything after is hidden');
  });

  it('context: an instruction file in a folder named with ESC[8m is listed escaped (fails on main)', async () => {
    const folder = `sub${CONCEAL}hid`;
    await mkdir(join(project, folder));
    await writeFile(join(project, folder, 'b.js'), 'export const b = 2;\n');
    await writeFile(join(project, folder, 'AGENTS.md'), 'Keep it short.\n');
    const r = await runCli(['context', 'change b', '--files', `${folder}/b.js`, '--dir', project], {
      env,
      cwd: project,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout).toContain('sub\\x1b[8mhid/AGENTS.md (');
  });
});
