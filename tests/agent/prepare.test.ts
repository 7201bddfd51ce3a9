import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { preparePlan } from '../../agent/prepare.js';
import type { Plan } from '../../utils/plan.js';

async function project(files: Record<string, string | Buffer>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'clawcode-exec-'));
  for (const [path, data] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), data);
  }
  return root;
}

const plan = (patches: Plan['patches']): Plan => ({
  analysis: '',
  files_to_edit: [],
  patches,
  commands: [],
  agent_notes: [],
});

describe('preparePlan', () => {
  it('applies patches in order from the bytes on disk, creates new files, and writes nothing', async () => {
    const root = await project({ 'src/a.ts': 'const a = 1;\nconst b = 2;\n' });
    const prepared = await preparePlan(
      root,
      plan([
        { file: 'src/a.ts', operation: 'replace', find: 'const a = 1;\n', replace: 'const a = 10;\n' },
        { file: 'src/a.ts', operation: 'replace', find: 'const b = 2;\n', replace: 'const b = a;\n' },
        { file: 'src/new.ts', operation: 'replace', find: '', replace: 'export {};\n' },
      ]),
    );
    expect(prepared.ok).toBe(true);
    expect(prepared.changes.map((c) => [c.path, c.after, c.before === null])).toEqual([
      ['src/a.ts', 'const a = 10;\nconst b = a;\n', false],
      ['src/new.ts', 'export {};\n', true],
    ]);
    expect(prepared.changes[0]!.diff).toContain('-const a = 1;\n');
    expect(prepared.changes[0]!.diff).toContain('+const a = 10;\n');
    expect(await readFile(join(root, 'src/a.ts'), 'utf8')).toBe('const a = 1;\nconst b = 2;\n');
  });

  it('is all or nothing: one failing patch leaves no changes and names it', async () => {
    const root = await project({ 'a.ts': 'x\n' });
    const prepared = await preparePlan(
      root,
      plan([
        { file: 'a.ts', operation: 'replace', find: 'x\n', replace: 'y\n' },
        { file: 'a.ts', operation: 'replace', find: 'nope\n', replace: 'z\n' },
      ]),
    );
    expect(prepared.ok).toBe(false);
    expect(prepared.changes).toEqual([]);
    expect(prepared.results.map((r) => r.applied)).toEqual([true, false]);
  });

  it('refuses paths outside the project, through a symlink too, before reading anything', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'clawcode-outside-'));
    const root = await project({ 'a.ts': 'x\n' });
    await symlink(outside, join(root, 'link'));
    const prepared = await preparePlan(
      root,
      plan([
        { file: '../escape.ts', operation: 'replace', find: '', replace: 'x' },
        { file: 'link/evil.ts', operation: 'replace', find: '', replace: 'x' },
      ]),
    );
    expect(prepared.ok).toBe(false);
    expect(prepared.pathIssues.map((i) => i.code).sort()).toEqual(['path_escape', 'path_symlink_escape']);
  });

  it('refuses a target that is not valid UTF-8 instead of rewriting its bytes', async () => {
    const root = await project({ 'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]) });
    const prepared = await preparePlan(
      root,
      plan([{ file: 'latin1.txt', operation: 'replace', find: 'caf', replace: 'tea' }]),
    );
    expect(prepared.ok).toBe(false);
    expect(prepared.pathIssues).toEqual([
      { index: 0, file: 'latin1.txt', code: 'path_not_utf8', message: expect.stringMatching(/UTF-8/) },
    ]);
  });

  it('keeps a BOM and CRLF line endings', async () => {
    const root = await project({ 'w.cs': '\uFEFFline one\r\nline two\r\n' });
    const prepared = await preparePlan(
      root,
      plan([{ file: 'w.cs', operation: 'replace', find: 'line two\n', replace: 'line 2\n' }]),
    );
    expect(prepared.ok).toBe(true);
    expect(prepared.changes[0]!.after).toBe('\uFEFFline one\r\nline 2\r\n');
  });
});
