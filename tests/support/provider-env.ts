import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, vi } from 'vitest';
import { startProviderServer, type ProviderServer, type ProviderServerOptions } from './provider-server.js';

/** Env var prefixes the provider SDKs read on their own; scrubbed so tests see only what they set. */
export const PROVIDER_ENV_PREFIXES = [
  'OPENAI_',
  'AZURE_OPENAI_',
  'GROQ_',
  'GEMINI_',
  'GOOGLE_',
  'ANTHROPIC_',
  'OPENROUTER_',
  'DEEPSEEK_',
  'MISTRAL_',
  'CLAWCODE_',
];

/**
 * Give the current test a temp CLAWCODE_HOME and an environment without provider variables
 * (via vi.stubEnv, undone by `unstubEnvs: true`). Call in beforeEach.
 *
 * @returns the temp home folder and a cleanup that removes it
 */
export function isolateProviderEnv(): { home: string; cleanup: () => void } {
  for (const name of Object.keys(process.env)) {
    if (PROVIDER_ENV_PREFIXES.some((prefix) => name.startsWith(prefix))) vi.stubEnv(name, undefined);
  }
  const home = mkdtempSync(join(tmpdir(), 'clawcode-home-'));
  vi.stubEnv('CLAWCODE_HOME', home);
  return { home, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

/** A small valid plan. */
export const SAMPLE_PLAN = {
  analysis: 'Add a greeting.',
  files_to_edit: [{ path: 'src/a.ts', reason: 'the greeting lives here' }],
  patches: [
    {
      file: 'src/a.ts',
      operation: 'replace',
      find: 'hello',
      replace: 'hello world',
      replace_all: null,
      occurrence: null,
    },
  ],
  commands: [],
  agent_notes: [],
};

/** A codemod rule as a plan holds it (every field present, as structured output sends it). */
export const SAMPLE_RULE = {
  file: 'src/**/*.ts',
  operation: 'rewrite',
  find: 'getUser($ID)',
  replace: 'fetchUser($ID, { cache: true })',
  replace_all: null,
  occurrence: null,
};

/**
 * The hooks every provider-client test file needs: one loopback server for the file (reset before each
 * test, closed after the file) and an isolated environment per test. Call at the top level of a file.
 *
 * @returns the server; its members may be used inside tests and hooks (it starts in beforeAll)
 */
export function useLoopbackProvider(options: ProviderServerOptions = {}): ProviderServer {
  let started: ProviderServer | undefined;
  let cleanup = (): void => undefined;
  const server = (): ProviderServer => {
    if (!started) throw new Error('the loopback provider server starts in beforeAll; use it inside tests');
    return started;
  };
  beforeAll(async () => {
    started = await startProviderServer(options);
  });
  afterAll(async () => {
    await started?.close();
  });
  beforeEach(() => {
    cleanup = isolateProviderEnv().cleanup;
    server().reset();
  });
  afterEach(() => cleanup());
  return {
    get url() {
      return server().url;
    },
    get requests() {
      return server().requests;
    },
    reply: (...replies) => server().reply(...replies),
    setFallback: (reply) => server().setFallback(reply),
    completions: () => server().completions(),
    reset: () => server().reset(),
    close: () => server().close(),
  };
}
