import { estimateCostUsd } from '../../config/prices.js';
import type { ProviderConfig, Usage } from '../../llm/types.js';

/** Hosts whose list prices the price table holds (config/prices.ts); Azure endpoints bill like OpenAI. */
const PRICED_HOSTS = new Set(['api.openai.com', 'api.groq.com', 'generativelanguage.googleapis.com']);

/**
 * The estimated cost of a call for the summary and the report, or null when it is not known: the
 * model has no list price, or the request went to a server other than the provider's own (a local
 * Ollama or LM Studio, a proxy, another OpenAI-compatible host), whose prices the table does not know
 * even when the model name matches one in it.
 *
 * @param provider  the resolved provider (its `baseURL`, when set, names the server used)
 * @param model     the model id as reported (or configured)
 * @returns USD, or null
 */
export function reportedCostUsd(
  provider: Pick<ProviderConfig, 'provider' | 'baseURL'>,
  model: string,
  usage: Usage | undefined,
): number | null {
  if (!usage) return null;
  if (provider.provider !== 'azure' && provider.baseURL) {
    let host = '';
    try {
      host = new URL(provider.baseURL).hostname;
    } catch {
      return null;
    }
    if (!PRICED_HOSTS.has(host)) return null;
  }
  return estimateCostUsd(model, usage) ?? null;
}
