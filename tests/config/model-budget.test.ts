import { describe, expect, it } from 'vitest';
import { budgetFor, contextWindowTokens, defaultBudgetChars } from '../../config/model-budget.js';

describe('budget per model', () => {
  it('knows windows by id and dated or prefixed ids', () => {
    expect(contextWindowTokens('gpt-4o-mini-2024-07-18')).toBe(128_000);
    expect(contextWindowTokens('models/gemini-2.5-flash')).toBe(1_000_000);
    expect(contextWindowTokens('llama3-8b-8192')).toBe(8_192);
    expect(contextWindowTokens('my-finetune')).toBeUndefined();
  });

  it('gives 60,000 chars to large windows and 18,000 to small or unknown local models', () => {
    expect(defaultBudgetChars({ model: 'gpt-4.1' })).toBe(60_000);
    expect(defaultBudgetChars({ model: 'llama3-8b-8192' })).toBe(18_000);
    expect(defaultBudgetChars({ model: 'mystery', preset: 'ollama' })).toBe(18_000);
    expect(defaultBudgetChars({ model: 'mystery', baseURL: 'http://127.0.0.1:8080/v1' })).toBe(18_000);
    expect(defaultBudgetChars({ model: 'mystery-hosted' })).toBe(60_000);
  });

  it('lets a set budget win over the model default', () => {
    expect(budgetFor(9000, 'flag', { model: 'gpt-4.1' })).toBe(9000);
    expect(budgetFor(18_000, 'default', { model: 'gpt-4.1' })).toBe(60_000);
  });
});
