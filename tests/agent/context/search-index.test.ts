import {
  existsSync,
  mkdtempSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { endianness, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildContext } from '../../../agent/context/build.js';
import {
  INDEX_VERSION,
  indexFile,
  indexPath,
  indexText,
  loadIndex,
  saveIndex,
  termFrequencies,
  type IndexedDoc,
} from '../../../agent/context/search-index.js';
import { gitIn } from '../../support/fixture.js';

let root: string;
let home: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cc-idx-'));
  home = mkdtempSync(join(tmpdir(), 'cc-idx-home-'));
  vi.stubEnv('CLAWCODE_HOME', home);
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

function write(rel: string, text: string): void {
  const abs = join(root, rel);
  mkdirSync(join(abs, '..'), { recursive: true });
  writeFileSync(abs, text);
}

/** A small index with every kind of entry the format stores: oid or none, defs or none, fractional mtime. */
function sample(): Map<string, IndexedDoc> {
  const docs = new Map<string, IndexedDoc>();
  docs.set('src/parse.ts', {
    ...indexText('export function parseOptions(x) { return x; }\n', 1_700_000_000_123.457, 48),
    oid: 'a'.repeat(40),
  });
  docs.set('docs/überblick.md', indexText('# Überblick\nparse options here\n', 1_600_000_000_000, 33));
  docs.set('img/logo.png', { mtimeMs: 5, sizeBytes: 4096, kind: 'binary', tokens: 0, lines: 0, terms: '\n', defs: [] });
  docs.set('empty.txt', indexText('', 7, 0));
  return docs;
}

/** The index file's header line, its body, and where the body starts. */
function parts(file: string): { head: Record<string, unknown>; body: Buffer; bodyAt: number } {
  const buf = readFileSync(file);
  const nl = buf.indexOf(10);
  return {
    head: JSON.parse(buf.toString('utf8', 0, nl)) as Record<string, unknown>,
    body: buf.subarray(nl + 1),
    bodyAt: nl + 1,
  };
}

/** Write `head` and `body` back as an index file, the header padded as the writer pads it. */
function rewrite(file: string, head: Record<string, unknown>, body: Buffer): void {
  let line = JSON.stringify(head);
  line += ' '.repeat((8 - ((Buffer.byteLength(line) + 1) % 8)) % 8);
  writeFileSync(file, Buffer.concat([Buffer.from(`${line}\n`), body]));
}

describe('context index file', () => {
  it('loads exactly what it saved', () => {
    const docs = sample();
    saveIndex(home, root, docs);
    const loaded = loadIndex(home, root);
    expect([...loaded.keys()]).toEqual([...docs.keys()]);
    for (const [path, doc] of docs) expect(loaded.get(path)).toEqual(doc);
    expect(loaded.get('src/parse.ts')!.defs).toEqual(['parseOptions']);
    expect(loaded.get('docs/überblick.md')!.oid).toBeUndefined();
  });

  it('is readable by its owner only (0600 in a 0700 folder)', () => {
    saveIndex(home, root, sample());
    const file = indexPath(home, root);
    if (process.platform !== 'win32') {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(join(home, 'index')).mode & 0o777).toBe(0o700);
    }
  });

  it('ignores a damaged file whole, never a part of it', () => {
    saveIndex(home, root, sample());
    const file = indexPath(home, root);
    const good = readFileSync(file);
    const { head, body, bodyAt } = parts(file);
    const damaged: [string, Buffer | string][] = [
      ['not JSON', '{ not json'],
      ['no newline', JSON.stringify(head)],
      ['truncated', good.subarray(0, good.length - 1)],
      ['a byte appended', Buffer.concat([good, Buffer.from('x')])],
      ['only the header', good.subarray(0, bodyAt)],
    ];
    // One flipped bit in each section: mtimes, whole numbers, strings, terms.
    const count = head.count as number;
    for (const at of [3, count * 8 + 1, count * 28 + 2, body.length - 2]) {
      const flipped = Buffer.from(good);
      flipped[bodyAt + at]! ^= 0x01;
      damaged.push([`bit flipped at ${at}`, flipped]);
    }
    for (const [name, bytes] of damaged) {
      writeFileSync(file, bytes);
      expect(loadIndex(home, root).size, name).toBe(0);
    }
  });

  it('rejects well-formed files whose content does not add up, with a valid checksum', () => {
    saveIndex(home, root, sample());
    const file = indexPath(home, root);
    const { head, body } = parts(file);
    const count = head.count as number;
    const cases: [string, Record<string, unknown>, Buffer][] = [];
    const withCrc = (h: Record<string, unknown>, b: Buffer): Record<string, unknown> => ({ ...h, crc: crc32(b) });
    // An unknown kind code.
    const badKind = Buffer.from(body);
    badKind.writeUInt32LE(9, count * 8 + 4);
    cases.push(['unknown kind', withCrc(head, badKind), badKind]);
    // The first document's terms claimed one character longer: the lengths no longer sum to the section.
    const longer = Buffer.from(body);
    longer.writeUInt32LE(longer.readUInt32LE(count * 8 + 16) + 1, count * 8 + 16);
    cases.push(['terms lengths', withCrc(head, longer), longer]);
    // A NaN mtime.
    const nan = Buffer.from(body);
    nan.writeDoubleLE(Number.NaN, 0);
    cases.push(['NaN mtime', withCrc(head, nan), nan]);
    // Section sizes that do not match the file, a foreign version, a foreign byte order, a wrong count.
    cases.push(['strings size', { ...head, strings: (head.strings as number) + 1 }, body]);
    cases.push(['version', { ...head, version: INDEX_VERSION + 1 }, body]);
    cases.push(['byte order', { ...head, endian: endianness() === 'LE' ? 'BE' : 'LE' }, body]);
    cases.push(['count', { ...head, count: -1 }, body]);
    // One string field too many (a NUL inside a path) with the sizes and checksum fixed up.
    const strAt = count * 28;
    const extra = Buffer.concat([body.subarray(0, strAt), Buffer.from('x\0'), body.subarray(strAt)]);
    cases.push(['fields', withCrc({ ...head, strings: (head.strings as number) + 2 }, extra), extra]);
    for (const [name, h, b] of cases) {
      rewrite(file, h, b);
      expect(loadIndex(home, root).size, name).toBe(0);
    }
    // The same rewrite of untouched content loads: the cases above fail for their damage alone.
    rewrite(file, head, body);
    expect(loadIndex(home, root).size).toBe(4);
  });

  it('never throws when the index cannot be written, and leaves no temporary file', () => {
    writeFileSync(join(home, 'index'), 'a file where the folder should be');
    expect(() => saveIndex(home, root, sample())).not.toThrow();
    expect(loadIndex(home, root).size).toBe(0);
    rmSync(join(home, 'index'));
    mkdirSync(join(home, 'index'));
    // The target name taken by a folder: the rename fails after the temporary file was written.
    mkdirSync(indexPath(home, root));
    expect(() => saveIndex(home, root, sample())).not.toThrow();
    expect(readdirSync(join(home, 'index'))).toEqual([basename(indexPath(home, root))]);
  });

  it('writes nothing rather than an index a separator inside a field would shift', () => {
    const docs = sample();
    docs.set('odd.ts', { ...indexText('x', 1, 1), defs: ['a\nb'] });
    saveIndex(home, root, docs);
    expect(existsSync(indexPath(home, root))).toBe(false);
  });

  it('counts a term only where a whole row names it, never inside a longer term', () => {
    const docs = [
      { ...indexText('', 1, 0), terms: '\ntostring 3\nstrings 1\nstring 2\n' },
      { ...indexText('', 1, 0), terms: '\nsubstring 4\n' },
      { ...indexText('', 1, 0), terms: '\n' },
    ];
    expect(termFrequencies(docs, 'string')).toEqual([2, 0, 0]);
    expect(termFrequencies(docs, 'tostring')).toEqual([3, 0, 0]);
    expect(termFrequencies(docs, 'substring')).toEqual([0, 4, 0]);
    expect(termFrequencies(docs, 'str')).toEqual([0, 0, 0]);
    expect(termFrequencies(docs, 'ing')).toEqual([0, 0, 0]);
    expect(termFrequencies(docs, '')).toEqual([0, 0, 0]);
    // Every row of a real entry is found with its own count.
    const real = indexText('const parseOptions = (options) => options.map(parse);\nparse(options);\n', 1, 10);
    const rows = real.terms.split('\n').filter((r) => r !== '');
    expect(rows.length).toBeGreaterThan(3);
    for (const row of rows) {
      const [term, count] = row.split(' ');
      expect(termFrequencies([real], term!)).toEqual([Number(count)]);
    }
  });

  it('indexes the whole current content whatever size the scan saw', () => {
    write('grown.ts', 'export const alphaBeta = 1;\nexport const gammaDelta = 2;\n');
    const whole = indexText('export const alphaBeta = 1;\nexport const gammaDelta = 2;\n', 1, 5);
    for (const seen of [0, 5, 27, 56, 57, 58, 10_000]) {
      const doc = indexFile(join(root, 'grown.ts'), 1, seen);
      expect(doc.terms, `size ${seen}`).toBe(whole.terms);
      expect(doc.defs).toEqual(['alphaBeta', 'gammaDelta']);
      expect(doc.sizeBytes).toBe(seen);
    }
  });

  it('indexes an unreadable path as unreadable, not as text', () => {
    expect(indexFile(join(root, 'missing.ts'), 1, 2).kind).toBe('unreadable');
  });
});

