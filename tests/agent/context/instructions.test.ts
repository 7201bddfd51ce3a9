import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { foldersOf, loadInstructions } from '../../../agent/context/instructions.js';

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
    expect(await loadInstructions(root, ['src'])).toEqual({
      text: '',
      files: [],
      chars: 0,
      truncated: false,
      refused: [],
      redactions: [],
    });
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

describe('loadInstructions under the path policy', () => {
  it('refuses instruction files that are symlinks out of the root, to secrets, or to devices, and sends none of them', async () => {
    const outside = await project({ 'secret.txt': 'OUTSIDE_MARKER_81f2' });
    const root = await project({ '.env': 'ENV_MARKER_99a1=1', 'docs/real.md': 'Use tabs.' });
    await symlink(join(outside, 'secret.txt'), join(root, 'AGENTS.md'));
    await symlink('/proc/self/environ', join(root, 'CLAWCODE.md'));
    await mkdir(join(root, '.clawcode'));
    await symlink('/dev/stdin', join(root, '.clawcode/instructions.md'));
    await mkdir(join(root, 'pkg'));
    await symlink('../.env', join(root, 'pkg/AGENTS.md'));
    await mkdir(join(root, 'docs/.clawcode'));
    await symlink('real.md', join(root, 'docs/CLAWCODE.md'));
    const found = await loadInstructions(root, ['pkg', 'docs']);
    expect(found.files).toEqual(['docs/CLAWCODE.md']);
    expect(found.text).toBe('From docs/CLAWCODE.md:\nUse tabs.');
    expect(found.refused.map((r) => r.path)).toEqual([
      'AGENTS.md',
      'CLAWCODE.md',
      '.clawcode/instructions.md',
      'pkg/AGENTS.md',
    ]);
    expect(found.refused[3]!.message).toMatch(/secret/);
  });

  it('refuses nothing where nothing is: a missing file in a folder shaped as a git directory or behind a link out of the root', async () => {
    const outside = await project({ 'elsewhere.txt': 'x' });
    const root = await project({ 'pkg/HEAD': 'ref: refs/heads/main\n', 'pkg/objects/.keep': '', 'pkg/refs/.keep': '' });
    await symlink(outside, join(root, 'out'));
    const found = await loadInstructions(root, ['pkg', 'out']);
    expect(found.refused).toEqual([]);
    expect(found.files).toEqual([]);
    // The same folders holding an instruction file: it is refused, as before.
    await writeFile(join(root, 'pkg/AGENTS.md'), 'planted');
    await writeFile(join(outside, 'AGENTS.md'), 'outside');
    const refused = (await loadInstructions(root, ['pkg', 'out'])).refused.map((r) => r.path);
    expect(refused).toEqual(['pkg/AGENTS.md', 'out/AGENTS.md']);
  });

  it('never opens a FIFO as an instruction file (it would block forever)', async () => {
    const root = await project({ 'CLAWCODE.md': 'Prefer small patches.' });
    execFileSync('mkfifo', [join(root, 'AGENTS.md')]);
    const found = await loadInstructions(root, []);
    expect(found.files).toEqual(['CLAWCODE.md']);
    expect(found.refused).toEqual([
      { path: 'AGENTS.md', message: 'AGENTS.md is a FIFO (named pipe), not a regular file' },
    ]);
  });

  it('redacts secrets written in an instruction file', async () => {
    const root = await project({
      'AGENTS.md': 'Deploy with GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345 set.',
    });
    const found = await loadInstructions(root, []);
    expect(found.text).not.toContain('ghp_0123456789');
    expect(found.text).toContain('[REDACTED:');
    expect(found.redactions).toEqual([{ path: 'AGENTS.md', kind: 'github_token', count: 1 }]);
  });

  it('reads only the head of a huge instruction file', async () => {
    const root = await project({ 'AGENTS.md': 'y'.repeat(3_000_000) });
    const found = await loadInstructions(root, [], 1000);
    expect(found.truncated).toBe(true);
    expect(found.text.length).toBeLessThanOrEqual(1000);
  });
});

describe('foldersOf', () => {
  it('gives the distinct folders of files, without the root', () => {
    expect(foldersOf(['a.ts', 'src/x.ts', 'src/y.ts', 'lib/z/w.ts'])).toEqual(['src', 'lib/z']);
  });
});
