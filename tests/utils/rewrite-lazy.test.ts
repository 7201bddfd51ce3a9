import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'clawcode-rewrite-lazy-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const url = (p: string) => JSON.stringify(pathToFileURL(join(root, p)).href);

/**
 * The @ast-grep packages a fresh Node process has loaded after running `script`: the engine loads them
 * with `require`, so the CommonJS module cache (shared by every `createRequire`) is what tells.
 */
async function astGrepLoadedBy(script: string): Promise<string[]> {
  const main = join(dir, 'main.mts');
  writeFileSync(
    main,
    `import { createRequire } from 'node:module';
${script}
const loaded = Object.keys(createRequire(import.meta.url).cache)
  .map((p) => /node_modules\\/(@ast-grep\\/[^/]+)\\//.exec(p)?.[1])
  .filter((p) => p !== undefined);
console.log(JSON.stringify([...new Set(loaded)].sort()));
`,
  );
  const { stdout } = await run(process.execPath, ['--import', 'tsx', main], {
    cwd: root,
    env: { ...process.env, CLAWCODE_HOME: dir },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as string[];
}

/** A script rewriting one in-memory file `path` holding the line `line` with the rule `find` → `f($A)`. */
const rewriteScript = (path: string, line: string, find: string): string => `
const { rewriteFile } = await import(${url('utils/patch/rewrite.ts')});
const r = rewriteFile({ path: '${path}', content: '${line}\\n', find: '${find}', replace: 'f($A)' });
if (!r.ok) throw new Error(r.message);
`;

describe('lazy rewrite engine', () => {
  it('loads nothing of ast-grep for a plan without rules; a rule loads the engine, a Python file its grammar', async () => {
    const project = join(dir, 'p');
    expect(
      await astGrepLoadedBy(`
const { preparePlan } = await import(${url('agent/prepare.ts')});
await import(${url('utils/patch/rewrite.ts')});
await import(${url('utils/patch.ts')});
const { mkdirSync, writeFileSync } = await import('node:fs');
mkdirSync(${JSON.stringify(project)}, { recursive: true });
writeFileSync(${JSON.stringify(join(project, 'a.ts'))}, 'getUser(1);\\n');
const plan = { analysis: '', files_to_edit: [], commands: [], agent_notes: [],
  patches: [{ file: 'a.ts', operation: 'replace', find: 'getUser(1)', replace: 'fetchUser(1)' }] };
const prepared = await preparePlan(${JSON.stringify(project)}, plan);
if (!prepared.ok) throw new Error('plan did not apply');
`),
    ).toEqual([]);
    const typescript = await astGrepLoadedBy(rewriteScript('a.ts', 'getUser(1);', 'getUser($A)'));
    expect(typescript).toContain('@ast-grep/napi');
    expect(typescript.filter((p) => p.startsWith('@ast-grep/lang-'))).toEqual([]);
    const python = await astGrepLoadedBy(rewriteScript('a.py', 'get_user(1)', 'get_user($A)'));
    expect(python).toContain('@ast-grep/lang-python');
    expect(python).toContain('@ast-grep/napi');
  }, 60_000);
});
