import { describe, expect, it } from 'vitest';
import { getStructuredPlan } from '../../llm/provider.js';
import { parsePlan } from '../../llm/plan-parser.js';
import type { ProviderConfig } from '../../llm/types.js';
import { SAMPLE_PLAN, SAMPLE_RULE, useLoopbackProvider } from '../support/provider-env.js';
import { replies } from '../support/provider-server.js';

const server = useLoopbackProvider({ apiKey: 'key-0123456789', models: ['openai/gpt-oss-120b', 'claude-sonnet-4-6'] });
const fast = { retry: { baseDelayMs: 1 } };

/** A plan holding one rule and one find/replace, as every provider may now answer. */
const RULE_PLAN = {
  analysis: 'Rename getUser and log once.',
  files_to_edit: [],
  patches: [SAMPLE_RULE, SAMPLE_PLAN.patches[0]!],
  commands: [],
  agent_notes: [],
};

const configs: Record<string, (url: string) => ProviderConfig> = {
  'OpenAI (strict json_schema)': (url) => ({
    provider: 'openai',
    name: 'openai',
    model: 'gpt-4o-mini',
    apiKey: 'key-0123456789',
    baseURL: `${url}/v1`,
  }),
  'Groq (strict json_schema)': (url) => ({
    provider: 'groq',
    name: 'groq',
    model: 'openai/gpt-oss-120b',
    apiKey: 'key-0123456789',
    baseURL: url,
  }),
  'Gemini (responseJsonSchema)': (url) => ({
    provider: 'gemini',
    name: 'gemini',
    model: 'gemini-2.5-flash',
    apiKey: 'key-0123456789',
    baseURL: url,
  }),
  'Anthropic (forced tool call)': (url) => ({
    provider: 'anthropic',
    name: 'anthropic',
    model: 'claude-sonnet-4-6',
    apiKey: 'key-0123456789',
    baseURL: url,
  }),
};

/** The schema of one patch as a request carried it, wherever the provider puts it. */
function patchSchemaOf(body: Record<string, any>): Record<string, any> {
  const schema =
    body.response_format?.json_schema?.schema ??
    body.generationConfig?.responseJsonSchema ??
    body.tools?.[0]?.input_schema;
  return schema.properties.patches.items;
}

describe('rules through every provider', () => {
  for (const [name, config] of Object.entries(configs)) {
    it(`${name}: the schema offers replace and rewrite, and a plan with both comes back parsed`, async () => {
      server.reply(replies.plan(RULE_PLAN));
      const result = await getStructuredPlan(config(server.url), 'system', 'user', fast);
      const items = patchSchemaOf(server.completions()[0]!.body);
      expect(items.properties.operation.enum).toEqual(['replace', 'rewrite']);
      expect(items.required).toEqual(['file', 'operation', 'find', 'replace', 'replace_all', 'occurrence']);
      expect(result.plan.patches).toEqual([
        { file: 'src/**/*.ts', operation: 'rewrite', find: 'getUser($ID)', replace: 'fetchUser($ID, { cache: true })' },
        { file: 'src/a.ts', operation: 'replace', find: 'hello', replace: 'hello world' },
      ]);
    });
  }
});

describe('rule validation', () => {
  const withRule = (find: string, replace: string) =>
    JSON.stringify({ ...RULE_PLAN, patches: [{ ...RULE_PLAN.patches[0], find, replace }] });

  it('refuses a template metavariable the pattern does not capture, naming it', () => {
    expect(() => parsePlan(withRule('getUser($ID)', 'fetchUser($USER)'))).toThrow(
      "The model's plan is invalid at patches.0.replace: replace uses $USER, which find does not capture",
    );
    expect(() => parsePlan(withRule('f($$$A)', 'g($A)'))).toThrow(/replace uses \$A but find captures \$\$\$A/);
  });

  it('refuses a rule without a pattern, and an operation it does not know', () => {
    expect(() => parsePlan(withRule(' ', 'x'))).toThrow(/patches\.0\.find: a rewrite needs an ast-grep pattern/);
    const unknown = JSON.stringify({ ...RULE_PLAN, patches: [{ ...RULE_PLAN.patches[1], operation: 'delete' }] });
    expect(() => parsePlan(unknown)).toThrow(/patches\.0\.operation/);
  });
});
