import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { cleanEnv } from './fixture.js';
import { startProviderServer, type ProviderServer } from './provider-server.js';

/** One replace patch as a model writes it (the options it leaves unused set to null). */
export function replacePatch(file: string, find: string, replace: string) {
  return { file, operation: 'replace', find, replace, replace_all: null, occurrence: null };
}

/** A plan of `patches` with the other fields minimal, or as `extra` gives them. */
export function planOf(patches: unknown[], extra: Record<string, unknown> = {}) {
  return { analysis: 'x', files_to_edit: [], patches, commands: [], agent_notes: [], ...extra };
}

/**
 * Hooks for end-to-end files that run the built CLI against one loopback provider server (key `sk-test-e2e`,
 * started for the file, closed after it). Call at the top level of a test file.
 *
 * @returns the server (use it inside tests and hooks) and `freshEnv()`: a CLI environment with its own temp
 *          CLAWCODE_HOME pointing the openai provider at the server
 */
export function useCliProvider(): { readonly server: ProviderServer; freshEnv(): Promise<NodeJS.ProcessEnv> } {
  let server: ProviderServer | undefined;
  beforeAll(async () => {
    server = await startProviderServer({ apiKey: 'sk-test-e2e' });
  });
  afterAll(async () => {
    await server?.close();
  });
  const ready = (): ProviderServer => {
    if (!server) throw new Error('the loopback provider server starts in beforeAll; use it inside tests');
    return server;
  };
  return {
    get server() {
      return ready();
    },
    async freshEnv() {
      const home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
      return cleanEnv({ CLAWCODE_HOME: home, OPENAI_API_KEY: 'sk-test-e2e', OPENAI_BASE_URL: `${ready().url}/v1` });
    },
  };
}
