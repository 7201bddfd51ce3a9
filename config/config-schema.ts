import { z } from 'zod';

// Loose objects: keys this version does not know (e.g. `settings`, owned by config/settings.ts) are kept, so a
// rewrite by `clawcode config` never drops them.
const entrySchema = z.looseObject({
  provider: z.enum(['openai', 'azure', 'groq', 'gemini', 'anthropic']),
  preset: z.enum(['ollama', 'lmstudio', 'llamacpp', 'vllm', 'openrouter', 'deepseek', 'mistral']).optional(),
  model: z.string().optional(),
  apiKey: z.string().optional(),
  baseURL: z.string().optional(),
  endpoint: z.string().optional(),
  deployment: z.string().optional(),
  apiVersion: z.string().optional(),
  jsonMode: z.enum(['json_schema', 'json_object', 'prompt']).optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxOutputTokens: z.number().int().positive().optional(),
});

/** The shape of `$CLAWCODE_HOME/config.json`, checked by `readConfig` (config/config.ts). */
export const configSchema = z.looseObject({
  defaultProvider: z.string().optional(),
  providers: z.record(z.string(), entrySchema).default({}),
  prices: z
    .record(z.string(), z.object({ input: z.number().nonnegative(), output: z.number().nonnegative() }))
    .optional(),
});
