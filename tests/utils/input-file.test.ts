import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeUtf8Input, readInputFile, readInputStream } from '../../utils/input-file.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clawcode-input-file-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('decodeUtf8Input', () => {
  it('keeps valid UTF-8, a byte-order mark and U+FFFD written as UTF-8', () => {
    const text = '\uFEFFcafé \uFFFD ok\n';
    expect(decodeUtf8Input(Buffer.from(text))).toBe(text);
  });

  it('names the line of the first byte that is not UTF-8, after genuine U+FFFD characters', () => {
    const bytes = Buffer.concat([Buffer.from('a\uFFFD\nb\uFFFD\n\u00e9\n'), Buffer.from([0x63, 0xe9, 0x0a])]);
    expect(() => decodeUtf8Input(bytes)).toThrow('is not UTF-8 text (line 4 holds a byte that is not UTF-8)');
  });

  it('refuses a sequence cut short at the end', () => {
    expect(() => decodeUtf8Input(Buffer.from([0x61, 0xe2, 0x82]))).toThrow(/line 1/);
  });
});

describe('readInputFile', () => {
  it('reads a regular file and refuses one over maxBytes without reading it', async () => {
    await writeFile(join(dir, 'plan.json'), '{"a":1}');
    expect((await readInputFile(join(dir, 'plan.json'))).toString()).toBe('{"a":1}');
    await expect(readInputFile(join(dir, 'plan.json'), { maxBytes: 3 })).rejects.toMatchObject({
      code: 'input_too_large',
    });
  });

  it('passes ENOENT and EISDIR on as errno codes', async () => {
    await expect(readInputFile(join(dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(readInputFile(dir)).rejects.toMatchObject({ code: 'EISDIR' });
  });

  it('refuses a device', async () => {
    await expect(readInputFile('/dev/zero')).rejects.toMatchObject({ code: 'input_not_file' });
  });

  it("reads a FIFO once its writer comes, to the writer's end", async () => {
    const fifo = join(dir, 'fed.fifo');
    execFileSync('mkfifo', [fifo]);
    const reading = readInputFile(fifo);
    setTimeout(() => void writeFile(fifo, 'from the writer'), 100);
    expect((await reading).toString()).toBe('from the writer');
  });

  it('stops waiting for a FIFO writer when the signal aborts, with its reason', async () => {
    const fifo = join(dir, 'wait.fifo');
    execFileSync('mkfifo', [fifo]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 100);
    await expect(readInputFile(fifo, { signal: controller.signal })).rejects.toThrow('stop');
  });
});

describe('readInputStream', () => {
  it('reads to the end, and stops past maxBytes', async () => {
    expect((await readInputStream(Readable.from([Buffer.from('ab'), Buffer.from('c')]))).toString()).toBe('abc');
    const endless = new Readable({ read: () => endless.push(Buffer.alloc(1024)) });
    await expect(readInputStream(endless, { maxBytes: 10_000 })).rejects.toMatchObject({ code: 'input_too_large' });
  });
});