describe('a warm run re-reads what changed', () => {
  const run = (task: string) => buildContext({ rootDir: root, task, budgetChars: 5000, homeDir: home });

  for (const withGit of [false, true]) {
    it(`${withGit ? 'in a git work tree' : 'without git'}: a deleted file leaves the index, a renamed one is read under its new name`, async () => {
      write('a.ts', 'export const alpha = 1;\n');
      write('b.ts', 'export const beta = 2;\n');
      if (withGit) {
        gitIn(root, 'init', '-q');
        gitIn(root, 'add', '.');
        gitIn(root, 'commit', '-qm', 'init');
      }
      expect((await run('alpha')).indexedFiles).toBe(2);
      expect((await run('alpha')).indexedFiles).toBe(0);

      rmSync(join(root, 'b.ts'));
      const afterDelete = await run('beta');
      expect(afterDelete.fileList).toEqual(['a.ts']);
      expect([...loadIndex(home, root).keys()]).toEqual(['a.ts']);

      renameSync(join(root, 'a.ts'), join(root, 'c.ts'));
      const afterRename = await run('alpha');
      expect(afterRename.fileList).toEqual(['c.ts']);
      expect(afterRename.indexedFiles).toBe(1);
      expect(afterRename.files[0]?.path).toBe('c.ts');
      expect(afterRename.files[0]?.parts?.content).toBeGreaterThan(0);
      expect([...loadIndex(home, root).keys()]).toEqual(['c.ts']);
    });
  }

  it('never reads a cached entry for a file whose size changed, even at the same mtime', async () => {
    write('a.ts', 'export const alpha = 1;\n');
    const before = statSync(join(root, 'a.ts'));
    await run('alpha');
    write('a.ts', 'export const alpha = 1;\nexport const gammaRay = 3;\n');
    utimesSync(join(root, 'a.ts'), before.atime, before.mtime);
    const r = await run('gammaRay');
    expect(r.indexedFiles).toBe(1);
    expect(r.files[0]?.parts?.content).toBeGreaterThan(0);
  });
});
