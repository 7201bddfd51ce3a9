import { describe, expect, it } from 'vitest';
import { addUsage } from '../../llm/usage.js';

describe('addUsage', () => {
  it('sums token counts, keeping cache reads and writes when either side reports them', () => {
    expect(addUsage(undefined, undefined)).toBeUndefined();
    const a = { inputTokens: 100, outputTokens: 10, totalTokens: 110, cacheReadTokens: 80 };
    expect(addUsage(a, undefined)).toBe(a);
    expect(addUsage(a, { inputTokens: 50, outputTokens: 5, totalTokens: 55, cacheWriteTokens: 40 })).toEqual({
      inputTokens: 150,
      outputTokens: 15,
      totalTokens: 165,
      cacheReadTokens: 80,
      cacheWriteTokens: 40,
    });
    expect(
      addUsage(
        { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      ),
    ).toEqual({
      inputTokens: 2,
      outputTokens: 2,
      totalTokens: 4,
    });
  });

  it('a sum with an estimated part is marked estimated', () => {
    const real = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
    const guess = { inputTokens: 20, outputTokens: 8, totalTokens: 28, estimated: true };
    expect(addUsage(real, guess)).toEqual({ inputTokens: 30, outputTokens: 13, totalTokens: 43, estimated: true });
    expect(addUsage(guess, real)?.estimated).toBe(true);
    expect(addUsage(real, real)?.estimated).toBeUndefined();
  });
});
