import { execFileSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseEditor, editBuffer, editInEditor, stripEditHeader } from '../../../cli/task/editor.js';
import { GIT_TEST_ENV } from '../../support/fixture.js';

describe('chooseEditor', () => {
  const noGit = () => Promise.resolve(undefined);
  it('takes $VISUAL, then $EDITOR, then $GIT_EDITOR, then core.editor, then vi', async () => {
    expect(await chooseEditor({ VISUAL: 'code --wait', EDITOR: 'nano' }, '/', noGit)).toEqual({
      command: 'code --wait',
      source: 'VISUAL',
    });
    expect(await chooseEditor({ VISUAL: ' ', EDITOR: 'nano' }, '/', noGit)).toEqual({
      command: 'nano',
      source: 'EDITOR',
    });
    expect(await chooseEditor({ GIT_EDITOR: 'ed' }, '/', noGit)).toEqual({ command: 'ed', source: 'GIT_EDITOR' });
    expect(await chooseEditor({}, '/', () => Promise.resolve('emacs'))).toEqual({
      command: 'emacs',
      source: 'core.editor',
    });
    expect(await chooseEditor({}, '/', noGit)).toEqual({ command: 'vi', source: 'default' });
  });

  it("reads a project's core.editor through clawcode's git", async () => {
    const repo = await mkdtemp(join(tmpdir(), 'clawcode-editor-'));
    execFileSync('git', ['init', '-q', repo], { env: { ...process.env, ...GIT_TEST_ENV } });
    execFileSync('git', ['-C', repo, 'config', 'core.editor', 'my-editor --flag'], {
      env: { ...process.env, ...GIT_TEST_ENV },
    });
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: repo, ...GIT_TEST_ENV };
    expect(await chooseEditor(env, repo)).toEqual({ command: 'my-editor --flag', source: 'core.editor' });
  });
});

describe('the edit buffer', () => {
  it('starts with a short #| header that is removed again, keeping the text byte for byte', () => {
    const text = '# a python comment\r\nx = 1\n';
    const buffer = editBuffer(text, 'src/a.py');
    expect(
      buffer
        .split('\n')
        .slice(0, 2)
        .every((l) => l.startsWith('#| ')),
    ).toBe(true);
    expect(buffer).toContain('src/a.py');
    expect(stripEditHeader(buffer)).toBe(text);
  });

  it('runs the editor on the buffer; a failing editor cancels (null)', async () => {
    const script = join(await mkdtemp(join(tmpdir(), 'clawcode-ed-')), 'ed.sh');
    await writeFile(script, '#!/bin/sh\ngrep -c "^#|" "$1" > /dev/null && sed -i "s/old/new/" "$1"\n', { mode: 0o755 });
    expect(editInEditor(script, 'old line\n', 'a.txt')).toBe('new line\n');
    expect(editInEditor('false', 'old line\n', 'a.txt')).toBeNull();
  });
});
