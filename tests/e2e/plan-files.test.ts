import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';

import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { replacePlan, runCli } from '../support/fixture.js';
import { replies, type ProviderServer } from '../support/provider-server.js';
import { useLoopbackProject } from '../support/loopback-project.js';

// `clawcode apply` / `check` with a bad plan file: the file's problem first, in words, with line and column,
// one exit code (2), whether or not a terminal could confirm. And a model reply that is no plan is kept.

const GREET = 'export const greet = (name) => "hi " + name;\n';
const PLAN = replacePlan('greet.js', [{ find: '"hi "', replace: '"hello "' }], 'Say hello.');
const PLAN_TEXT = JSON.stringify(PLAN, null, 2);
const HINT = "A plan file holds one JSON plan: from --plan-out, or a model's answer to --print-prompt.\n";

const lp = useLoopbackProject({ prefix: 'clawcode-plan-files-', files: { 'greet.js': GREET } });
let server: ProviderServer;
let project: string;
let home: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  ({ server, project, home, env } = lp);
  await writeFile(join(project, 'cut.json'), PLAN_TEXT.slice(0, 120));
  await writeFile(
    join(project, 'comma.json'),
    PLAN_TEXT.replace('"analysis": "Say hello.",', '"analysis": "Say hello."'),
  );
  await writeFile(join(project, 'empty.json'), '\n');
  await writeFile(join(project, 'other.json'), '{"name": "not a plan"}\n');
  await writeFile(join(project, 'prose.txt'), 'I would change the greeting, but here is no JSON.\n');
  await mkdir(join(project, 'plans'));
});

const cases: [string, string][] = [
  ['missing.json', 'Plan file missing.json not found.'],
  ['plans', 'Plan file plans is a folder, not a file.'],
  ['empty.json', 'Plan file empty.json is empty.'],
  ['cut.json', '(matched below: the position depends on where the text is cut)'],
  [
    'comma.json',
    "Plan file comma.json is not valid JSON: expected ',' or '}' after property value at line 3, column 3.",
  ],
  ['other.json', 'Plan file other.json is not a plan: at patches: Invalid input: expected array, received undefined.'],
  ['prose.txt', 'Plan file prose.txt holds no JSON object.'],
];

describe('apply with a bad plan file', () => {
  for (const [file, line] of cases) {
    for (const flags of [[], ['--yes']]) {
      it(`${file} ${flags.join(' ') || '(no terminal, no --yes)'}: says so first, exit 2`, async () => {
        const r = await runCli(['apply', file, '--dir', project, ...flags], { env, cwd: project });
        expect(r.code).toBe(2);
        expect(r.stdout).toBe('');
        if (file === 'cut.json') {
          expect(r.stderr).toMatch(/^clawcode: Plan file cut\.json is not valid JSON: .* at line \d+, column \d+/);
          expect(r.stderr).toMatch(/cut short\?/);
        } else {
          expect(r.stderr).toBe(`clawcode: ${line}\n${HINT}`);
        }
        expect(r.stderr.split('\n')[0]).not.toMatch(/model/i);
        expect(await readFile(join(project, 'greet.js'), 'utf8')).toBe(GREET);
      });
    }
  }

  it('check says the same of a cut file, exit 2', async () => {
    const r = await runCli(['check', 'cut.json', '--dir', project], { env, cwd: project });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^clawcode: Plan file cut\.json is not valid JSON: /);
  });

  it('a model answer with prose after its JSON still applies', async () => {
    await writeFile(join(project, 'answer.txt'), `${PLAN_TEXT}\n\nLet me know if you need more.\n`);
    const r = await runCli(['apply', 'answer.txt', '--dir', project, '--yes'], { env, cwd: project });
    expect(r.code).toBe(0);
    expect(await readFile(join(project, 'greet.js'), 'utf8')).toContain('"hello "');
  });
});

describe('a model reply that is no plan', () => {
  it('is kept under the clawcode home, both replies when the JSON repair fails too, and the error names them', async () => {
    server.reply(
      replies.text('I would add a greeting, but I cannot write JSON today.'),
      replies.text('Still no JSON, sorry.'),
    );
    const r = await runCli(['say hello', '--dir', project, '--yes'], { env });
    expect(r.code).toBe(1);
    const kept = (await readdir(join(home, 'replies'))).sort();
    expect(kept).toHaveLength(2);
    const [first, second] = kept.map((name) => join(home, 'replies', name));
    expect(r.stderr.split('\n')[0]).toBe(
      `clawcode: The model reply holds no JSON plan. The replies are kept in ${first} and ${second}.`,
    );
    expect(await readFile(first!, 'utf8')).toBe('I would add a greeting, but I cannot write JSON today.');
    expect(await readFile(second!, 'utf8')).toBe('Still no JSON, sorry.');
  });

  it('the sentence naming the kept replies follows a message that ended without a full stop as a sentence of its own', async () => {
    const notAPlan = JSON.stringify({ analysis: ['not a string'] });
    server.reply(replies.text(notAPlan), replies.text(notAPlan));
    const r = await runCli(['say hello', '--dir', project, '--yes'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toMatch(
      /^clawcode: The model's plan is invalid at analysis: [^\n]*[^.]\. The replies are kept in /,
    );
  });
});
