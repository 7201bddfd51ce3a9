import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { cleanEnv, runCli } from './fixture.js';
import { planOf } from './plans.js';
import { replies, startProviderServer, type ProviderServer } from './provider-server.js';

/** The API key the end-to-end loopback provider expects (give it to other providers' variables too). */
export const LOOPBACK_KEY = 'sk-test-e2e';

/**
 * Hooks for end-to-end files that run the built CLI against one loopback provider server (key
 * {@link LOOPBACK_KEY}, started for the file, closed after it). Call at the top level of a test file.
 *
 * @returns the server (use it inside tests and hooks) and `freshEnv()`: a CLI environment with its own temp
 *          CLAWCODE_HOME pointing the openai provider at the server
 */
export function useCliProvider(): { readonly server: ProviderServer; freshEnv(): Promise<NodeJS.ProcessEnv> } {
  let server: ProviderServer | undefined;
  beforeAll(async () => {
    server = await startProviderServer({ apiKey: LOOPBACK_KEY });
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
      return cleanEnv({ CLAWCODE_HOME: home, OPENAI_API_KEY: LOOPBACK_KEY, OPENAI_BASE_URL: `${ready().url}/v1` });
    },
  };
}

/** What `useLoopbackProject` gives a test file; members are valid inside tests (set up in the hooks). */
export interface LoopbackProject {
  /** The loopback provider, one per file, reset before each test. */
  readonly server: ProviderServer;
  /** This test's project folder, holding the files given. */
  readonly project: string;
  /** This test's CLAWCODE_HOME. */
  readonly home: string;
  /** This test's environment for the CLI: cleanEnv, the home, the provider at the loopback server. */
  readonly env: NodeJS.ProcessEnv;
}

/**
 * Hooks for end-to-end test files that run the built CLI without a terminal: {@link useCliProvider}, and per
 * test the server reset, a fresh temp project with `files` (path → text) and a fresh environment. Call at the
 * top level of a test file.
 */
export function useLoopbackProject(options: { prefix: string; files: Record<string, string> }): LoopbackProject {
  const cli = useCliProvider();
  let project = '';
  let env: NodeJS.ProcessEnv = {};
  beforeEach(async () => {
    cli.server.reset();
    project = await mkdtemp(join(tmpdir(), options.prefix));
    for (const [path, text] of Object.entries(options.files)) {
      await mkdir(dirname(join(project, path)), { recursive: true });
      await writeFile(join(project, path), text);
    }
    env = await cli.freshEnv();
  });
  return {
    get server() {
      return cli.server;
    },
    get project() {
      return project;
    },
    get home() {
      return env.CLAWCODE_HOME!;
    },
    get env() {
      return env;
    },
  };
}

/**
 * Every string of every request body `server` received (the JSON walked, keys left out), one text per request:
 * what a test searches for bytes that must never leave.
 */
export function requestTexts(server: ProviderServer): string[] {
  const strings = (value: unknown): string[] =>
    typeof value === 'string'
      ? [value]
      : Array.isArray(value)
        ? value.flatMap(strings)
        : value && typeof value === 'object'
          ? Object.values(value).flatMap(strings)
          : [];
  return server.requests.map((r) => strings(r.body).join('\n'));
}

/**
 * Run one task with `args` (task, pins…) in the project through the built CLI, the loopback provider answering an
 * empty plan, and expect exit 0 and exactly one request.
 *
 * @param env  the CLI environment (default the project's)
 * @returns the text of that one plan request (see requestTexts)
 */
export async function planRequestText(
  project: LoopbackProject,
  args: string[],
  env: NodeJS.ProcessEnv = project.env,
): Promise<string> {
  project.server.reply(replies.plan(planOf([])));
  const result = await runCli([...args, '--dir', project.project, '--yes', '--provider', 'openai'], { env });
  expect(result.code, result.stderr).toBe(0);
  const texts = requestTexts(project.server);
  expect(texts).toHaveLength(1);
  return texts[0]!;
}
