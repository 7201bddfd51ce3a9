import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveMentions, resolvePathspecs } from '../../../agent/context/pins.js';
import {
  clearCarriedFiles,
  createCarriedFiles,
  describeCarriedFiles,
  dropFile,
  pinFile,
  rememberTask,
  carriedFilesCommand,
} from '../../../agent/context/carried-files.js';
import { gitIn } from '../../support/fixture.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cc-pins-'));
  for (const p of ['src/a.ts', 'src/b.ts', 'src/deep/c.ts', 'docs/x.md', '.env']) {
    mkdirSync(join(root, p, '..'), { recursive: true });
    writeFileSync(join(root, p), `// ${p}\n`);
  }
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

// What the scanner lets through: never `.env`.
const scanned = ['docs/x.md', 'src/a.ts', 'src/b.ts', 'src/deep/c.ts'];

describe('resolvePathspecs', () => {
  it('matches files, folders and globs without git, only among scanned files', async () => {
    expect(await resolvePathspecs(root, ['src/a.ts'], scanned)).toEqual({ paths: ['src/a.ts'], unmatched: [] });
    expect((await resolvePathspecs(root, ['src'], scanned)).paths).toEqual(['src/a.ts', 'src/b.ts', 'src/deep/c.ts']);
    expect((await resolvePathspecs(root, ['*.md', './src/deep/'], scanned)).paths).toEqual([
      'docs/x.md',
      'src/deep/c.ts',
    ]);
  });

  it('refuses secrets, paths outside the root and names that match nothing', async () => {
    const r = await resolvePathspecs(root, ['.env', '../etc/passwd', '/etc/passwd', 'nope.ts'], scanned);
    expect(r).toEqual({ paths: [], unmatched: ['.env', '../etc/passwd', '/etc/passwd', 'nope.ts'] });
  });

  it('uses git pathspecs in a work tree', async () => {
    const git = (...args: string[]) => gitIn(root, ...args);
    git('init', '-q');
    git('add', 'src', 'docs');
    git('commit', '-qm', 'init');
    expect((await resolvePathspecs(root, ['src/*.ts'], scanned)).paths).toEqual([
      'src/a.ts',
      'src/b.ts',
      'src/deep/c.ts',
    ]);
    expect((await resolvePathspecs(root, [':(glob)src/*.ts'], scanned)).paths).toEqual(['src/a.ts', 'src/b.ts']);
    expect((await resolvePathspecs(root, ['.env'], scanned)).unmatched).toEqual(['.env']);
  });
});

describe('resolveMentions', () => {
  it('takes an exact path or a unique suffix, skips the rest', () => {
    expect(resolveMentions(['src/a.ts', 'c.ts', 'x.ts', '.env'], [...scanned, 'lib/x.ts', 'app/x.ts'])).toEqual([
      'src/a.ts',
      'src/deep/c.ts',
    ]);
  });
});

describe('context session', () => {
  it('keeps the files a task planned or wrote, pins and drops, and clears', () => {
    const s = createCarriedFiles(['src/a.ts']);
    rememberTask(s, {
      plan: { files_to_edit: [{ path: 'src/b.ts' }], patches: [{ file: 'src/b.ts' }, { file: 'src/new.ts' }] },
      filesWritten: ['src/b.ts'],
    });
    expect(s).toEqual({ pinned: ['src/a.ts'], kept: ['src/b.ts', 'src/new.ts'] });
    rememberTask(s, { plan: null, filesWritten: [] });
    expect(s.kept).toEqual(['src/b.ts', 'src/new.ts']);
    expect(pinFile(s, 'docs/x.md')).toBe(true);
    expect(pinFile(s, 'docs/x.md')).toBe(false);
    expect(dropFile(s, 'src/new.ts')).toBe(true);
    expect(describeCarriedFiles(s)).toEqual(['pinned  src/a.ts', 'pinned  docs/x.md', 'kept    src/b.ts']);
    clearCarriedFiles(s);
    expect(describeCarriedFiles(s)).toEqual(['No files pinned or kept; the next task starts clean.']);
  });

  it('reads the typed session commands; any other line is not one', () => {
    const s = createCarriedFiles();
    s.kept = ['src/b.ts'];
    expect(carriedFilesCommand(s, ':add  src/a.ts docs/x.md')).toEqual(['Pinned src/a.ts', 'Pinned docs/x.md']);
    expect(carriedFilesCommand(s, ':add src/a.ts')).toEqual(['src/a.ts is already pinned']);
    expect(carriedFilesCommand(s, ':drop src/b.ts nope.ts')).toEqual([
      'Dropped src/b.ts',
      'nope.ts was not pinned or kept',
    ]);
    expect(carriedFilesCommand(s, ':add')).toEqual(['Usage: :add <path>']);
    expect(carriedFilesCommand(s, ':files')).toEqual(['pinned  src/a.ts', 'pinned  docs/x.md']);
    expect(carriedFilesCommand(s, ':clear')).toEqual(['Cleared: the next task starts clean.']);
    expect(s).toEqual({ pinned: [], kept: [] });
    for (const line of [':undo', ':addx a', 'add a file', ':help'])
      expect(carriedFilesCommand(s, line)).toBeUndefined();
  });
});
