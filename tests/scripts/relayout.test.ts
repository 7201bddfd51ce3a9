import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, gitIn } from '../support/fixture.js';

const SCRIPT = join(REPO_ROOT, 'scripts/relayout.mjs');
const UP2 = '../'.repeat(2);
let repo: string;

beforeEach(async () => {
  repo = await mkdtemp(join(tmpdir(), 'clawcode-relayout-'));
  gitIn(repo, 'init', '-q');
});
afterEach(async () => rm(repo, { recursive: true, force: true }));

async function put(files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(repo, path)), { recursive: true });
    await writeFile(join(repo, path), text);
  }
  gitIn(repo, 'add', '.');
  gitIn(repo, 'commit', '-q', '-m', 'before');
}

const run = () => execFileSync(process.execPath, [SCRIPT], { cwd: repo, encoding: 'utf8' });
const read = (path: string) => readFile(join(repo, path), 'utf8');

describe('scripts/relayout.mjs', () => {
  it('moves the mapped files and their tests, and rewrites every import that points at them', async () => {
    await put({
      'utils/journal.ts':
        "import { a } from './journal-store.js';\nimport { e } from './errors.js';\nexport const j = a + e;\n",
      'utils/journal-store.ts': 'export const a = 1;\n',
      // A file added after the table was written: moved by the prefix rule, its importers rewritten.
      'utils/journal-durable.ts': "export { j } from './journal.js';\n",
      'utils/errors.ts': 'export const e = 2;\n',
      'utils/scanner.ts': "import { e } from './errors.js';\nexport const s = e;\n",
      'agent/context.ts':
        "// scans: utils/scanner.ts\nimport { s } from '../utils/scanner.js';\nexport type T = typeof import('../utils/journal.js');\n",
      // Built, so that running the script on this repository leaves this fixture alone.
      'tests/utils/journal.test.ts': `import { j } from '${UP2}utils/journal.js';\nconst root = new URL('../..', import.meta.url);\nexport { j, root };\n`,
      'tests/agent/context.test.ts': "const fixture = `import x from './a.js'`;\nexport { fixture };\n",
    });
    const out = run();
    expect(out).toContain('git mv utils/journal-durable.ts utils/journal/durable.ts');
    expect(existsSync(join(repo, 'utils/journal.ts'))).toBe(false);
    expect(await read('utils/journal/journal.ts')).toBe(
      "import { a } from './store.js';\nimport { e } from '../errors.js';\nexport const j = a + e;\n",
    );
    expect(await read('utils/journal/durable.ts')).toBe("export { j } from './journal.js';\n");
    expect(await read('agent/context/scan.ts')).toBe(
      "import { e } from '../../utils/errors.js';\nexport const s = e;\n",
    );
    // The context stage's entry moved into its own folder: its imports are rewritten from the new place.
    expect(existsSync(join(repo, 'agent/context.ts'))).toBe(false);
    expect(await read('agent/context/build.ts')).toBe(
      "// scans: agent/context/scan.ts\nimport { s } from './scan.js';\nexport type T = typeof import('../../utils/journal/journal.js');\n",
    );
    expect(await read('tests/utils/journal/journal.test.ts')).toBe(
      "import { j } from '../../../utils/journal/journal.js';\nconst root = new URL('../../..', import.meta.url);\nexport { j, root };\n",
    );
    // Text inside a test fixture that names no repository file is left alone (the test moved with its module).
    expect(await read('tests/agent/context/build.test.ts')).toBe(
      "const fixture = `import x from './a.js'`;\nexport { fixture };\n",
    );
    expect(gitIn(repo, 'status', '--porcelain')).toContain('R  utils/journal-store.ts -> utils/journal/store.ts');

    expect(run()).toMatch(/^relayout: 0 file\(s\) to move, 0 file\(s\) with imports to rewrite/);
  });
});
