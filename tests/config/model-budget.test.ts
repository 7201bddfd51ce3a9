import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  budgetForWindow,
  CHARS_PER_TOKEN,
  chooseBudget,
  contextWindowTokens,
  describeBudget,
  MAX_DEFAULT_BUDGET_CHARS,
  SMALL_BUDGET_CHARS,
  WINDOW_SHARE,
} from '../../config/model-budget.js';
import { listedWindow, resolveBudget } from '../../config/model-windows.js';
import type { ProviderConfig } from '../../llm/types.js';
import { windowOfListedModel } from '../../llm/model-window.js';
import { startProviderServer, type ProviderServer } from '../support/provider-server.js';

const unset = { chars: 18_000, layer: 'default', where: 'default' };
const hosted = (model: string): ProviderConfig => ({ provider: 'openai', name: 'openai', model });

describe('the context window of a model', () => {
  it('knows windows by id and dated or prefixed ids', () => {
    expect(contextWindowTokens('gpt-4o-mini-2024-07-18')).toBe(128_000);
    expect(contextWindowTokens('models/gemini-2.5-flash')).toBe(1_000_000);
    expect(contextWindowTokens('llama3-8b-8192')).toBe(8_192);
    expect(contextWindowTokens('my-finetune')).toBeUndefined();
  });

  it("reads each service's field from a model listing, and only believable whole numbers", () => {
    expect(windowOfListedModel({ id: 'm', context_window: 131_072 })).toBe(131_072);
    expect(windowOfListedModel({ id: 'm', context_length: 200_000 })).toBe(200_000);
    expect(windowOfListedModel({ id: 'm', max_model_len: '32768' })).toBe(32_768);
    expect(windowOfListedModel({ name: 'models/g', inputTokenLimit: 1_048_576 })).toBe(1_048_576);
    expect(windowOfListedModel({ id: 'm', top_provider: { context_length: 65_536 } })).toBe(65_536);
    expect(windowOfListedModel({ id: 'm', context_length: 12.5 })).toBeUndefined();
    expect(windowOfListedModel({ id: 'm', context_length: 10 })).toBeUndefined();
    expect(windowOfListedModel({ id: 'm' })).toBeUndefined();
    expect(windowOfListedModel(undefined)).toBeUndefined();
  });
});

describe('the default budget', () => {
  it('is a share of the window in characters, capped, never below the small budget', () => {
    const share = (tokens: number) => Math.floor((tokens * WINDOW_SHARE * CHARS_PER_TOKEN) / 1000) * 1000;
    expect(budgetForWindow(128_000)).toEqual({
      chars: Math.min(MAX_DEFAULT_BUDGET_CHARS, share(128_000)),
      capped: share(128_000) > MAX_DEFAULT_BUDGET_CHARS,
    });
    expect(budgetForWindow(1_047_576)).toEqual({ chars: MAX_DEFAULT_BUDGET_CHARS, capped: true });
    expect(budgetForWindow(8_192).chars).toBe(SMALL_BUDGET_CHARS);
    // Every window of 128k tokens or more gets the cap: 240,000 characters (measured in docs/tuning.md).
    expect(budgetForWindow(128_000).chars).toBe(240_000);
    expect(budgetForWindow(131_072).chars).toBe(240_000);
    expect(budgetForWindow(32_768).chars).toBe(61_000);
  });

  it('follows the model: the table first, then the listing; unknown hosted and local models differ', () => {
    expect(chooseBudget(unset, hosted('gpt-4.1')).chars).toBe(MAX_DEFAULT_BUDGET_CHARS);
    expect(chooseBudget(unset, hosted('llama3-8b-8192')).chars).toBe(SMALL_BUDGET_CHARS);
    expect(chooseBudget(unset, hosted('my-finetune'), 200_000)).toEqual({
      // 200k tokens is past the cap
      chars: budgetForWindow(200_000).chars,
      source: { kind: 'window', model: 'my-finetune', windowTokens: 200_000, from: 'listing', capped: true },
    });
    expect(chooseBudget(unset, hosted('mystery')).chars).toBe(budgetForWindow(32_768).chars);
    const local = { ...hosted('mystery'), baseURL: 'http://127.0.0.1:8080/v1' };
    expect(chooseBudget(unset, local).chars).toBe(SMALL_BUDGET_CHARS);
    expect(chooseBudget(unset, { ...hosted('mystery'), preset: 'ollama' }).chars).toBe(SMALL_BUDGET_CHARS);
    // OpenRouter is a hosted preset, not a local server.
    expect(chooseBudget(unset, { ...hosted('mystery'), preset: 'openrouter' }).chars).toBe(
      budgetForWindow(32_768).chars,
    );
  });

  it('lets a set budget win over the model, and says which budget and why', () => {
    const set = chooseBudget({ chars: 9000, layer: 'flag', where: '--budget' }, hosted('gpt-4.1'));
    expect(set).toEqual({ chars: 9000, source: { kind: 'setting', layer: 'flag', where: '--budget' } });
    expect(describeBudget(set)).toBe('context budget 9,000 characters: set by --budget');
    expect(describeBudget(chooseBudget(unset, hosted('gpt-4.1')))).toBe(
      `context budget ${MAX_DEFAULT_BUDGET_CHARS.toLocaleString('en-US')} characters: ` +
        `${Math.round(WINDOW_SHARE * 100)}% of gpt-4.1's 1,047,576-token window, capped`,
    );
    expect(describeBudget(chooseBudget(unset, undefined))).toBe(
      'context budget 18,000 characters: no provider configured; the default',
    );
    expect(describeBudget(chooseBudget(unset, hosted('mystery')))).toMatch(
      /^context budget [\d,]+ characters: mystery's window is unknown; the default for a hosted model$/,
    );
  });
});

