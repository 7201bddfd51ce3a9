import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { classifyContent, isGeneratedPath } from '../../../agent/context/scan-rules.js';
import { scanProject } from '../../../agent/context/scan.js';
import { runGit } from '../../../agent/context/scan-git.js';
import { findRepository } from '../../../utils/git/repo.js';
import { gitIn } from '../../support/fixture.js';

let root: string;
let outside: string;

function write(rel: string, content: string | Buffer): void {
  const abs = join(root, rel);
  mkdirSync(join(abs, '..'), { recursive: true });
  writeFileSync(abs, content);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cc-scan-'));
  outside = mkdtempSync(join(tmpdir(), 'cc-outside-'));
  vi.stubEnv('CLAWCODE_HOME', mkdtempSync(join(tmpdir(), 'cc-home-')));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('scanProject without git', () => {
  it('applies nested .gitignore files per directory, with negations', async () => {
    write('.gitignore', '*.log\nsecret-dir/\n');
    write('app.ts', 'x');
    write('debug.log', 'x');
    write('secret-dir/a.ts', 'x');
    write('pkg/.gitignore', 'generated/\n!keep.log\ntmp-*.ts\n');
    write('pkg/keep.log', 'x');
    write('pkg/other.log', 'x');
    write('pkg/generated/out.ts', 'x');
    write('pkg/tmp-1.ts', 'x');
    write('pkg/src/tmp-2.ts', 'x');
    write('pkg/src/real.ts', 'x');
    write('other/tmp-3.ts', 'x');
    const r = await scanProject(root);
    expect(r.git).toBe(false);
    expect(r.fileList).toEqual([
      '.gitignore',
      'app.ts',
      'other/tmp-3.ts',
      'pkg/.gitignore',
      'pkg/keep.log',
      'pkg/src/real.ts',
    ]);
  });

  it('skips default folders, .clawcodeignore patterns and extra patterns', async () => {
    write('node_modules/dep/index.js', 'x');
    write('sub/node_modules/dep/index.js', 'x');
    write('dist/bundle.js', 'x');
    write('.clawcodeignore', 'fixtures/\n');
    write('fixtures/big.json', '{}');
    write('src/keep.ts', 'x');
    write('src/drop.ts', 'x');
    const r = await scanProject(root, { extraIgnore: ['src/drop.ts'] });
    expect(r.fileList).toEqual(['.clawcodeignore', 'src/keep.ts']);
  });

  it('never lists secret files, and says why', async () => {
    write('.env', 'KEY=1');
    write('.env.production', 'KEY=1');
    write('.env.example', 'KEY=');
    write('certs/server.pem', 'x');
    write('keys/id_rsa', 'x');
    write('credentials.json', '{}');
    write('src/app.ts', 'x');
    const r = await scanProject(root);
    expect(r.fileList).toEqual(['.env.example', 'src/app.ts']);
    expect(
      r.skipped
        .filter((s) => s.reason === 'secret')
        .map((s) => s.path)
        .sort(),
    ).toEqual(['.env', '.env.production', 'certs/server.pem', 'credentials.json', 'keys/id_rsa']);
  });

  it('skips lockfiles, minified bundles, binaries, non-UTF-8 and huge files', async () => {
    write('package-lock.json', '{}');
    write('public/app.min.js', 'x');
    write('logo.png', Buffer.from([0x89, 0x50]));
    write('data.bin2', Buffer.from([0x41, 0x00, 0x42]));
    write('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    write('minified.js', `${'var a=1;'.repeat(2000)}\n`);
    write('huge.ts', 'x'.repeat(2000));
    write('ok.ts', 'export const ok = 1;\n');
    const r = await scanProject(root, { readContent: true, maxFileBytes: 1000 });
    expect(r.fileList).toEqual(['ok.ts']);
    expect(r.files[0]?.content).toBe('export const ok = 1;\n');
    const reasons = Object.fromEntries(r.skipped.map((s) => [s.path, s.reason]));
    expect(reasons).toMatchObject({
      'package-lock.json': 'generated',
      'public/app.min.js': 'generated',
      'logo.png': 'binary',
      'data.bin2': 'binary',
      'latin1.txt': 'non_utf8',
      'huge.ts': 'too_large',
    });
    expect(reasons['minified.js']).toBe('too_large');
  });

  it('keeps symlinks to files inside the root and drops links that leave it', async () => {
    write('src/real.ts', 'x');
    writeFileSync(join(outside, 'passwd'), 'root:x');
    symlinkSync(join(root, 'src/real.ts'), join(root, 'alias.ts'));
    symlinkSync(join(outside, 'passwd'), join(root, 'escape.ts'));
    symlinkSync(outside, join(root, 'outdir'));
    symlinkSync(root, join(root, 'src/loop'));
    const r = await scanProject(root);
    expect(r.fileList).toEqual(['alias.ts', 'src/real.ts']);
    expect(r.skipped).toContainEqual({ path: 'escape.ts', reason: 'symlink_outside' });
  });
});

describe('scanProject in a git work tree', () => {
  const git = (...args: string[]): string => gitIn(root, ...args);

  it('lists tracked and untracked files that git does not ignore', async () => {
    write('.gitignore', 'out/\n*.tmp\n');
    write('src/a.ts', 'x');
    write('src/b.tmp', 'x');
    write('out/c.ts', 'x');
    write('new.ts', 'x');
    write('.env', 'SECRET=1');
    git('init', '-q');
    git('add', 'src/a.ts', '.gitignore');
    git('commit', '-qm', 'init');
    const r = await scanProject(root);
    expect(r.git).toBe(true);
    expect(r.fileList).toEqual(['.gitignore', 'new.ts', 'src/a.ts']);
  });

  it('gives unmodified tracked files their blob id, never modified ones, and applies an untracked .clawcodeignore', async () => {
    write('a.ts', 'export const a = 1;\n');
    write('b.ts', 'export const b = 1;\n');
    write('gen/out.ts', 'x');
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'init');
    write('b.ts', 'export const b = 2;\n');
    write('.clawcodeignore', 'gen/\n');
    // knownBlob answers for every file: a.ts is taken without a stat, with the size the caller gave;
    // b.ts, which git reports modified, is stat'ed and has no blob id, whatever the cache said.
    const asked: string[] = [];
    const r = await scanProject(root, {
      knownBlob: (path, oid) => {
        asked.push(`${path} ${oid}`);
        return { sizeBytes: 20, mtimeMs: 7 };
      },
    });
    expect(r.fileList).toEqual(['.clawcodeignore', 'a.ts', 'b.ts']);
    const aOid = git('hash-object', 'a.ts').trim();
    expect(asked).toContain(`a.ts ${aOid}`);
    const [, a, b] = r.files;
    expect(a).toMatchObject({ path: 'a.ts', oid: aOid, sizeBytes: 20, mtimeMs: 7 });
    expect(b!.oid).toBeUndefined();
    expect(b!.sizeBytes).toBe('export const b = 2;\n'.length);
  });
});

describe('scanProject: when a blob id stands for the bytes on disk', () => {
  const git = (...args: string[]): string => gitIn(root, ...args);
  const oids = async (dir: string) =>
    Object.fromEntries((await scanProject(dir, { knownBlob: () => undefined })).files.map((f) => [f.path, f.oid]));

  it('gives executable files a blob id too, and survives a folder on a tracked path turned into a file', async () => {
    write('run.sh', '#!/bin/sh\necho hi\n');
    write('lib/util.ts', 'export const u = 1;\n');
    write('main.ts', 'export const m = 1;\n');
    git('init', '-q');
    git('add', '.');
    git('update-index', '--chmod=+x', 'run.sh');
    git('commit', '-qm', 'init');
    chmodSync(join(root, 'run.sh'), 0o755);
    expect((await oids(root))['run.sh']).toBe(git('rev-parse', 'HEAD:run.sh').trim());
    rmSync(join(root, 'lib'), { recursive: true });
    writeFileSync(join(root, 'lib'), 'now a file\n');
    const r = await scanProject(root);
    expect(r.fileList).toContain('main.ts');
    expect(r.fileList).not.toContain('lib/util.ts');
  });

  it('gives no blob ids where checkout may convert content (filters, eol=crlf, autocrlf), also from a parent folder', async () => {
    write('a.ts', 'export const a = 1;\n');
    write('pkg/b.ts', 'export const b = 1;\n');
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'init');
    expect(Object.values(await oids(root)).every((o) => typeof o === 'string')).toBe(true);

    writeFileSync(join(root, '.gitattributes'), '*.bin filter=lfs diff=lfs merge=lfs -text\n');
    git('add', '.gitattributes');
    git('commit', '-qm', 'lfs');
    expect(Object.values(await oids(root)).every((o) => o === undefined)).toBe(true);
    // The same rule seen from a project that is a subfolder of the repository.
    expect((await oids(join(root, 'pkg')))['b.ts']).toBeUndefined();

    writeFileSync(join(root, '.gitattributes'), '* text=auto eol=lf\n');
    git('commit', '-qam', 'plain eol');
    expect((await oids(root))['a.ts']).toBe(git('rev-parse', 'HEAD:a.ts').trim());
    git('config', 'core.autocrlf', 'true');
    expect((await oids(root))['a.ts']).toBeUndefined();
  });

  it("reads the repository's info/attributes, in the work tree and in a linked worktree (where .git is a file)", async () => {
    write('a.ts', 'export const a = 1;\n');
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'init');
    const linked = `${root}-linked`;
    git('worktree', 'add', '-q', linked);
    try {
      expect((await oids(root))['a.ts']).toBe(git('rev-parse', 'HEAD:a.ts').trim());
      expect((await oids(linked))['a.ts']).toBe(git('rev-parse', 'HEAD:a.ts').trim());
      mkdirSync(join(root, '.git', 'info'), { recursive: true });
      writeFileSync(join(root, '.git', 'info', 'attributes'), '*.ts filter=crypt\n');
      expect((await oids(root))['a.ts']).toBeUndefined();
      expect((await oids(linked))['a.ts']).toBeUndefined();
    } finally {
      rmSync(linked, { recursive: true, force: true });
    }
  });

  it('tells modified tracked files from untracked ones, paths that look like status tags included', async () => {
    write('C x.ts', 'export const c = 1;\n');
    write('a.ts', 'export const a = 1;\n');
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'init');
    write('a.ts', 'export const a = 2;\n');
    write('? new.ts', 'export const n = 1;\n');
    const ids = await oids(root);
    expect(Object.keys(ids).sort()).toEqual(['? new.ts', 'C x.ts', 'a.ts']);
    expect(ids['a.ts']).toBeUndefined();
    expect(ids['? new.ts']).toBeUndefined();
    expect(ids['C x.ts']).toBe(git('rev-parse', 'HEAD:C x.ts').trim());
  });
});

