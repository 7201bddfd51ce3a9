import type { ProviderConfig } from '../llm/types.js';

/**
 * The default context budget per model: a share of the model's context window, capped. The window
 * comes from the table below, else from the provider's model listing (see config/model-windows.ts);
 * a model whose window nobody knows gets the budget of a 32k-token window when hosted, of a small
 * one when local. `--budget` and the `budgetChars` setting win. How recall and characters sent grow
 * with the budget is measured in docs/tuning.md (## Context selection, WINDOW_SHARE).
 */

/** Context windows in tokens, from the providers' model pages (2025). Keys match a model id or its prefix. */
const CONTEXT_WINDOW_TOKENS: Readonly<Record<string, number>> = {
  'gpt-4o': 128_000,
  'gpt-4o-mini': 128_000,
  'gpt-4.1': 1_047_576,
  'gpt-5': 400_000,
  o1: 200_000,
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

/** Characters per token of code and prose, the estimate used for every token count shown. */
export const CHARS_PER_TOKEN = 4;
/**
 * The share of a model's context window its file context gets by default. The rest holds the
 * instructions, the project map, the task and the plan the model writes. At this share a 128k-token
 * window reaches the cap, like every larger one.
 */
export const WINDOW_SHARE = 0.47;
/** The default budget never exceeds this, whatever the window (cost grows with it, recall barely). */
export const MAX_DEFAULT_BUDGET_CHARS = 240_000;
/** Nor falls below this: the smallest budget that still shows a file or two. */
export const SMALL_BUDGET_CHARS = 18_000;
/** The window assumed for a hosted model nobody reports a window for (every hosted service serves 32k today). */
const UNKNOWN_HOSTED_WINDOW_TOKENS = 32_768;

/** The provider fields the budget depends on. */
export type BudgetProvider = Pick<ProviderConfig, 'provider' | 'name' | 'model' | 'preset' | 'baseURL'>;

/** Where a budget came from, for saying which budget a run uses. */
export type BudgetSource =
  /** `--budget`, an environment variable or a settings file: `where` names which */
  | { kind: 'setting'; layer: string; where: string }
  /** a share of the model's window, from the table or the provider's model listing */
  | { kind: 'window'; model: string; windowTokens: number; from: 'table' | 'listing'; capped: boolean }
  /** nobody knows the window: a hosted model gets a 32k-token window's budget, a local one the small budget */
  | { kind: 'unknown'; model: string; local: boolean }
  /** no provider is configured (`context`, `--print-prompt`): the settings' default */
  | { kind: 'none' };

/** A budget in characters and why. */
export interface BudgetChoice {
  chars: number;
  source: BudgetSource;
}

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

/** Whether a provider entry talks to a server on this machine (a local preset, or a loopback base URL). */
function isLocalProvider(provider: Pick<ProviderConfig, 'preset' | 'baseURL'>): boolean {
  if (provider.preset && ['ollama', 'lmstudio', 'llamacpp', 'vllm'].includes(provider.preset)) return true;
  if (!provider.baseURL) return false;
  try {
    const host = new URL(provider.baseURL).hostname;
    return host === 'localhost' || host.startsWith('127.') || host === '[::1]' || host === '::1';
  } catch {
    return false;
  }
}

/**
 * The default budget for a window: WINDOW_SHARE of it in characters (CHARS_PER_TOKEN per token),
 * rounded down to a thousand, within SMALL_BUDGET_CHARS..MAX_DEFAULT_BUDGET_CHARS.
 *
 * @param windowTokens  the model's context window in tokens
 * @returns characters, and whether the cap bound
 */
export function budgetForWindow(windowTokens: number): { chars: number; capped: boolean } {
  const share = Math.floor((windowTokens * WINDOW_SHARE * CHARS_PER_TOKEN) / 1000) * 1000;
  return {
    chars: Math.min(MAX_DEFAULT_BUDGET_CHARS, Math.max(SMALL_BUDGET_CHARS, share)),
    capped: share > MAX_DEFAULT_BUDGET_CHARS,
  };
}

/**
 * The budget a task uses: the setting when someone set it (`--budget`, env, a settings file),
 * otherwise the model's default (`budgetForWindow` of its window).
 *
 * @param setting        the `budgetChars` setting in characters, the layer it came from ('default' when
 *                       nobody set it) and where in that layer (a flag, a variable, a file)
 * @param provider       the provider the task would use, or undefined when none is configured
 * @param listedWindow   the window the provider's model listing reports, when the table has none
 */
export function chooseBudget(
  setting: { chars: number; layer: string; where: string },
  provider: BudgetProvider | undefined,
  listedWindow?: number,
): BudgetChoice {
  if (setting.layer !== 'default')
    return { chars: setting.chars, source: { kind: 'setting', layer: setting.layer, where: setting.where } };
  if (!provider) return { chars: setting.chars, source: { kind: 'none' } };
  const tabled = contextWindowTokens(provider.model);
  const windowTokens = tabled ?? listedWindow;
  if (windowTokens !== undefined) {
    const { chars, capped } = budgetForWindow(windowTokens);
    return {
      chars,
      source: { kind: 'window', model: provider.model, windowTokens, from: tabled ? 'table' : 'listing', capped },
    };
  }
  const local = isLocalProvider(provider);
  return {
    chars: local ? SMALL_BUDGET_CHARS : budgetForWindow(UNKNOWN_HOSTED_WINDOW_TOKENS).chars,
    source: { kind: 'unknown', model: provider.model, local },
  };
}

/**
 * One line saying which budget a run uses and why, e.g. `context budget 240,000 characters: 47% of
 * gpt-4.1's 1,047,576-token window, capped`.
 */
export function describeBudget(choice: BudgetChoice): string {
  const n = (x: number): string => x.toLocaleString('en-US');
  const s = choice.source;
  const why =
    s.kind === 'setting'
      ? `set by ${s.where}`
      : s.kind === 'window'
        ? `${Math.round(WINDOW_SHARE * 100)}% of ${s.model}'s ${n(s.windowTokens)}-token window` +
          `${s.from === 'listing' ? ' (from the provider’s model list)' : ''}${s.capped ? ', capped' : ''}`
        : s.kind === 'unknown'
          ? `${s.model}'s window is unknown; the default for ${s.local ? 'a local' : 'a hosted'} model`
          : 'no provider configured; the default';
  return `context budget ${n(choice.chars)} characters: ${why}`;
}
