import { HOSTED_PRESETS } from '../llm/presets.js';
import type { JsonMode, ProviderConfig, ProviderId } from '../llm/types.js';

/**
 * The provider registry: every kind of provider `clawcode config` can add, with the questions it
 * asks (defaults, masking), the env vars that stand in for each field, and the default model.
 * Local-server and hosted presets are OpenAI-compatible (`provider: "openai"` with a `preset`).
 * Sources for the preset defaults: the Ollama, LM Studio, llama.cpp and vLLM docs.
 */

/** A config field a prompt can fill. */
export type EntryField = 'apiKey' | 'baseURL' | 'model' | 'endpoint' | 'deployment' | 'apiVersion';

/** One guided question of `clawcode config add`. */
export interface FieldPrompt {
  field: EntryField;
  message: string;
  /** Pre-filled answer. */
  default?: string;
  /** Typed text is masked (keys). */
  mask?: boolean;
  /** An empty answer is refused. */
  required?: boolean;
  /** Env var whose value is offered as the default (never shown for masked fields). */
  env?: string;
}

/** Registry kinds: the backends plus the OpenAI-compatible presets and a custom server. */
export type RegistryId = ProviderId | NonNullable<ProviderConfig['preset']> | 'openai-compatible';

/** A kind of provider that can be added. */
export interface RegistryEntry {
  id: RegistryId;
  label: string;
  /** The client that speaks to it. */
  provider: ProviderId;
  preset?: ProviderConfig['preset'];
  defaultModel?: string;
  defaultBaseURL?: string;
  jsonMode?: JsonMode;
  /** Env var holding the key, named in errors and onboarding. */
  keyEnv?: string;
  prompts: FieldPrompt[];
}

/** A hosted OpenAI-compatible service (llm/presets.ts) as a registry kind: key, then model. */
function hostedPreset(id: 'openrouter' | 'deepseek' | 'mistral', label: string): RegistryEntry {
  const preset = HOSTED_PRESETS[id]!;
  return {
    id,
    label,
    provider: 'openai',
    preset: id,
    defaultModel: preset.defaultModel,
    defaultBaseURL: preset.baseURL,
    jsonMode: preset.jsonMode,
    keyEnv: preset.keyEnv,
    prompts: [
      { field: 'apiKey', message: `${label} API key`, mask: true, required: true, env: preset.keyEnv },
      { field: 'model', message: 'Model', default: preset.defaultModel },
    ],
  };
}