describe('content rules', () => {
  it('classifies text, binary, non-UTF-8 and minified content', () => {
    expect(classifyContent(Buffer.from('\ufeffhello\n'))).toEqual({ kind: 'text', text: 'hello\n' });
    expect(classifyContent(Buffer.from([1, 0, 2])).kind).toBe('binary');
    expect(classifyContent(Buffer.from([0xff, 0xfe, 0x41])).kind).toBe('non_utf8');
    expect(classifyContent(Buffer.from('a'.repeat(6000))).kind).toBe('generated');
  });

  it('recognises generated paths but not ordinary sources', () => {
    for (const p of ['yarn.lock', 'a/pnpm-lock.yaml', 'x.min.js', 'a/b.js.map', 'api_pb2.py', 'go.sum'])
      expect(isGeneratedPath(p)).toBe(true);
    for (const p of ['src/lock.ts', 'minify.js', 'index.d.ts', 'go.mod']) expect(isGeneratedPath(p)).toBe(false);
  });
});

describe('runGit', () => {
  it('splits NUL-separated output, and answers null when git fails or cannot start', async () => {
    write('a b.ts', 'x\n');
    write('c.ts', 'y\n');
    gitIn(root, 'init', '-q');
    const repo = (await findRepository(root))!;
    expect(await runGit(repo, ['ls-files', '-o', '-z'])).toEqual(['a b.ts', 'c.ts']);
    expect(await runGit(repo, ['no-such-subcommand'])).toBeNull();
    vi.stubEnv('PATH', '');
    expect(await runGit(repo, ['status'])).toBeNull();
  });
});
