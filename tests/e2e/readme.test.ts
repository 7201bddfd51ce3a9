import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, REPO_ROOT } from '../support/fixture.js';
import { replies, startProviderServer, type ProviderServer } from '../support/provider-server.js';
import { spawnPty } from '../support/pty.js';

// The README's "two commands" are a contract: the first snippet, run as written in a terminal on a
// machine with only the README's variables set, gets to a written change that `undo` takes back.
// `npm ci && npm run build` is the one line not re-run here (the suite runs on a built checkout).

let server: ProviderServer;
beforeAll(async () => {
  server = await startProviderServer({ apiKey: 'sk-readme' });
});
afterAll(async () => server.close());

async function readmeSnippets(): Promise<string[][]> {
  const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('## The two commands'),
    readme.indexOf('\n## ', readme.indexOf('## The two commands') + 5),
  );
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim().split('\n'));
}

describe('README', () => {
  it(
    'the first snippet, run as written in a terminal, writes the change; the undo it names restores it',
    { timeout: 90_000 },
    async () => {
      const [install, tests] = await readmeSnippets();
      expect(tests).toEqual(['npm test']);
      const exported = install!.filter((l) => l.startsWith('export ')).map((l) => l.slice(7).split('=')[0]);
      expect(exported).toEqual(['OPENAI_API_KEY']);
      expect(install).toContain('npm ci && npm run build');
      const script = install!.filter((l) => !l.startsWith('export ') && l !== 'npm ci && npm run build').join('\n');

      const home = await mkdtemp(join(tmpdir(), 'clawcode-readme-home-'));
      // The variables the README asks for (the key, and OPENAI_BASE_URL for another OpenAI-compatible server).
      const env = cleanEnv({
        HOME: home,
        CLAWCODE_HOME: undefined,
        OPENAI_API_KEY: 'sk-readme',
        OPENAI_BASE_URL: `${server.url}/v1`,
      });
      server.reply(
        replies.plan({
          analysis: 'Say hello.',
          files_to_edit: [{ path: 'greet.js', reason: 'the greeting' }],
          patches: [
            {
              file: 'greet.js',
              operation: 'replace',
              find: '"hi "',
              replace: '"hello "',
              replace_all: null,
              occurrence: null,
            },
          ],
          commands: [],
          agent_notes: [],
        }),
      );
      const run = spawnPty('bash', ['-c', script], { cwd: REPO_ROOT, env, rows: 40 });
      try {
        await run.waitFor('Apply these changes to 1 file?');
        run.mark();
        run.write('y\r');
        await run.waitFor('What next?');
        run.write('\r');
        expect(await run.exitCode()).toBe(0);
      } finally {
        run.kill();
      }
      const demo = join(home, 'clawcode-demo', 'greet.js');
      expect(await readFile(demo, 'utf8')).toBe('export function greet(name) {\n  return "hello " + name;\n}\n');
      expect(server.completions()).toHaveLength(1);

      const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
      const undoLine = /`(node dist\/cli\.js undo --dir ~\/clawcode-demo)`/.exec(readme)?.[1];
      expect(undoLine).toBeDefined();
      const undo = spawnPty('bash', ['-c', undoLine!], { cwd: REPO_ROOT, env, rows: 40 });
      try {
        await undo.waitFor('Undo 1 file?');
        undo.write('y\r');
        expect(await undo.exitCode()).toBe(0);
      } finally {
        undo.kill();
      }
      expect(await readFile(demo, 'utf8')).toBe('export function greet(name) {\n  return "hi " + name;\n}\n');
    },
  );
});
