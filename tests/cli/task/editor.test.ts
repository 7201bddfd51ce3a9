import { execFileSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseEditor, editBuffer, editInEditor, stripEditHeader } from '../../../cli/task/editor.js';
import { GIT_TEST_ENV } from '../../support/fixture.js';

describe('chooseEditor', () => {
  const noGit = () => undefined;
  it('takes $VISUAL, then $EDITOR, then git, then vi', () => {
    expect(chooseEditor({ VISUAL: 'code --wait', EDITOR: 'nano' }, '/', noGit)).toEqual({
      command: 'code --wait',
      source: 'VISUAL',
    });
    expect(chooseEditor({ VISUAL: ' ', EDITOR: 'nano' }, '/', noGit)).toEqual({ command: 'nano', source: 'EDITOR' });
    expect(chooseEditor({}, '/', () => 'emacs')).toEqual({ command: 'emacs', source: 'git var GIT_EDITOR' });
    expect(chooseEditor({}, '/', noGit)).toEqual({ command: 'vi', source: 'default' });
  });

  it("reads a project's core.editor through the real `git var GIT_EDITOR`", async () => {
    const repo = await mkdtemp(join(tmpdir(), 'clawcode-editor-'));
    execFileSync('git', ['init', '-q', repo], { env: { ...process.env, ...GIT_TEST_ENV } });
    execFileSync('git', ['-C', repo, 'config', 'core.editor', 'my-editor --flag'], {
      env: { ...process.env, ...GIT_TEST_ENV },
    });
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: repo, ...GIT_TEST_ENV };
    expect(chooseEditor(env, repo)).toEqual({ command: 'my-editor --flag', source: 'git var GIT_EDITOR' });
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
