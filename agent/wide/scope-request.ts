import { completeWithTimeout, loadProviderModule } from '../../llm/provider.js';
import { extractJson } from '../../llm/plan-parser.js';
import { withRetries } from '../../llm/retry.js';
import type { ProviderConfig, Usage } from '../../llm/types.js';
import { z } from 'zod';
import { UsageError } from '../../utils/errors.js';
import { checkTemplateVars } from '../../utils/rule-vars.js';

/** A codemod rule of a scope answer: applied to every file of its pathspec, with no plan request. */
const scopeRuleSchema = z
  .object({ file: z.string().min(1), find: z.string().min(1), replace: z.string() })
  .superRefine((rule, ctx) => {
    const wrong = checkTemplateVars(rule.find, rule.replace);
    if (wrong) ctx.addIssue({ code: 'custom', path: ['replace'], message: wrong });
  });

/** The one answer of a scope request. Older answers without `rules` mean none. */
export const ScopeAnswerSchema = z.object({
  patterns: z.array(z.string()).max(20),
  pathspecs: z.array(z.string()).max(50),
  rules: z.array(scopeRuleSchema).max(20).optional().default([]),
  reason: z.string(),
});
export type ScopeAnswer = z.infer<typeof ScopeAnswerSchema>;

/** JSON schema of a scope answer, for structured output. */
const SCOPE_JSON_SCHEMA: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: ['patterns', 'pathspecs', 'rules', 'reason'],
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
    rules: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['file', 'find', 'replace'],
        properties: {
          file: { type: 'string', description: 'git pathspec of the files to rewrite, e.g. src/**/*.ts' },
          find: { type: 'string', description: 'ast-grep pattern, e.g. getUser($ID)' },
          replace: { type: 'string', description: 'rewrite template, e.g. fetchUser($ID)' },
        },
      },
      description: 'codemod rules for the purely mechanical part of the change; applied without a plan request',
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
    '- `rules`: when part of the change is mechanical (a rename, a call-shape change, an import move), one ast-grep',
    '  rule each: `find` a pattern (code with `$NAME` for one node, `$$$ARGS` for several), `replace` its template,',
    '  `file` a git pathspec. Rules apply to every file of their pathspec without a plan request; patterns and',
    '  pathspecs then need to cover only what the rules do not. May be empty.',
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
