/**
 * The JSON schema of a plan as sent to providers for structured output.
 *
 * It follows OpenAI strict-mode rules (every property required, `additionalProperties: false`,
 * optional fields written as nullable), which Groq accepts as is and Gemini accepts through
 * `responseJsonSchema` (shared/research/ecosystem.md §2). Validation of what comes back is done
 * locally by `parsePlan` (llm/plan-parser.ts), which also accepts the optional fields missing.
 */
export const PLAN_JSON_SCHEMA: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: ['analysis', 'files_to_edit', 'patches', 'commands', 'agent_notes'],
  properties: {
    analysis: { type: 'string' },
    files_to_edit: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['path', 'reason'],
        properties: { path: { type: 'string' }, reason: { type: 'string' } },
      },
    },
    patches: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['file', 'operation', 'find', 'replace', 'replace_all', 'occurrence'],
        properties: {
          file: { type: 'string' },
          operation: { type: 'string', enum: ['replace'] },
          find: { type: 'string' },
          replace: { type: 'string' },
          replace_all: { type: ['boolean', 'null'] },
          occurrence: { type: ['integer', 'null'] },
        },
      },
    },
    commands: { type: 'array', items: { type: 'string' } },
    agent_notes: { type: 'array', items: { type: 'string' } },
  },
};

/** Name used for `response_format.json_schema.name` ([a-zA-Z0-9_-], ≤ 64 characters). */
export const PLAN_SCHEMA_NAME = 'clawcode_plan';
