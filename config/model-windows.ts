import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProviderConfig } from '../llm/types.js';
import { chooseBudget, contextWindowTokens, type BudgetChoice } from './model-budget.js';
import { clawcodeHome } from './paths.js';
import type { ResolvedSettings } from './settings.js';
import { makeDirsSync } from '../utils/make-dirs.js';

/**
 * Context windows of models the table does not know, as their provider's model listing reports them,
 * cached under the clawcode home (`model-windows.json`), so a run asks the service at most once a
 * month per model (once a day when it reported none).
 */

/** How long a reported window is trusted, and how long "reports none" is, in ms. */
const HIT_TTL_MS = 30 * 24 * 3600 * 1000;
const MISS_TTL_MS = 24 * 3600 * 1000;
/** The listing is a convenience: a slow service must not hold a run for long. */
const LOOKUP_TIMEOUT_MS = 5_000;

type CacheEntry = { tokens: number | null; at: number };

/** Options of {@link listedWindow}. */
export interface ListedWindowOptions {
  /** the clawcode home holding the cache */
  home: string;
  /** write what was learned to the cache (false: read it only, as `--print-prompt` does) */
  save: boolean;
  /** the clock, in ms since the epoch (tests) */
  now?: number;
  /** asks the service (default: the provider module's `contextWindow`) */
  ask?: (provider: ProviderConfig) => Promise<number | undefined>;
}

function cacheKey(p: ProviderConfig): string {
  return [p.provider, p.baseURL ?? p.endpoint ?? '', p.model].join(' ');
}

function readCache(path: string): Record<string, CacheEntry> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, CacheEntry>) : {};
  } catch {
    return {};
  }
}

async function askProvider(provider: ProviderConfig): Promise<number | undefined> {
  // Loaded only when a lookup happens: `clawcode context` otherwise loads no provider code.
  const { CLIENT_MODULES } = await import('../llm/provider.js');
  const module = await CLIENT_MODULES[provider.provider]();
  return module.contextWindow?.(provider, { timeoutMs: LOOKUP_TIMEOUT_MS });
}

/**
 * The context window in tokens the provider's model listing reports for its model: from the cache
 * while fresh, else asked once (within LOOKUP_TIMEOUT_MS) and cached.
 *
 * @returns tokens, or undefined when the service reports none or cannot be asked
 * @throws never: a missing, damaged or unwritable cache only costs a lookup
 */
export async function listedWindow(
  provider: ProviderConfig,
  options: ListedWindowOptions,
): Promise<number | undefined> {
  const path = join(options.home, 'model-windows.json');
  const now = options.now ?? Date.now();
  const cache = readCache(path);
  const key = cacheKey(provider);
  const hit = cache[key];
  if (hit && (typeof hit.tokens === 'number' || hit.tokens === null) && typeof hit.at === 'number') {
    const fresh = now - hit.at < (hit.tokens === null ? MISS_TTL_MS : HIT_TTL_MS);
    if (fresh) return hit.tokens ?? undefined;
  }
  const tokens = await (options.ask ?? askProvider)(provider).catch(() => undefined);
  if (options.save) {
    try {
      makeDirsSync(options.home, 0o700);
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify({ ...cache, [key]: { tokens: tokens ?? null, at: now } })}\n`, {
        mode: 0o600,
      });
      renameSync(tmp, path);
    } catch {
      // read-only home: the next run asks again
    }
  }
  return tokens;
}

/**
 * The budget a run uses (see `chooseBudget`): the setting when one is set, else the model's
 * default, asking the provider's model listing for the window only when the table has none.
 *
 * @param setting   the `budgetChars` setting, its layer and where in it
 * @param provider  the provider the run would use, or undefined when none is configured
 */
export async function resolveBudget(
  setting: { chars: number; layer: string; where: string },
  provider: ProviderConfig | undefined,
  options: ListedWindowOptions,
): Promise<BudgetChoice> {
  const ask =
    setting.layer === 'default' && provider !== undefined && contextWindowTokens(provider.model) === undefined;
  return chooseBudget(setting, provider, ask ? await listedWindow(provider, options) : undefined);
}

/**
 * The budget a run with these settings and this provider uses (`resolveBudget` of the `budgetChars`
 * setting), the model listing's cache in the clawcode home of `env`.
 *
 * @param provider  the provider the run uses; undefined when none is configured (previews)
 * @param save      cache what the model listing says (false leaves no trace under the home)
 */
export function budgetForRun(
  settings: Pick<ResolvedSettings, 'values' | 'sources'>,
  provider: ProviderConfig | undefined,
  save: boolean,
  env: NodeJS.ProcessEnv = process.env,
): Promise<BudgetChoice> {
  const source = settings.sources.budgetChars;
  return resolveBudget({ chars: settings.values.budgetChars, layer: source.layer, where: source.where }, provider, {
    home: clawcodeHome(env),
    save,
  });
}