describe("the provider's model listing", () => {
  let server: ProviderServer;
  let home: string;
  beforeAll(async () => {
    server = await startProviderServer({
      apiKey: 'k',
      models: ['wide-model', 'plain-model'],
      windows: { 'wide-model': 200_000 },
    });
  });
  afterAll(async () => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'clawcode-windows-'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  const at = (model: string, provider: ProviderConfig['provider'] = 'openai'): ProviderConfig => ({
    provider,
    name: provider,
    model,
    apiKey: 'k',
    baseURL: provider === 'openai' ? `${server.url}/v1` : server.url,
  });

  it('gives the window an OpenAI-compatible, Anthropic or Gemini service reports, and caches it', async () => {
    expect(await listedWindow(at('wide-model'), { home, save: true })).toBe(200_000);
    expect(await listedWindow(at('wide-model', 'anthropic'), { home, save: true })).toBe(200_000);
    expect(await listedWindow(at('wide-model', 'gemini'), { home, save: true })).toBe(200_000);
    const asked = server.requests.length;
    expect(await listedWindow(at('wide-model'), { home, save: true })).toBe(200_000);
    expect(server.requests.length).toBe(asked);
    const cached = JSON.parse(readFileSync(join(home, 'model-windows.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(cached)).toHaveLength(3);
  });

  it('remembers that a model has no window for a day, then asks again', async () => {
    const now = Date.UTC(2026, 0, 1);
    expect(await listedWindow(at('plain-model'), { home, save: true, now })).toBeUndefined();
    const asked = server.requests.length;
    expect(await listedWindow(at('plain-model'), { home, save: true, now: now + 3600_000 })).toBeUndefined();
    expect(server.requests.length).toBe(asked);
    await listedWindow(at('plain-model'), { home, save: true, now: now + 25 * 3600_000 });
    expect(server.requests.length).toBe(asked + 1);
  });

  it('leaves no trace when asked not to save, and survives a damaged cache', async () => {
    writeFileSync(join(home, 'model-windows.json'), '{not json');
    expect(await listedWindow(at('wide-model'), { home, save: false })).toBe(200_000);
    expect(readFileSync(join(home, 'model-windows.json'), 'utf8')).toBe('{not json');
  });

  it('is asked only when no budget is set and the table does not know the model', async () => {
    const set = await resolveBudget({ chars: 9000, layer: 'env', where: 'CLAWCODE_BUDGET' }, at('wide-model'), {
      home,
      save: true,
    });
    expect(set.chars).toBe(9000);
    expect((await resolveBudget(unset, { ...at('gpt-4o'), baseURL: server.url }, { home, save: true })).chars).toBe(
      budgetForWindow(128_000).chars,
    );
    expect(server.requests).toHaveLength(0);
    expect((await resolveBudget(unset, at('wide-model'), { home, save: true })).chars).toBe(
      budgetForWindow(200_000).chars,
    );
    expect(server.requests).toHaveLength(1);
  });

  it('falls back to the unknown-model default when the service cannot be reached', async () => {
    const gone = { ...at('wide-model'), baseURL: 'http://127.0.0.1:9/v1' };
    expect((await resolveBudget(unset, gone, { home, save: true })).source).toEqual({
      kind: 'unknown',
      model: 'wide-model',
      local: true,
    });
  });
});
