import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { applyPatch } from '../../utils/patch.js';

// Shapes of drift seen in edits real models sent that their own tool could not apply.

beforeEach(async () => {
  vi.stubEnv('CLAWCODE_HOME', await mkdtemp(path.join(tmpdir(), 'clawcode-home-')));
});

describe('a one-line find over a line the file wraps', () => {
  const py =
    'def f():\n    result = compute(first_argument,\n                     second_argument)\n    return result\n';

  it('writes the changed tokens into the file’s own layout', () => {
    const r = applyPatch(
      py,
      '    result = compute(first_argument, second_argument)',
      '    result = compute(first_argument, third_argument)',
    );
    expect(r).toMatchObject({ applied: true, strategy: 'token_stream' });
    expect(r.newContent).toBe(py.replace('second_argument', 'third_argument'));
  });

  it('refuses when replace adds tokens (they no longer map back one for one)', () => {
    const r = applyPatch(
      py,
      '    result = compute(first_argument, second_argument)',
      '    result = compute(first_argument, second_argument, third)',
    );
    expect(r.applied).toBe(false);
  });

  it('refuses when replace changes whitespace too (where it goes in the wrapped layout is unknown)', () => {
    const r = applyPatch(
      py,
      '    result = compute(first_argument, second_argument)',
      '    result = compute(first_argument,second_argument2)',
    );
    expect(r.applied).toBe(false);
  });

  it('never takes a line break between two words for the find’s space (it may end a statement)', () => {
    const twoLines = 'total = price\ncount = 2\n';
    expect(applyPatch(twoLines, 'total = price count = 2', 'total = price count = 3').applied).toBe(false);
  });
});

describe('markdown fence lines at the edges of a find', () => {
  const file = 'a = 1\nb = 2\nc = 3\n';

  it('are dropped from find and from replace', () => {
    const r = applyPatch(file, '```python\nb = 2\n```', '```python\nb = 20\n```');
    expect(r).toMatchObject({ applied: true, strategy: 'fences_stripped', newContent: 'a = 1\nb = 20\nc = 3\n' });
  });

  it('are dropped from find when replace has none, its final line break kept', () => {
    expect(applyPatch(file, '```\nb = 2\nc = 3\n```\n', 'b = 20\nc = 3\n').newContent).toBe('a = 1\nb = 20\nc = 3\n');
  });

  it('are matched as they are when the file has them (a markdown file)', () => {
    const md = 'Run:\n\n```sh\nmake\n```\n';
    expect(applyPatch(md, '```sh\nmake\n```', '```sh\nmake test\n```')).toMatchObject({
      strategy: 'exact',
      newContent: 'Run:\n\n```sh\nmake test\n```\n',
    });
  });
});

describe('escaped quotes where the file has plain ones', () => {
  it('reads \\\' and \\" in find and replace, leaving other escapes as code', () => {
    const file = 'msg = "it\'s" + "\\n"\nx = 1\n';
    const r = applyPatch(file, 'msg = "it\\\'s" + "\\n"', 'msg = "it\\\'s fine" + "\\n"');
    expect(r).toMatchObject({
      applied: true,
      strategy: 'unescaped',
      newContent: 'msg = "it\'s fine" + "\\n"\nx = 1\n',
    });
  });

  it('refuses when replace also has a bare quote of the kind find escaped (the escape may be code)', () => {
    const file = 'print("it\'s")\n';
    expect(applyPatch(file, 'print("it\\\'s")', "print('it\\'s ok')").applied).toBe(false);
  });
});

describe('shapes other tools refuse', () => {
  const file = 'def f():\n    a = 1\n    b = 2\n    c = 3\n    return a\n';

  it('refuses an unpaired "..." whose replace writes nothing between the pieces (it would delete unquoted code)', () => {
    const r = applyPatch(file, 'def f():\n    ...\n    return a\n', 'def f():\n    return a\n');
    expect(r).toMatchObject({ applied: false, code: 'patch_elision_unpaired' });
  });

  it('still applies an unpaired "..." whose replace writes the new text of the span', () => {
    const r = applyPatch(file, 'def f():\n    ...\n    return a\n', 'def f():\n    a = 2\n    return a\n');
    expect(r.newContent).toBe('def f():\n    a = 2\n    return a\n');
  });
});