/** Every provider kind, in the order onboarding lists them. */
export const PROVIDER_REGISTRY: readonly RegistryEntry[] = [
  {
    id: 'openai',
    label: 'OpenAI',
    provider: 'openai',
    defaultModel: 'gpt-4o-mini',
    keyEnv: 'OPENAI_API_KEY',
    prompts: [
      { field: 'apiKey', message: 'OpenAI API key', mask: true, required: true, env: 'OPENAI_API_KEY' },
      { field: 'model', message: 'Model', default: 'gpt-4o-mini' },
    ],
  },
  {
    id: 'azure',
    label: 'Azure OpenAI',
    provider: 'azure',
    keyEnv: 'AZURE_OPENAI_API_KEY',
    prompts: [
      {
        field: 'endpoint',
        message: 'Endpoint (https://<resource>.openai.azure.com)',
        required: true,
        env: 'AZURE_OPENAI_ENDPOINT',
      },
      { field: 'apiKey', message: 'API key', mask: true, required: true, env: 'AZURE_OPENAI_API_KEY' },
      { field: 'deployment', message: 'Deployment name', required: true, env: 'AZURE_OPENAI_DEPLOYMENT' },
      {
        field: 'apiVersion',
        message: 'API version ("v1" for the v1 API)',
        default: '2024-10-21',
        env: 'OPENAI_API_VERSION',
      },
    ],
  },
  {
    id: 'groq',
    label: 'Groq',
    provider: 'groq',
    defaultModel: 'llama-3.3-70b-versatile',
    keyEnv: 'GROQ_API_KEY',
    prompts: [
      { field: 'apiKey', message: 'Groq API key', mask: true, required: true, env: 'GROQ_API_KEY' },
      { field: 'model', message: 'Model', default: 'llama-3.3-70b-versatile' },
    ],
  },
  {
    id: 'gemini',
    label: 'Google Gemini',
    provider: 'gemini',
    defaultModel: 'gemini-2.5-flash',
    keyEnv: 'GEMINI_API_KEY',
    prompts: [
      { field: 'apiKey', message: 'Gemini API key', mask: true, required: true, env: 'GEMINI_API_KEY' },
      { field: 'model', message: 'Model', default: 'gemini-2.5-flash' },
    ],
  },
  {
    id: 'anthropic',
    label: 'Anthropic (Claude)',
    provider: 'anthropic',
    defaultModel: 'claude-sonnet-4-6',
    keyEnv: 'ANTHROPIC_API_KEY',
    prompts: [
      { field: 'apiKey', message: 'Anthropic API key', mask: true, required: true, env: 'ANTHROPIC_API_KEY' },
      { field: 'model', message: 'Model', default: 'claude-sonnet-4-6' },
    ],
  },
  hostedPreset('openrouter', 'OpenRouter'),
  hostedPreset('deepseek', 'DeepSeek'),
  hostedPreset('mistral', 'Mistral'),
  {
    id: 'ollama',
    label: 'Ollama (local)',
    provider: 'openai',
    preset: 'ollama',
    defaultModel: 'qwen2.5-coder',
    defaultBaseURL: 'http://localhost:11434/v1',
    jsonMode: 'json_schema',
    prompts: [
      { field: 'baseURL', message: 'Server URL', default: 'http://localhost:11434/v1' },
      { field: 'model', message: 'Model (as in `ollama list`)', default: 'qwen2.5-coder', required: true },
    ],
  },
  {
    id: 'lmstudio',
    label: 'LM Studio (local)',
    provider: 'openai',
    preset: 'lmstudio',
    defaultBaseURL: 'http://localhost:1234/v1',
    jsonMode: 'json_schema',
    prompts: [
      { field: 'baseURL', message: 'Server URL', default: 'http://localhost:1234/v1' },
      { field: 'model', message: 'Model id (as LM Studio shows it)', required: true },
    ],
  },
  {
    id: 'llamacpp',
    label: 'llama.cpp server (local)',
    provider: 'openai',
    preset: 'llamacpp',
    defaultModel: 'local',
    defaultBaseURL: 'http://localhost:8080/v1',
    jsonMode: 'json_schema',
    prompts: [
      { field: 'baseURL', message: 'Server URL', default: 'http://localhost:8080/v1' },
      { field: 'model', message: 'Model name (llama-server serves one model; any name works)', default: 'local' },
    ],
  },
  {
    id: 'vllm',
    label: 'vLLM server',
    provider: 'openai',
    preset: 'vllm',
    defaultBaseURL: 'http://localhost:8000/v1',
    jsonMode: 'json_schema',
    prompts: [
      { field: 'baseURL', message: 'Server URL', default: 'http://localhost:8000/v1' },
      { field: 'apiKey', message: 'API key (empty if the server has none)', mask: true },
      { field: 'model', message: 'Model (as served)', required: true },
    ],
  },
  {
    id: 'openai-compatible',
    label: 'Other OpenAI-compatible server',
    provider: 'openai',
    prompts: [
      { field: 'baseURL', message: 'Base URL (ending in /v1)', required: true },
      { field: 'apiKey', message: 'API key (empty if none)', mask: true },
      { field: 'model', message: 'Model', required: true },
    ],
  },
];

/** Look up a registry kind by id (a provider id or preset name). */
export function findRegistryEntry(id: string): RegistryEntry | undefined {
  return PROVIDER_REGISTRY.find((entry) => entry.id === id);
}

/** Default model of a backend or preset, when it has one. */
export function defaultModelFor(provider: ProviderId, preset?: ProviderConfig['preset']): string | undefined {
  return findRegistryEntry(preset ?? provider)?.defaultModel;
}
