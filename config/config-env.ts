import type { ProviderId } from '../llm/types.js';
import type { ProviderEntry } from './config.js';

/**
 * Provider settings from environment variables (`OPENAI_API_KEY`, `AZURE_OPENAI_ENDPOINT`, …), which
 * config.ts uses to fill what a config entry leaves out, or to configure a backend with no entry at all.
 */

/** A value with its whitespace trimmed, or undefined when it is missing or blank. */
export const nonEmpty = (value: string | undefined): string | undefined =>
  value && value.trim() ? value.trim() : undefined;

/**
 * What env vars supply for one backend, and where the key came from.
 *
 * @returns the fields the environment sets (undefined for the others) and `keySource`, the variable
 *          the key was read from
 */
export function fromEnv(provider: ProviderId, env: NodeJS.ProcessEnv): Partial<ProviderEntry> & { keySource?: string } {
  switch (provider) {
    case 'openai': {
      const apiKey = nonEmpty(env.OPENAI_API_KEY);
      return { apiKey, baseURL: nonEmpty(env.OPENAI_BASE_URL), keySource: apiKey ? 'OPENAI_API_KEY' : undefined };
    }
    case 'azure': {
      const apiKey = nonEmpty(env.AZURE_OPENAI_API_KEY);
      return {
        apiKey,
        endpoint: nonEmpty(env.AZURE_OPENAI_ENDPOINT),
        deployment: nonEmpty(env.AZURE_OPENAI_DEPLOYMENT),
        apiVersion: nonEmpty(env.AZURE_OPENAI_API_VERSION) ?? nonEmpty(env.OPENAI_API_VERSION),
        keySource: apiKey ? 'AZURE_OPENAI_API_KEY' : undefined,
      };
    }
    case 'groq': {
      const apiKey = nonEmpty(env.GROQ_API_KEY);
      return { apiKey, baseURL: nonEmpty(env.GROQ_BASE_URL), keySource: apiKey ? 'GROQ_API_KEY' : undefined };
    }
    case 'gemini': {
      const gemini = nonEmpty(env.GEMINI_API_KEY);
      const google = nonEmpty(env.GOOGLE_API_KEY);
      return {
        apiKey: gemini ?? google,
        baseURL: nonEmpty(env.GEMINI_BASE_URL) ?? nonEmpty(env.GOOGLE_GEMINI_BASE_URL),
        keySource: gemini ? 'GEMINI_API_KEY' : google ? 'GOOGLE_API_KEY' : undefined,
      };
    }
    case 'anthropic': {
      const apiKey = nonEmpty(env.ANTHROPIC_API_KEY);
      return { apiKey, baseURL: nonEmpty(env.ANTHROPIC_BASE_URL), keySource: apiKey ? 'ANTHROPIC_API_KEY' : undefined };
    }
  }
}

/** Whether the environment alone configures a backend (the minimum it needs to make a call). */
export function envConfigures(provider: ProviderId, env: NodeJS.ProcessEnv): boolean {
  const e = fromEnv(provider, env);
  if (provider === 'openai') return Boolean(e.apiKey || e.baseURL);
  if (provider === 'azure') return Boolean(e.apiKey && e.endpoint);
  return Boolean(e.apiKey);
}
