import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, replacePlan, runCli } from '../support/fixture.js';
import { LOOPBACK_KEY, useLoopbackProject } from '../support/loopback-project.js';
import { replies, type RecordedRequest, type ScriptedReply } from '../support/provider-server.js';

// The built CLI on Azure api-version 2024-02-01 (JSON mode), answered with real Azure streams recorded by other
// projects (tests/support/fixtures/azure, sources in the README there).

const t = useLoopbackProject({ prefix: 'clawcode-azure-usage-', files: { 'greet.js': "const hi = 'hello ';\n" } });
const PLAN = replacePlan('greet.js', [{ find: "'hello '", replace: "'hi '" }]);

function azureEnv(): NodeJS.ProcessEnv {
  return cleanEnv({
    CLAWCODE_HOME: t.home,
    AZURE_OPENAI_API_KEY: LOOPBACK_KEY,
    AZURE_OPENAI_ENDPOINT: t.server.url,
    AZURE_OPENAI_DEPLOYMENT: 'gpt-4o-mini',
    OPENAI_API_VERSION: '2024-02-01',
  });
}

/** The recorded JSON-mode stream for a request that asked for usage, else the one for a request that did not. */
const azure = (request: RecordedRequest): ScriptedReply =>
  replies.fixture(request.body?.stream_options ? 'azure/stream-json-object-usage' : 'azure/stream-json-object', PLAN);

describe('Azure usage in the report', () => {
  it('api-version 2024-02-01 asks for usage and reports the counts Azure sends', async () => {
    t.server.reply(azure);
    const result = await runCli(['friendlier', '--dir', t.project, '--yes', '--json'], { env: azureEnv() });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).usage).toEqual({ inputTokens: 278, outputTokens: 47, totalTokens: 325 });
    expect(t.server.completions()[0]?.body.stream_options).toEqual({ include_usage: true });
    expect(await readFile(join(t.project, 'greet.js'), 'utf8')).toBe("const hi = 'hi ';\n");
  });

  it('a stream with no usage is reported as an estimate, in the summary and in --json', async () => {
    t.server.reply(
      replies.fixture('azure/stream-json-object', PLAN),
      replies.fixture('azure/stream-json-object', PLAN),
    );
    const shown = await runCli(['friendlier', '--dir', t.project, '--yes', '--dry-run'], { env: azureEnv() });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(
      /│ Model: azure\/gpt-4o-mini-2024-07-18 · ~[\d,]+ in \/ ~[\d,]+ out tokens, estimated /,
    );
    const json = await runCli(['friendlier', '--dir', t.project, '--yes', '--dry-run', '--json'], { env: azureEnv() });
    expect(JSON.parse(json.stdout).usage).toMatchObject({ estimated: true });
  });
});
