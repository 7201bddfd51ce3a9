import { completeWithTimeout, loadProviderModule } from '../../llm/provider.js';
import { extractJson } from '../../llm/plan-parser.js';
import { withRetries } from '../../llm/retry.js';
import type { ProviderConfig, Usage } from '../../llm/types.js';
import { buildScopeSystemPrompt, buildScopeUserPrompt, parseScopeAnswer, SCOPE_JSON_SCHEMA, type ScopeAnswer } from './footprint.js';

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
  const request = { system: buildScopeSystemPrompt(), user: buildScopeUserPrompt(task, projectMap), jsonSchema: SCOPE_JSON_SCHEMA };
  const reply = await withRetries(() => completeWithTimeout(client, config, request, options), { signal: options.signal });
  return { scope: parseScopeAnswer(reply.text, extractJson), usage: reply.usage, ms: Math.round(performance.now() - started) };
}
