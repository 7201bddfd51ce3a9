import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../support/fixture.js';
import { replies, startProviderServer, type ProviderServer } from '../support/provider-server.js';

// `--files` and `@path` through the built CLI: pinned files come first in what is sent.

let server: ProviderServer;
let project: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startProviderServer({ apiKey: 'k' });
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  server.reset();
  project = await mkdtemp(join(tmpdir(), 'clawcode-pins-'));
  const files: Record<string, string> = {
    'src/retry.js': 'export function retryDelay(attempt) {\n  return 2 ** attempt * 100;\n}\n',
    'src/colors.js': 'export const palette = ["red", "green"];\n',
    'lib/notes.txt': 'nothing about delays here\n',
    '.env': 'OPENAI_API_KEY=sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX1234567890\n',
  };
  for (const [p, t] of Object.entries(files)) {
    await mkdir(join(project, p, '..'), { recursive: true });
    await writeFile(join(project, p), t);
  }
  env = cleanEnv({
    CLAWCODE_HOME: await mkdtemp(join(tmpdir(), 'clawcode-home-')),
    OPENAI_API_KEY: 'k',
    OPENAI_BASE_URL: `${server.url}/v1`,
  });
});

describe('pinned files', () => {
  it('clawcode context --files puts the pinned file first, whole', async () => {
    const r = await runCli(
      ['context', 'make the retry delay shorter', '--dir', project, '--json', '--files', 'src/colors.js'],
      { env },
    );
    expect(r.code).toBe(0);
    const files = JSON.parse(r.stdout).files as { path: string; ranges: unknown }[];
    expect(files[0]).toMatchObject({ path: 'src/colors.js', ranges: null });
    expect(files.map((f) => f.path)).toContain('src/retry.js');
  });

  it('an @path mention in the task pins that file', async () => {
    const r = await runCli(
      ['context', 'use the palette of @colors.js for the retry delay', '--dir', project, '--json'],
      { env },
    );
    expect(JSON.parse(r.stdout).files[0].path).toBe('src/colors.js');
  });

  it('a pathspec naming a secret or nothing is a usage error (exit 2, one line), before any model call', async () => {
    for (const spec of ['.env', 'src/missing.js', '../outside.js']) {
      const r = await runCli(['fix the delay', '--dir', project, '--provider', 'openai', '--yes', '--files', spec], {
        env,
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`Pinned file "${spec}" matches no file that can be sent.`);
    }
    expect(server.completions()).toHaveLength(0);
  });

  it('the main job sends pinned files first in the request', async () => {
    server.reply(replies.plan({ analysis: 'none', files_to_edit: [], patches: [], commands: [], agent_notes: [] }));
    const r = await runCli(
      [
        'make the retry delay shorter',
        '--dir',
        project,
        '--provider',
        'openai',
        '--yes',
        '--json',
        '--files',
        'lib/*.txt',
      ],
      { env },
    );
    expect(r.code).toBe(0);
    const user = (server.completions()[0]!.body.messages as { role: string; content: string }[]).find(
      (m) => m.role === 'user',
    )!.content;
    const contents = user.slice(user.indexOf('# File contents'));
    expect(contents.indexOf('## lib/notes.txt (whole file)')).toBeGreaterThan(0);
    expect(contents.indexOf('## lib/notes.txt')).toBeLessThan(contents.indexOf('## src/retry.js'));
  });
});
