/**
 * Types shared by the planning layer: the plan (the one structured output), provider configuration
 * and the provider client interface. Runtime validation of plans lives in `llm/plan-parser.ts`.
 */

// The plan is the domain language of every stage; it is defined on the ground floor (utils/plan.ts).

/**
 * Provider backends. OpenAI-compatible servers (local: ollama, lmstudio, llama.cpp, vllm; hosted:
 * openrouter, deepseek, mistral) use `openai` with a preset.
 */
export type ProviderId = 'openai' | 'azure' | 'groq' | 'gemini' | 'anthropic';

/** OpenAI-compatible presets: local servers, then hosted services. */
export type OpenAIPreset = 'ollama' | 'lmstudio' | 'llamacpp' | 'vllm' | 'openrouter' | 'deepseek' | 'mistral';

/** How structured output is requested: strict JSON schema, JSON mode, or instructions in the prompt only. */
export type JsonMode = 'json_schema' | 'json_object' | 'prompt';

/** A configured provider, resolved from config.json and/or the environment. Keys are never logged. */
export interface ProviderConfig {
  /** Which client speaks to it. */
  provider: ProviderId;
  /** Name of the config entry (e.g. "openai", "ollama", "work-azure"); equals `provider` for env-only setups. */
  name: string;
  /** Model id (for Azure: the deployment name). */
  model: string;
  apiKey?: string;
  /** Base URL override (OpenAI-compatible servers, Groq, Gemini, tests). */
  baseURL?: string;
  /** OpenAI-compatible preset, which sets defaults such as the base URL and json mode. */
  preset?: OpenAIPreset;
  /** Azure only. */
  endpoint?: string;
  deployment?: string;
  apiVersion?: string;
  jsonMode?: JsonMode;
  temperature?: number;
  /** Max output tokens; undefined leaves the provider default. */
  maxOutputTokens?: number;
  /** Where the key came from, for error messages: e.g. "OPENAI_API_KEY" or "config.json providers.openai.apiKey". */
  keySource?: string;
}

/** Token usage of one call. Counts are tokens as reported by the provider. */
export interface Usage {
  /** All input tokens, cached ones included. */
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Input tokens read from the provider's prompt cache (part of `inputTokens`), when reported. */
  cacheReadTokens?: number;
  /** Input tokens written to the provider's prompt cache (part of `inputTokens`), when reported. */
  cacheWriteTokens?: number;
  /** True when the server reported no usage and the counts are estimated from text length. */
  estimated?: boolean;
}

/** One request to a provider client. */
export interface CompletionRequest {
  system: string;
  user: string;
  /** JSON schema of the plan (utils/plan.ts), used for json_schema structured output. */
  jsonSchema: Record<string, unknown>;
  signal?: AbortSignal;
  /** Deadline of this request in ms, from sending it to the reply's last byte. */
  timeoutMs: number;
  /** Called as the streamed reply grows; `chars` is the number of characters received so far. */
  onProgress?: (progress: { chars: number }) => void;
}

/** The raw reply of a provider client: text plus what is known about it. */
export interface ProviderReply {
  text: string;
  usage?: Usage;
  /** Provider's finish reason as given (`stop`, `length`, `MAX_TOKENS`, ...). */
  finishReason?: string;
  /** The model that answered, as reported by the provider (or the requested one). */
  model: string;
}

/** A provider client: one file per backend in `llm/`. Throws `ProviderError` on failure. */
export interface ProviderClient {
  complete(request: CompletionRequest): Promise<ProviderReply>;
}
