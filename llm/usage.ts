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
