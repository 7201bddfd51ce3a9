import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRegularText } from '../../utils/regular-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'claw-regular-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('readRegularText', () => {
  it('reads a regular file whole, as UTF-8', () => {
    writeFileSync(join(dir, '.gitignore'), 'dist/\n# é\n');
    expect(readRegularText(join(dir, '.gitignore'))).toBe('dist/\n# é\n');
  });

  it('refuses a file longer than the bound instead of reading part of it', () => {
    writeFileSync(join(dir, 'a'), 'x'.repeat(4097));
    expect(readRegularText(join(dir, 'a'), 4096)).toBeUndefined();
    expect(readRegularText(join(dir, 'a'), 4097)).toBe('x'.repeat(4097));
  });

  it('returns at once for a FIFO with no writer, and for a folder or a missing path', () => {
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    expect(readRegularText(join(dir, 'fifo'))).toBeUndefined();
    expect(readRegularText(dir)).toBeUndefined();
    expect(readRegularText(join(dir, 'missing'))).toBeUndefined();
  });

  it('follows a final symlink unless told not to', () => {
    writeFileSync(join(dir, 'target'), 'gitdir: x\n');
    symlinkSync(join(dir, 'target'), join(dir, 'link'));
    expect(readRegularText(join(dir, 'link'))).toBe('gitdir: x\n');
    expect(readRegularText(join(dir, 'link'), 4096, true)).toBeUndefined();
  });
});
