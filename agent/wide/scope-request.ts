import { completeWithTimeout, loadProviderModule } from '../../llm/provider.js';
import { extractJson } from '../../llm/plan-parser.js';
import { withRetries } from '../../llm/retry.js';
import type { ProviderConfig, Usage } from '../../llm/types.js';
import { z } from 'zod';
import { UsageError } from '../../utils/errors.js';

/** The one answer of a scope request. */
export const ScopeAnswerSchema = z.object({
  patterns: z.array(z.string()).max(20),
  pathspecs: z.array(z.string()).max(50),
  reason: z.string(),
});
export type ScopeAnswer = z.infer<typeof ScopeAnswerSchema>;

/** JSON schema of a scope answer, for structured output. */
const SCOPE_JSON_SCHEMA: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: ['patterns', 'pathspecs', 'reason'],
  properties: {
    patterns: {
      type: 'array',
      items: { type: 'string' },
      description: 'JavaScript regular expressions matching the lines to change',
    },
    pathspecs: {
      type: 'array',
      items: { type: 'string' },
      description: 'project-relative files or folders (a folder ends with /) in scope',
    },
    reason: { type: 'string' },
  },
};

/** System prompt of the scope request. */
export function buildScopeSystemPrompt(): string {
  return [
    'You find the scope of a change that spans many files of a project. You do not edit anything.',
    'Answer with a single JSON object and nothing else, matching this JSON schema:',
    JSON.stringify(SCOPE_JSON_SCHEMA),
    '',
    '- `patterns`: JavaScript regular expressions; every line they match is a place the change must look at.',
    '  Prefer specific patterns (the identifier, the import, the call) over broad ones. No nested quantifiers.',
    '- `pathspecs`: files or folders that are in scope as a whole even where no pattern matches; may be empty.',
    '- `reason`: one sentence on how the patterns cover the change.',
  ].join('\n');
}

/** User prompt of the scope request: the task and a map of the project. */
function buildScopeUserPrompt(task: string, projectMap: string): string {
  return `# Task\n${task.trim()}\n\n# Project map\n${projectMap.trim()}\n\nReply with the JSON scope only.`;
}

/**
 * Parse a scope answer.
 *
 * @throws UsageError `scope_invalid` when the reply is not a JSON object of the scope schema
 */
export function parseScopeAnswer(raw: string): ScopeAnswer {
  const json = extractJson(raw);
  if (json === undefined) throw new UsageError('The scope reply held no JSON object', { code: 'scope_invalid' });
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new UsageError(`The scope reply is not valid JSON (${(error as Error).message})`, { code: 'scope_invalid' });
  }
  const parsed = ScopeAnswerSchema.safeParse(value);
  if (!parsed.success)
    throw new UsageError(`The scope reply does not match the scope schema: ${parsed.error.issues[0]?.message ?? ''}`, {
      code: 'scope_invalid',
    });
  return parsed.data;
}

/** The scope answer with what its request cost. */
export interface ScopeResult {
  scope: ScopeAnswer;
  usage?: Usage;
  ms: number;
}

/**
 * The one scope request of `--wide` without `--files`/`--grep`: the task and a map of the
 * project (paths and defined symbols) in, `{ patterns, pathspecs, reason }` out. It goes through
 * the same client, timeout and retries as a plan request, with the scope schema as structured output.
 *
 * @param projectMap  the project map text, already cut to the budget
 * @returns the parsed answer; its patterns are compiled and checked later, when the footprint is collected
 * @throws ProviderError, InterruptedError, UsageError `scope_invalid` for an answer that is not a scope
 */
export async function requestScope(
  config: ProviderConfig,
  task: string,
  projectMap: string,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<ScopeResult> {
  const started = performance.now();
  const client = (await loadProviderModule(config.provider)).createClient(config);
  const request = {
    system: buildScopeSystemPrompt(),
    user: buildScopeUserPrompt(task, projectMap),
    jsonSchema: SCOPE_JSON_SCHEMA,
  };
  const reply = await withRetries(() => completeWithTimeout(client, config, request, options), {
    signal: options.signal,
  });
  return { scope: parseScopeAnswer(reply.text), usage: reply.usage, ms: Math.round(performance.now() - started) };
}
