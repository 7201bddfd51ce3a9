import type { JsonMode, OpenAIPreset } from './types.js';

/**
 * Hosted OpenAI-compatible services reached through the openai client: where they live, which key
 * variable they use, extra headers, and the best structured-output mode each documents. The SDK-free
 * table is shared by llm/openai.ts and the provider registry (config/registry.ts).
 * - OpenRouter (openrouter.ai/docs): `/api/v1`; `response_format` json_schema is passed to models that
 *   support it (others answer 400 and the client steps down); `X-Title` names the app in its dashboard.
 * - DeepSeek (api-docs.deepseek.com): JSON Output is `response_format: {type: "json_object"}` only.
 * - Mistral (docs.mistral.ai): `json_schema` (custom structured output) and `json_object`; usage comes
 *   in the last streamed chunk without `stream_options`.
 */
export interface HostedPreset {
  baseURL: string;
  keyEnv: string;
  jsonMode: JsonMode;
  defaultModel: string;
  headers?: Record<string, string>;
}

/** The hosted presets by name. */
export const HOSTED_PRESETS: Readonly<Partial<Record<OpenAIPreset, HostedPreset>>> = {
  openrouter: {
    baseURL: 'https://openrouter.ai/api/v1',
    keyEnv: 'OPENROUTER_API_KEY',
    jsonMode: 'json_schema',
    defaultModel: 'openai/gpt-4.1-mini',
    headers: { 'X-Title': 'clawcode' },
  },
  deepseek: {
    baseURL: 'https://api.deepseek.com/v1',
    keyEnv: 'DEEPSEEK_API_KEY',
    jsonMode: 'json_object',
    defaultModel: 'deepseek-chat',
  },
  mistral: {
    baseURL: 'https://api.mistral.ai/v1',
    keyEnv: 'MISTRAL_API_KEY',
    jsonMode: 'json_schema',
    defaultModel: 'mistral-large-latest',
  },
};
