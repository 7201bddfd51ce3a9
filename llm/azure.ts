import { AzureOpenAI, OpenAI } from 'openai';
import { ConfigError } from '../utils/errors.js';
import { completeChat, defaultStepDown, type ChatCompletionsApi, type ChatOptions } from './chat-completions.js';
import { errorStatus, isAuthFailure, toProviderError } from './errors-map.js';
import { providerFetch } from './guarded-fetch.js';
import type { CompletionRequest, JsonMode, ProviderClient, ProviderConfig, ProviderReply } from './types.js';

/**
 * Azure OpenAI through the `openai` SDK:
 * - dated API versions use `AzureOpenAI` → `/openai/deployments/<deployment>/chat/completions?api-version=…`
 *   with the `api-key` header. `baseURL: null` is passed because the SDK otherwise picks up
 *   OPENAI_BASE_URL and then throws "baseURL and endpoint are mutually exclusive";
 * - `apiVersion: "v1"` (the v1 API, no api-version) uses the plain `OpenAI` client on
 *   `<endpoint>/openai/v1/`, with the deployment name as the model.
 * json_schema needs api-version 2024-08-01-preview or later (GA 2024-10-21); JSON mode 2023-12-01-preview.
 * Streamed usage comes in a last chunk with empty `choices`, after a first chunk that holds only
 * `prompt_filter_results`, and only when `stream_options.include_usage` is sent. Recorded streams show the
 * service answering it on every api-version it was sent with (2023-03-15-preview, 2024-02-15-preview,
 * 2024-08-01-preview, 2024-12-01-preview, v1), so it is sent on all of them. Before late 2024 the service
 * answered 400 "Unrecognized request argument supplied: stream_options"; a 400 like that switches the
 * option off (llm/chat-completions.ts) and usage is then estimated.
 */

/** API version used when none is configured: the first GA version with json_schema. */
const DEFAULT_AZURE_API_VERSION = '2024-10-21';

/** The structured-output mode an API version supports best. */
export function azureJsonMode(apiVersion: string): JsonMode {
  if (apiVersion === 'v1' || apiVersion === 'preview' || apiVersion === 'latest') return 'json_schema';
  const date = apiVersion.slice(0, 10);
  if (date >= '2024-08-01') return 'json_schema';
  if (date >= '2023-12-01') return 'json_object';
  return 'prompt';
}

interface AzureSetup {
  api: ChatCompletionsApi;
  deployment: string;
  apiVersion: string;
}

function setup(config: ProviderConfig): AzureSetup {
  const endpoint = config.endpoint ?? config.baseURL;
  if (!endpoint)
    throw new ConfigError('No endpoint for Azure OpenAI', {
      hint: 'Set AZURE_OPENAI_ENDPOINT, or run `clawcode config`.',
    });
  if (!config.apiKey)
    throw new ConfigError('No API key for Azure OpenAI', {
      hint: 'Set AZURE_OPENAI_API_KEY, or run `clawcode config`.',
    });
  const deployment = config.deployment ?? config.model;
  if (!deployment)
    throw new ConfigError('No deployment for Azure OpenAI', {
      hint: 'Set AZURE_OPENAI_DEPLOYMENT, or pass --model <deployment>.',
    });
  const apiVersion = config.apiVersion ?? DEFAULT_AZURE_API_VERSION;
  const common = {
    apiKey: config.apiKey,
    maxRetries: 0,
    organization: null,
    project: null,
    fetch: providerFetch(config),
  };
  const api =
    apiVersion === 'v1'
      ? new OpenAI({
          ...common,
          baseURL: `${endpoint.replace(/\/+$/, '')}/openai/v1/`,
          defaultHeaders: { 'api-key': config.apiKey },
        })
      : new AzureOpenAI({ ...common, endpoint, deployment, apiVersion, baseURL: null });
  return { api: api as unknown as ChatCompletionsApi, deployment, apiVersion };
}

/** Output-limit field for an API version: `max_completion_tokens` arrived in 2024-09-01-preview. */
function extraBody(config: ProviderConfig, apiVersion: string): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (config.temperature !== undefined) body.temperature = config.temperature;
  if (config.maxOutputTokens !== undefined) {
    const modern = apiVersion === 'v1' || apiVersion.slice(0, 10) >= '2024-09-01';
    body[modern ? 'max_completion_tokens' : 'max_tokens'] = config.maxOutputTokens;
  }
  return body;
}

/**
 * Build the Azure client.
 *
 * @throws ConfigError when the endpoint, key or deployment is missing
 */
export function createClient(config: ProviderConfig): ProviderClient {
  const { api, deployment, apiVersion } = setup(config);
  const options: ChatOptions = {
    mode: { current: config.jsonMode ?? azureJsonMode(apiVersion) },
    stream: () => true,
    stepDown: defaultStepDown,
    extraBody: extraBody(config, apiVersion),
    model: deployment,
    // Asked on every api-version: usage is in the stream only when asked for (see the note at the top).
    streamUsage: { current: true },
  };
  return {
    complete(request: CompletionRequest): Promise<ProviderReply> {
      return completeChat(api, config, options, request);
    },
  };
}

/**
 * Prove key, endpoint and deployment with a one-token request. A 400 (e.g. a reasoning model that
 * cannot stop after one token) still proves all three, so it counts as success.
 *
 * @throws ProviderError (401 names the key source, 404 the deployment), ConfigError
 */
export async function checkCredentials(
  config: ProviderConfig,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<void> {
  const { api, deployment } = setup(config);
  try {
    await api.chat.completions.create(
      { model: deployment, messages: [{ role: 'user', content: 'Say OK.' }], max_tokens: 1 },
      { signal: options.signal, timeout: options.timeoutMs ?? 15_000, maxRetries: 0 },
    );
  } catch (error) {
    if (errorStatus(error) === 400 && !isAuthFailure(error)) return;
    throw toProviderError(error, { config, model: deployment });
  }
}
