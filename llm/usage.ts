import type { Usage } from './types.js';

/**
 * The sum of two token counts (tokens, as providers report them), cache reads and writes included
 * when either side reports them, marked `estimated` when either side is; undefined when both are
 * undefined. Used wherever one task makes more than one request: a repair request, the shards of a
 * wide change, a scope request.
 */
export function addUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (!a) return b;
  if (!b) return a;
  const sum: Usage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
  if (a.cacheReadTokens !== undefined || b.cacheReadTokens !== undefined) {
    sum.cacheReadTokens = (a.cacheReadTokens ?? 0) + (b.cacheReadTokens ?? 0);
  }
  if (a.cacheWriteTokens !== undefined || b.cacheWriteTokens !== undefined) {
    sum.cacheWriteTokens = (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0);
  }
  // A sum with an estimated part is an estimate.
  if (a.estimated || b.estimated) sum.estimated = true;
  return sum;
}

/**
 * A rough token count for a number of characters: 4 characters per token, the usual figure for
 * English and code with OpenAI-style BPE tokenizers (more tokens for dense code, fewer for prose).
 * For estimates shown before a request and for servers that report no usage; never for billing.
 */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

/**
 * The most tokens one request may report for one field. Context windows reach a few million tokens; a larger
 * count is a broken or hostile server's, and shown or priced it overflowed the summary and the cost estimate.
 */
export const MAX_REPORTED_TOKENS = 100_000_000;

/** A token count as a server reported it: a whole number from 0 to MAX_REPORTED_TOKENS, else undefined. */
function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_REPORTED_TOKENS
    ? value
    : undefined;
}

/**
 * Usage as a client built it from the server's reply, checked: the SDKs pass the server's JSON through
 * untyped, so a count may be a string, an object, negative, fractional or astronomically large. Input and
 * output counts must be whole numbers within MAX_REPORTED_TOKENS, or the reply counts as reporting no usage;
 * a bad total is recomputed from them, a bad cache count dropped.
 *
 * @returns the usage with only valid counts, or undefined when the input or output count is not one
 */
export function checkUsage(usage: Usage | undefined): Usage | undefined {
  if (!usage) return undefined;
  const inputTokens = tokenCount(usage.inputTokens);
  const outputTokens = tokenCount(usage.outputTokens);
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  const checked: Usage = {
    inputTokens,
    outputTokens,
    totalTokens: tokenCount(usage.totalTokens) ?? inputTokens + outputTokens,
  };
  const cacheRead = tokenCount(usage.cacheReadTokens);
  const cacheWrite = tokenCount(usage.cacheWriteTokens);
  if (cacheRead !== undefined) checked.cacheReadTokens = cacheRead;
  if (cacheWrite !== undefined) checked.cacheWriteTokens = cacheWrite;
  if (usage.estimated === true) checked.estimated = true;
  return checked;
}
