import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isolateProviderEnv } from '../support/provider-env.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
let dir: string;
let cleanup: () => void;
beforeEach(() => {
  cleanup = isolateProviderEnv().cleanup;
  dir = mkdtempSync(join(tmpdir(), 'clawcode-lazy-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  cleanup();
});

/** SDK packages whose files a fresh Node process loaded while running `script`. */
async function sdksLoadedBy(script: string): Promise<string[]> {
  const log = join(dir, 'loaded.txt');
  writeFileSync(log, '');
  // A module hook (it runs on the loader thread) appends every resolved URL to the log.
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, result.url + '\\n');
  return result;
}`,
  );
  const register = join(dir, 'register.mjs');
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  const main = join(dir, 'main.mts');
  writeFileSync(main, script);
  await run(process.execPath, ['--import', 'tsx', '--import', pathToFileURL(register).href, main], { cwd: root });
  const urls = readFileSync(log, 'utf8');
  return ['openai', 'groq-sdk', '@google/genai', '@anthropic-ai/sdk'].filter((pkg) =>
    urls.includes(`/node_modules/${pkg}/`),
  );
}

describe('lazy provider loading', () => {
  it('importing llm/provider.ts loads no SDK; loading one backend loads only its SDK', async () => {
    const provider = pathToFileURL(join(root, 'llm/provider.ts')).href;
    expect(await sdksLoadedBy(`await import(${JSON.stringify(provider)});\n`)).toEqual([]);
    expect(
      await sdksLoadedBy(
        `const { loadProviderModule } = await import(${JSON.stringify(provider)});\nawait loadProviderModule('groq');\n`,
      ),
    ).toEqual(['groq-sdk']);
    expect(
      await sdksLoadedBy(
        `const { loadProviderModule } = await import(${JSON.stringify(provider)});\nawait loadProviderModule('anthropic');\n`,
      ),
    ).toEqual(['@anthropic-ai/sdk']);
  }, 30_000);
});
