import type { ProviderConfig } from '../llm/types.js';

/**
 * The default context budget per model, chosen from the model's context window: a model that reads
 * 32k tokens or more gets 60,000 characters of file context (about 15k tokens, leaving room for the
 * instructions, the outline and the plan it writes); a small or unknown local model gets 18,000.
 * Measured on real commits: 60,000 characters find the changed region far more often than 18,000
 * (hunk recall 0.86 vs 0.69 on the public benchmark). `--budget` and the `budgetChars` setting win.
 */

/** Context windows in tokens, from the providers' model pages (2025). Keys match a model id or its prefix. */
export const CONTEXT_WINDOW_TOKENS: Readonly<Record<string, number>> = {
  'gpt-4o': 128_000,
  'gpt-4o-mini': 128_000,
  'gpt-4.1': 1_047_576,
  'gpt-5': 400_000,
  o3: 200_000,
  'o4-mini': 200_000,
  'gpt-3.5-turbo': 16_385,
  claude: 200_000,
  'gemini-1.5': 1_000_000,
  'gemini-2': 1_000_000,
  'llama-3.1-8b-instant': 131_072,
  'llama-3.3-70b-versatile': 131_072,
  'openai/gpt-oss': 131_072,
  'qwen2.5-coder': 32_768,
  'llama3.2': 131_072,
  'gemma-7b': 8_192,
  'llama3-8b-8192': 8_192,
  'llama3-70b-8192': 8_192,
};

/** Budget for models with a window of at least LARGE_WINDOW_TOKENS, in characters. */
export const LARGE_BUDGET_CHARS = 60_000;
/** Budget for small, unknown local, or unlisted models, in characters. */
export const SMALL_BUDGET_CHARS = 18_000;
const LARGE_WINDOW_TOKENS = 32_000;

/**
 * The context window of a model in tokens: the longest table key that equals the model id or is a
 * prefix of it followed by `-`, `.`, `:` or `/` (`gpt-4o-mini-2024-07-18` → `gpt-4o-mini`), for the
 * whole id or its part after the last `/`.
 *
 * @returns tokens, or undefined when the model is not in the table
 */
export function contextWindowTokens(model: string): number | undefined {
  const full = model.toLowerCase();
  // `models/gemini-2.5-flash`, `meta-llama/llama-3.3-70b-versatile`: also try the name after the last `/`.
  const ids = [full, full.slice(full.lastIndexOf('/') + 1)];
  let best: string | undefined;
  for (const key of Object.keys(CONTEXT_WINDOW_TOKENS)) {
    const match = ids.some((id) => id === key || (id.startsWith(key) && /[-.:/]/.test(id[key.length] ?? '')));
    if (match && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : CONTEXT_WINDOW_TOKENS[best];
}

/** Whether a provider entry talks to a server on this machine (a preset, or a loopback base URL). */
function isLocal(provider: Pick<ProviderConfig, 'preset' | 'baseURL'>): boolean {
  if (provider.preset) return true;
  if (!provider.baseURL) return false;
  try {
    const host = new URL(provider.baseURL).hostname;
    return host === 'localhost' || host.startsWith('127.') || host === '[::1]' || host === '::1';
  } catch {
    return false;
  }
}

/**
 * The default context budget for a provider's model, in characters: LARGE_BUDGET_CHARS when its
 * window is known to be ≥ 32k tokens, or when it is an unlisted model of a hosted provider (they
 * all serve ≥ 32k today); SMALL_BUDGET_CHARS for small windows and unlisted local models.
 */
export function defaultBudgetChars(provider: Pick<ProviderConfig, 'model' | 'preset' | 'baseURL'>): number {
  const window = contextWindowTokens(provider.model);
  if (window !== undefined) return window >= LARGE_WINDOW_TOKENS ? LARGE_BUDGET_CHARS : SMALL_BUDGET_CHARS;
  return isLocal(provider) ? SMALL_BUDGET_CHARS : LARGE_BUDGET_CHARS;
}

/**
 * The budget a task uses: the setting when someone set it (`--budget`, env, a settings file),
 * otherwise the model's default.
 *
 * @param settingLayer  the layer the `budgetChars` setting came from ('default' when nobody set it)
 */
export function budgetFor(
  settingChars: number,
  settingLayer: string,
  provider: Pick<ProviderConfig, 'model' | 'preset' | 'baseURL'>,
): number {
  return settingLayer === 'default' ? defaultBudgetChars(provider) : settingChars;
}
