import { describe, expect, it } from 'vitest';
import { reportedCostUsd } from '../../../cli/task/report-cost.js';

const usage = { inputTokens: 1_000_000, outputTokens: 0, totalTokens: 1_000_000 };

describe('reportedCostUsd', () => {
  it("prices a known model on the provider's own server", () => {
    expect(reportedCostUsd({ provider: 'openai' }, 'gpt-4o-mini', usage)).toBeCloseTo(0.15);
    expect(
      reportedCostUsd({ provider: 'openai', baseURL: 'https://api.openai.com/v1' }, 'gpt-4o-mini', usage),
    ).toBeCloseTo(0.15);
  });

  it('shows no cost for a local or other server, an unknown model, or no usage', () => {
    expect(
      reportedCostUsd({ provider: 'openai', baseURL: 'http://127.0.0.1:11434/v1' }, 'gpt-4o-mini', usage),
    ).toBeNull();
    expect(
      reportedCostUsd({ provider: 'openai', baseURL: 'https://openrouter.ai/api/v1' }, 'gpt-4o-mini', usage),
    ).toBeNull();
    expect(reportedCostUsd({ provider: 'openai' }, 'qwen2.5-coder', usage)).toBeNull();
    expect(reportedCostUsd({ provider: 'openai' }, 'gpt-4o-mini', undefined)).toBeNull();
  });
});
