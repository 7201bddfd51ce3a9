import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { PatchOp } from '../../utils/plan.js';
import { applyPatches } from '../../utils/patch/plan-apply.js';

beforeEach(async () => {
  vi.stubEnv('CLAWCODE_HOME', await mkdtemp(path.join(tmpdir(), 'clawcode-home-')));
});

const p = (file: string, find: string, replace: string, extra: Partial<PatchOp> = {}): PatchOp => ({
  file,
  operation: 'replace',
  find,
  replace,
  ...extra,
});

describe('applyPatches', () => {
  const files = new Map([
    ['src/a.ts', 'export const a = 1;\nexport const b = 2;\nexport const c = 3;\n'],
    ['src/b.ts', 'first line here\r\nsecond line here\r\n'],
  ]);

  it('applies in order, later patches seeing earlier results, with a strategy per patch', () => {
    const r = applyPatches(files, [
      p('src/a.ts', 'export const a = 1;', 'export const a = 10;'),
      p('src/a.ts', 'export const a = 10;\nexport const b = 2;', 'export const a = 10;\nexport const b = 20;'),
      p('src/b.ts', 'second line here   ', 'line 2'),
    ]);
    // Patch 2 finds text patch 1 wrote: that overlaps, and is refused.
    expect(r.applied).toBe(false);
    expect(r.results.map((x) => [x.index, x.applied, x.code])).toEqual([
      [0, true, undefined],
      [1, false, 'patch_overlap'],
      [2, true, undefined],
    ]);
    expect(r.results[1]!.error).toContain('patch 1');
    expect(r.contents.size).toBe(0);
  });

  it('returns every file, patched, when all patches apply', () => {
    const r = applyPatches(files, [
      p('src/a.ts', 'export const c = 3;', 'export const c = 30;'),
      p('src/a.ts', 'export const a = 1;', 'export const a = 10;'),
      p('src/b.ts', 'second line here   ', 'line 2'),
    ]);
    expect(r.applied).toBe(true);
    expect(r.contents.get('src/a.ts')).toBe('export const a = 10;\nexport const b = 2;\nexport const c = 30;\n');
    expect(r.contents.get('src/b.ts')).toBe('first line here\r\nline 2\r\n');
    expect(r.results.map((x) => x.strategy)).toEqual(['exact', 'exact', 'trailing_whitespace']);
    expect(r.results.map((x) => x.startLine)).toEqual([3, 1, 2]);
    expect(files.get('src/a.ts')).toBe('export const a = 1;\nexport const b = 2;\nexport const c = 3;\n');
  });

  it('lets a later patch edit next to an earlier one', () => {
    const r = applyPatches(files, [
      p('src/a.ts', 'export const b = 2;\n', 'export const b = 22;\n'),
      p('src/a.ts', 'export const c = 3;', 'export const c = 33;'),
    ]);
    expect(r.applied).toBe(true);
    expect(r.contents.get('src/a.ts')).toBe('export const a = 1;\nexport const b = 22;\nexport const c = 33;\n');
  });

  it('lets a later patch find text that only exists after an earlier one, outside its span', () => {
    const r = applyPatches(files, [
      p('src/a.ts', 'export const a = 1;', 'export const a = 1;\nexport const added = true;'),
      p('src/a.ts', 'export const c = 3;', 'export const c = 4;'),
    ]);
    expect(r.applied).toBe(true);
  });

  it('is all or nothing: one failing patch leaves no contents, and every patch is reported', () => {
    const r = applyPatches(files, [
      p('src/a.ts', 'export const a = 1;', 'export const a = 10;'),
      p('src/a.ts', 'not in the file at all', 'x'),
      p('src/b.ts', 'first line here', 'line 1'),
    ]);
    expect(r.applied).toBe(false);
    expect(r.contents.size).toBe(0);
    expect(r.results.map((x) => x.applied)).toEqual([true, false, true]);
    expect(r.results[1]).toMatchObject({ index: 1, file: 'src/a.ts', code: 'patch_no_match' });
  });

  it('creates a new file from an empty find, and refuses other finds on a missing file', () => {
    const r = applyPatches(files, [p('src/new.ts', '', 'export {};\n')]);
    expect(r.applied).toBe(true);
    expect(r.contents.get('src/new.ts')).toBe('export {};\n');
    expect(r.results[0]).toMatchObject({ strategy: 'empty_file', applied: true });

    const missing = applyPatches(files, [p('src/ghost.ts', 'x', 'y')]);
    expect(missing.results[0]).toMatchObject({ applied: false, code: 'patch_file_missing' });
  });

  it('refuses a second patch on text the first one created', () => {
    const r = applyPatches(files, [
      p('src/new.ts', '', 'export {};\n'),
      p('src/new.ts', 'export {};', 'export { x };'),
    ]);
    expect(r.results.map((x) => x.code)).toEqual([undefined, 'patch_overlap']);
  });

  it('passes occurrence and replace_all through', () => {
    const dup = new Map([['x.ts', 'f();\ng();\nf();\n']]);
    expect(applyPatches(dup, [p('x.ts', 'f();', 'h();')]).results[0]).toMatchObject({
      code: 'patch_ambiguous_find',
      matchLines: [1, 3],
    });
    expect(applyPatches(dup, [p('x.ts', 'f();', 'h();', { occurrence: 2 })]).contents.get('x.ts')).toBe(
      'f();\ng();\nh();\n',
    );
    expect(applyPatches(dup, [p('x.ts', 'f();', 'h();', { replace_all: true })]).contents.get('x.ts')).toBe(
      'h();\ng();\nh();\n',
    );
  });

  it('refuses a patch whose span swallows an earlier deletion point', () => {
    const r = applyPatches(files, [
      p('src/a.ts', 'export const b = 2;\n', ''),
      p('src/a.ts', 'export const a = 1;\nexport const c = 3;', 'merged'),
    ]);
    expect(r.results[1]).toMatchObject({ applied: false, code: 'patch_overlap' });
  });
});

describe('a patch that changes nothing', () => {
  const files = new Map([['src/a.ts', 'chunk1\nold1\nchunk3\nold3\n']]);

  it('is dropped with a note when its find is in the file', () => {
    const r = applyPatches(files, [p('src/a.ts', 'old1', 'new1'), p('src/a.ts', 'chunk3', 'chunk3')]);
    expect(r.applied).toBe(true);
    expect(r.results[1]).toMatchObject({ applied: true, dropped: true });
    expect(r.contents.get('src/a.ts')).toBe('chunk1\nnew1\nchunk3\nold3\n');
  });

  it('fails the plan when its find is not in the file (the model is wrong about the file)', () => {
    const r = applyPatches(files, [
      p('src/a.ts', 'old1', 'new1'),
      p('src/a.ts', 'nonexistent\nskip', 'nonexistent\nskip'),
      p('src/a.ts', 'old3', 'new3'),
    ]);
    expect(r.applied).toBe(false);
    expect(r.results[1]).toMatchObject({ applied: false, code: 'patch_no_match' });
  });

  it('fails the plan when its find is ambiguous', () => {
    const twice = new Map([['src/a.ts', 'same\nsame\n']]);
    const r = applyPatches(twice, [p('src/a.ts', 'same', 'same')]);
    expect(r.results[0]).toMatchObject({ applied: false, code: 'patch_ambiguous_find' });
  });
});
