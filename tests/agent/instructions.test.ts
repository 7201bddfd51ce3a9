import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { foldersOf, loadInstructions } from '../../agent/instructions.js';

async function project(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'clawcode-instr-'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

describe('loadInstructions', () => {
  it('finds nothing in a project without instruction files', async () => {
    const root = await project({ 'src/a.ts': 'x' });
    expect(await loadInstructions(root, ['src'])).toEqual({ text: '', files: [], chars: 0, truncated: false });
  });

  it('reads AGENTS.md, CLAWCODE.md and .clawcode/instructions.md at the root, then nested files on the way to the target', async () => {
    const root = await project({
      'AGENTS.md': 'Use tabs.',
      'CLAWCODE.md': 'Prefer small patches.',
      '.clawcode/instructions.md': 'No default exports.',
      'packages/api/AGENTS.md': 'API uses zod.',
      'packages/web/AGENTS.md': 'not for this task',
    });
    const found = await loadInstructions(root, ['packages/api/src']);
    expect(found.files).toEqual(['AGENTS.md', 'CLAWCODE.md', '.clawcode/instructions.md', 'packages/api/AGENTS.md']);
    expect(found.text).toContain('From AGENTS.md:\nUse tabs.');
    expect(found.text.indexOf('Use tabs.')).toBeLessThan(found.text.indexOf('API uses zod.'));
    expect(found.text).not.toContain('not for this task');
    expect(found.chars).toBe(found.text.length);
  });

  it('caps the text and says it was truncated', async () => {
    const root = await project({ 'AGENTS.md': 'x'.repeat(20_000) });
    const found = await loadInstructions(root, [], 1000);
    expect(found.truncated).toBe(true);
    expect(found.text.length).toBeLessThanOrEqual(1000);
    expect(found.text.endsWith('[… truncated]')).toBe(true);
  });
});

describe('foldersOf', () => {
  it('gives the distinct folders of files, without the root', () => {
    expect(foldersOf(['a.ts', 'src/x.ts', 'src/y.ts', 'lib/z/w.ts'])).toEqual(['src', 'lib/z']);
  });
});
