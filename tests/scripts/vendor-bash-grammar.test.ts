import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/fixture.js';

// vendor/tree-sitter-bash/ holds the grammar package's wasm as it was taken (scripts/vendor-bash-grammar.mjs):
// the recorded checksum still matches, so an edited or truncated copy cannot slip in.

describe('the vendored bash grammar', () => {
  it('matches its recorded SHA-256, with its version and MIT licence beside it', async () => {
    const dir = join(REPO_ROOT, 'vendor', 'tree-sitter-bash');
    const [recorded] = (await readFile(join(dir, 'SHA256'), 'utf8')).split(/\s+/);
    const actual = createHash('sha256')
      .update(await readFile(join(dir, 'tree-sitter-bash.wasm')))
      .digest('hex');
    expect(actual).toBe(recorded);
    expect((await readFile(join(dir, 'VERSION'), 'utf8')).trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(await readFile(join(dir, 'LICENSE'), 'utf8')).toMatch(/^The MIT License|^MIT License/);
  });
});
