import type { Usage } from '../llm/types.js';

/**
 * Estimated cost of a call from list prices, in USD per 1M tokens.
 * Source: the providers' public price pages (openai.com/api/pricing, groq.com/pricing,
 * ai.google.dev/gemini-api/docs/pricing, anthropic.com/pricing, DeepSeek and Mistral price pages)
 * as of 2025; standard tier, no batch discounts; prompt-cache rates where the provider reports cached tokens. Prices change: override them with the `prices` entry of config.json.
 */

/** USD per 1,000,000 tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Input tokens read from the prompt cache; `input` when not given. */
  cacheRead?: number;
  /** Input tokens written to the prompt cache; `input` when not given. */
  cacheWrite?: number;
}

/** Known list prices by model id. */
const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-5': { input: 1.25, output: 10 },
  'gpt-5-mini': { input: 0.25, output: 2 },
  'gpt-5-nano': { input: 0.05, output: 0.4 },
  'o4-mini': { input: 1.1, output: 4.4 },
  'o3-mini': { input: 1.1, output: 4.4 },
  'llama-3.3-70b-versatile': { input: 0.59, output: 0.79 },
  'llama-3.1-8b-instant': { input: 0.05, output: 0.08 },
  'openai/gpt-oss-120b': { input: 0.15, output: 0.75 },
  'openai/gpt-oss-20b': { input: 0.1, output: 0.5 },
  'gemini-2.5-pro': { input: 1.25, output: 10 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4 },
  'gemini-2.0-flash': { input: 0.1, output: 0.4 },
  // Anthropic (anthropic.com/pricing): 5-minute cache writes cost 1.25x input, cache reads 0.1x.
  'claude-opus-4-5': { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  'claude-opus-4-1': { input: 15, output: 75, cacheWrite: 18.75, cacheRead: 1.5 },
  'claude-sonnet-4-6': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  'claude-sonnet-4-5': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  'claude-sonnet-4': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheWrite: 1, cacheRead: 0.08 },
  // DeepSeek (api-docs.deepseek.com/quick_start/pricing), cache-miss input price.
  'deepseek-chat': { input: 0.28, output: 0.42, cacheRead: 0.028 },
  'deepseek-reasoner': { input: 0.28, output: 0.42, cacheRead: 0.028 },
  // Mistral (mistral.ai/pricing).
  'mistral-large-latest': { input: 2, output: 6 },
  'mistral-medium-latest': { input: 0.4, output: 2 },
  'codestral-latest': { input: 0.3, output: 0.9 },
};

/**
 * The price of a model: an override first, then the table; a dated snapshot
 * (`gpt-4o-mini-2024-07-18`) falls back to its base name.
 */
export function findPrice(model: string, overrides: Readonly<Record<string, ModelPrice>> = {}): ModelPrice | undefined {
  // Dated snapshots: `gpt-4o-mini-2024-07-18`, `claude-sonnet-4-5-20250929`.
  const candidates = [
    model,
    model.replace(/-\d{4}-\d{2}-\d{2}$/, ''),
    model.replace(/-\d{8}$/, ''),
    model.replace(/^models\//, ''),
  ];
  // Own keys only: a model the server names `constructor` or `__proto__` has no price, not Object's.
  for (const name of candidates) {
    const price = Object.hasOwn(overrides, name)
      ? overrides[name]
      : Object.hasOwn(DEFAULT_PRICES, name)
        ? DEFAULT_PRICES[name]
        : undefined;
    if (price) return price;
  }
  return undefined;
}

/**
 * Estimated cost of one call in USD.
 *
 * @param model      model id as configured or reported
 * @param usage      token counts (tokens, not characters)
 * @param overrides  `prices` from config.json, USD per 1M tokens by model id
 * @returns USD, or undefined when the model's price is unknown
 */
export function estimateCostUsd(
  model: string,
  usage: Usage,
  overrides?: Readonly<Record<string, ModelPrice>>,
): number | undefined {
  const price = findPrice(model, overrides);
  if (!price) return undefined;
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const plainInput = Math.max(0, usage.inputTokens - cacheRead - cacheWrite);
  const input =
    plainInput * price.input +
    cacheRead * (price.cacheRead ?? price.input) +
    cacheWrite * (price.cacheWrite ?? price.input);
  return (input + usage.outputTokens * price.output) / 1_000_000;
}
