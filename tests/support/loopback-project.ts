import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { cleanEnv } from './fixture.js';
import { startProviderServer, type ProviderServer } from './provider-server.js';

/** What `useLoopbackProject` gives a test file; members are valid inside tests (set up in the hooks). */
export interface LoopbackProject {
  /** The loopback provider (key `k`), one per file, reset before each test. */
  readonly server: ProviderServer;
  /** This test's project folder, holding the files given. */
  readonly project: string;
  /** This test's CLAWCODE_HOME. */
  readonly home: string;
  /** This test's environment for the CLI: cleanEnv, the home, the provider at the loopback server. */
  readonly env: NodeJS.ProcessEnv;
}

/**
 * Hooks for end-to-end test files that run the built CLI without a terminal: a loopback provider for the file,
 * and per test a fresh temp project with `files` (path → text), a fresh CLAWCODE_HOME and the environment that
 * points the openai provider at the server. Call at the top level of a test file.
 */
export function useLoopbackProject(options: { prefix: string; files: Record<string, string> }): LoopbackProject {
  let server: ProviderServer | undefined;
  let project = '';
  let home = '';
  let env: NodeJS.ProcessEnv = {};
  beforeAll(async () => {
    server = await startProviderServer({ apiKey: 'k' });
  });
  afterAll(async () => server?.close());
  beforeEach(async () => {
    server!.reset();
    project = await mkdtemp(join(tmpdir(), options.prefix));
    home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
    for (const [path, text] of Object.entries(options.files)) {
      await mkdir(dirname(join(project, path)), { recursive: true });
      await writeFile(join(project, path), text);
    }
    env = cleanEnv({ CLAWCODE_HOME: home, OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${server!.url}/v1` });
  });
  return {
    get server() {
      return server!;
    },
    get project() {
      return project;
    },
    get home() {
      return home;
    },
    get env() {
      return env;
    },
  };
}
