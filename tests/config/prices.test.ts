import { describe, expect, it } from 'vitest';
import { estimateCostUsd, findPrice } from '../../config/prices.js';

describe('estimateCostUsd', () => {
  it('prices a known model per 1M input/output tokens', () => {
    // gpt-4o-mini: $0.15 in, $0.60 out per 1M.
    expect(
      estimateCostUsd('gpt-4o-mini', { inputTokens: 1_000_000, outputTokens: 500_000, totalTokens: 1_500_000 }),
    ).toBeCloseTo(0.45, 10);
  });

  it('falls back from a dated snapshot to its base model', () => {
    expect(findPrice('gpt-4o-mini-2024-07-18')).toEqual({ input: 0.15, output: 0.6 });
  });

  it('is undefined for an unknown model and honours config overrides', () => {
    const usage = { inputTokens: 2_000_000, outputTokens: 0, totalTokens: 2_000_000 };
    expect(estimateCostUsd('qwen2.5-coder', usage)).toBeUndefined();
    expect(estimateCostUsd('qwen2.5-coder', usage, { 'qwen2.5-coder': { input: 0, output: 0 } })).toBe(0);
    expect(estimateCostUsd('gpt-4o-mini', usage, { 'gpt-4o-mini': { input: 1, output: 1 } })).toBe(2);
  });

  it('a model a server names after an Object member has no price (constructor priced at NaN)', () => {
    const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
    for (const model of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(findPrice(model), model).toBeUndefined();
      expect(estimateCostUsd(model, usage), model).toBeUndefined();
    }
  });
});
