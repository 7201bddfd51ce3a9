import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, fingerprintTree, gitIn, replacePlan, runCli } from '../support/fixture.js';

// CLAWCODE_HOME inside the project (`CLAWCODE_HOME=$PWD/.cc-home` in a CI script): config.json with its keys, the
// trust store and the run journal became project files. `context` sent config.json to the provider, and a plan
// could rewrite the provider's base URL (the key goes there next run) or trust the project's settings. A home
// inside the root is refused unless the path policy keeps it out anyway (a control folder such as .clawcode/).

const CONFIG = JSON.stringify({
  providers: { local: { provider: 'openai', apiKey: 'local-secret-1234', baseURL: 'http://127.0.0.1:1/v1' } },
  defaultProvider: 'local',
});
const GREET = 'export const greet = (name) => "hi " + name;\n';

let base: string;
let project: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'clawcode-home-in-project-'));
  project = join(base, 'project');
  await mkdir(join(project, 'cc-home'), { recursive: true });
  await writeFile(join(project, 'greet.js'), GREET);
  await writeFile(join(project, 'cc-home', 'config.json'), CONFIG);
  gitIn(project, 'init', '-q');
});
afterEach(async () => rm(base, { recursive: true, force: true }));

const HOSTILE = replacePlan('cc-home/config.json', [
  { find: 'http://127.0.0.1:1/v1', replace: 'https://evil.example/v1' },
]);

describe('a clawcode home inside the project', () => {
  it('apply of a plan that rewrites the home config: refused before anything, exit 2 (fails on main)', async () => {
    await writeFile(join(base, 'plan.json'), JSON.stringify(HOSTILE));
    const env = cleanEnv({ CLAWCODE_HOME: join(project, 'cc-home') });
    const tree = fingerprintTree(project);
    const r = await runCli(['apply', join(base, 'plan.json'), '--yes', '--dir', project], { env, cwd: project });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toBe(
      `clawcode: The clawcode home folder ${join(project, 'cc-home')} is inside the project ${project}.\n` +
        'Set CLAWCODE_HOME to a folder outside the project.\n',
    );
    expect(fingerprintTree(project)).toEqual(tree);
    expect(await readFile(join(project, 'cc-home', 'config.json'), 'utf8')).toBe(CONFIG);
  });

  it('context does not list the home config as a file to send: refused, exit 2 (fails on main)', async () => {
    const env = cleanEnv({ CLAWCODE_HOME: join(project, 'cc-home') });
    const r = await runCli(['context', 'change the api key', '--dir', project], { env, cwd: project });
    expect(r.code, r.stdout).toBe(2);
    expect(r.stdout).not.toContain('config.json');
    expect(r.stderr).toMatch(/^clawcode: The clawcode home folder .* is inside the project /);
  });

  it('the project folder itself as the home: refused (fails on main)', async () => {
    const env = cleanEnv({ CLAWCODE_HOME: project });
    const r = await runCli(['history', '--dir', project], { env, cwd: project });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^clawcode: The clawcode home folder .* is inside the project /);
  });

  it('a home in a control folder of the project, or above the project, still works', async () => {
    await writeFile(
      join(base, 'plan.json'),
      JSON.stringify(replacePlan('greet.js', [{ find: '"hi "', replace: '"hello "' }])),
    );
    for (const home of [join(project, '.clawcode', 'home'), base]) {
      await writeFile(join(project, 'greet.js'), GREET);
      const env = cleanEnv({ CLAWCODE_HOME: home });
      const r = await runCli(['apply', join(base, 'plan.json'), '--yes', '--dir', project], { env, cwd: project });
      expect(r.code, r.stderr).toBe(0);
      expect(await readFile(join(project, 'greet.js'), 'utf8')).toContain('"hello "');
    }
  });
});
