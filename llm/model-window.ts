/**
 * A model's context window as a provider's model listing reports it. Services name the field
 * differently: Groq `context_window`; OpenRouter, Together and Fireworks `context_length`; Mistral
 * `max_context_length`; vLLM `max_model_len`; Anthropic `max_input_tokens`; Gemini `inputTokenLimit`.
 * OpenAI, Azure and most local servers report none.
 */

/** Options of a model-listing call: cancellation, and a deadline in ms. */
export type ListingOptions = { signal?: AbortSignal; timeoutMs?: number };

const WINDOW_FIELDS = [
  'context_window',
  'context_length',
  'max_context_length',
  'max_model_len',
  'max_input_tokens',
  'inputTokenLimit',
] as const;

/** Windows outside this range (in tokens) are not believed: a listing bug, not a model. */
const MIN_WINDOW_TOKENS = 1_024;
const MAX_WINDOW_TOKENS = 100_000_000;

/**
 * The context window in tokens that one entry of a model listing states, or undefined.
 *
 * @param entry  the entry as the service sent it (any JSON value)
 * @returns a whole number of tokens in 1,024..100,000,000, from the first field of WINDOW_FIELDS
 *          present (OpenRouter's `top_provider.context_length` when the top level has none)
 */
export function windowOfListedModel(entry: unknown): number | undefined {
  if (!entry || typeof entry !== 'object') return undefined;
  const record = entry as Record<string, unknown>;
  const top = record.top_provider;
  const candidates = [
    ...WINDOW_FIELDS.map((field) => record[field]),
    top && typeof top === 'object' ? (top as Record<string, unknown>).context_length : undefined,
  ];
  for (const value of candidates) {
    const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    if (typeof n === 'number' && Number.isInteger(n) && n >= MIN_WINDOW_TOKENS && n <= MAX_WINDOW_TOKENS) return n;
  }
  return undefined;
}
