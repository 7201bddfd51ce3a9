import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { budgetForWindow, SMALL_BUDGET_CHARS, WINDOW_SHARE } from '../../config/model-budget.js';
import { cleanEnv, copyPackageFixture, runCli } from '../support/fixture.js';
import { replies, startProviderServer, type ProviderServer } from '../support/provider-server.js';

// The preview is what is sent: `clawcode context` and `--print-prompt` use the budget the run would use
// (provider and model from flags, settings and environment) and say which, through the built CLI.

const PLAN = { analysis: 'Nothing to do.', files_to_edit: [], patches: [], commands: [], agent_notes: [] };
const TASK = 'add an option to set the help width in the Command class';
const n = (x: number): string => x.toLocaleString('en-US');

let server: ProviderServer;
let project: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startProviderServer({
    apiKey: 'k',
    models: ['gpt-4o-mini', 'wide-model', 'plain-model'],
    windows: { 'wide-model': 100_000 },
  });
  project = await copyPackageFixture('commander');
});
afterAll(async () => server.close());
beforeEach(async () => {
  server.reset();
  home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
  env = cleanEnv({ CLAWCODE_HOME: home, OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${server.url}/v1` });
});

describe('the budget of a preview is the budget of the run', () => {
  it('`context -m` takes the model, sizes the budget from its window and says so', async () => {
    const budget = budgetForWindow(128_000).chars;
    const shown = await runCli(['context', TASK, '--dir', project, '-m', 'gpt-4o-mini'], { env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(
      `\ncontext budget ${n(budget)} characters: ${Math.round(WINDOW_SHARE * 100)}% of gpt-4o-mini's 128,000-token window\n`,
    );
    const json = await runCli(['context', TASK, '--dir', project, '-m', 'gpt-4o-mini', '--json'], { env });
    expect(JSON.parse(json.stdout).budget).toBe(budget);
    // `--budget` still wins, and says so.
    const set = await runCli(['context', TASK, '--dir', project, '-m', 'gpt-4o-mini', '--budget', '9000'], { env });
    expect(set.stdout).toContain('\ncontext budget 9,000 characters: set by --budget\n');
  });

  it('the run sends the files `context` showed, under the same budget', async () => {
    const shown = await runCli(['context', TASK, '--dir', project, '-m', 'gpt-4o-mini', '--json'], { env });
    const files = (JSON.parse(shown.stdout) as { files: { path: string }[] }).files.map((f) => f.path);
    expect(files.length).toBeGreaterThan(3);
    server.reply(replies.plan(PLAN));
    const run = await runCli([TASK, '--dir', project, '-m', 'gpt-4o-mini', '--dry-run', '--json'], { env });
    expect(run.code).toBe(0);
    const sent = JSON.stringify(server.completions()[0]!.body);
    for (const path of files) expect(sent).toContain(`## ${path} (`);
  });

  it('`--print-prompt -m` uses that budget too, and says which on stderr', async () => {
    const printed = await runCli([TASK, '--dir', project, '-m', 'gpt-4o-mini', '--print-prompt'], { env });
    expect(printed.code).toBe(0);
    expect(printed.stderr).toBe(
      `context budget ${n(budgetForWindow(128_000).chars)} characters: ${Math.round(WINDOW_SHARE * 100)}% of gpt-4o-mini's 128,000-token window\n`,
    );
    const small = await runCli([TASK, '--dir', project, '--print-prompt'], {
      env: cleanEnv({ CLAWCODE_HOME: home }),
    });
    expect(small.stderr).toBe(
      `context budget ${n(SMALL_BUDGET_CHARS)} characters: no provider configured; the default\n`,
    );
    expect(printed.stdout.length).toBeGreaterThan(small.stdout.length + 20_000);
  });

  it("a model the table does not know gets its window from the provider's model list, asked once", async () => {
    const shown = await runCli(['context', TASK, '--dir', project, '-m', 'wide-model'], { env });
    expect(shown.stdout).toContain(
      `\ncontext budget ${n(budgetForWindow(100_000).chars)} characters: ${Math.round(WINDOW_SHARE * 100)}% of ` +
        "wide-model's 100,000-token window (from the provider’s model list)\n",
    );
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models']);
    const cache = JSON.parse(await readFile(join(home, 'model-windows.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.values(cache)).toEqual([{ tokens: 100_000, at: expect.any(Number) }]);
    await runCli(['context', TASK, '--dir', project, '-m', 'wide-model'], { env });
    expect(server.requests).toHaveLength(1);
  });

  it('--print-prompt asks the model list but leaves nothing under the clawcode home', async () => {
    const printed = await runCli([TASK, '--dir', project, '-m', 'plain-model', '--print-prompt'], { env });
    expect(printed.stderr).toBe(
      // The test server is on this machine: an unknown model there gets the small budget of a local server.
      `context budget ${n(SMALL_BUDGET_CHARS)} characters: plain-model's window is unknown; the default for a local model\n`,
    );
    expect(await readdir(home)).toEqual([]);
  });
});
