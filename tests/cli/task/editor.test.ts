import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseEditor, editBuffer, editInEditor, editorCommand, stripEditHeader } from '../../../cli/task/editor.js';
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

  it("never takes a project's own core.editor (fails on main)", async () => {
    const repo = await mkdtemp(join(tmpdir(), 'clawcode-editor-'));
    execFileSync('git', ['init', '-q', repo], { env: { ...process.env, ...GIT_TEST_ENV } });
    execFileSync('git', ['-C', repo, 'config', 'core.editor', 'my-editor --flag'], {
      env: { ...process.env, ...GIT_TEST_ENV },
    });
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: repo, ...GIT_TEST_ENV };
    expect(await chooseEditor(env, repo)).toEqual({ command: 'vi', source: 'default' });
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
    expect(editInEditor(script, 'old line\n', 'a.txt', '/nonexistent-root')).toBe('new line\n');
    expect(editInEditor('false', 'old line\n', 'a.txt', '/nonexistent-root')).toBeNull();
  });

  it('never starts an editor the project supplies on PATH (node_modules/.bin under npx; fails on main)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'clawcode-ed-root-'));
    const bin = join(root, 'node_modules', '.bin');
    const sentinel = join(root, 'ran');
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, 'clawcode-test-editor'), `#!/bin/sh\ntouch ${sentinel}\n`, { mode: 0o755 });
    const saved = process.env.PATH;
    process.env.PATH = `${bin}:${saved}`;
    try {
      for (const editor of ['clawcode-test-editor', 'clawcode-test-editor -n'])
        editInEditor(editor, 'x\n', 'a.txt', root);
    } finally {
      process.env.PATH = saved;
    }
    expect(existsSync(sentinel)).toBe(false);
  });
});

describe('the editor never runs the plan path through a shell', () => {
  it('runs a plain editor directly and a command line as git does: sh -c \'<editor> "$@"\' with the file as data', () => {
    expect(editorCommand('nano', '/tmp/x/hunk.md')).toEqual({ file: 'nano', args: ['/tmp/x/hunk.md'] });
    expect(editorCommand('code --wait', '/tmp/x/hunk.md')).toEqual({
      file: '/bin/sh',
      args: ['-c', 'code --wait "$@"', 'code --wait', '/tmp/x/hunk.md'],
    });
  });

  it('a path holding $(…) names no temp file and runs nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'clawcode-ed-'));
    const sentinel = join(dir, 'pwned');
    const payload = Buffer.from(`touch ${sentinel}`).toString('base64');
    const seen = join(dir, 'seen');
    const script = join(dir, 'ed.sh');
    await writeFile(script, `#!/bin/sh\nfor a; do last=$a; done\nprintf '%s' "$last" > ${seen}\n`, { mode: 0o755 });
    for (const editor of [script, `${script} --wait`]) {
      expect(editInEditor(editor, 'x\n', `src/notes$(echo ${payload}|base64 -d|sh).md`, dir)).toBe('x\n');
      expect(existsSync(sentinel)).toBe(false);
      expect(basename(await readFile(seen, 'utf8'))).toBe('hunk.md');
    }
    // A header line that holds the path stays one line whatever the path holds.
    expect(stripEditHeader(editBuffer('body\n', 'a\nb.md'))).toBe('body\n');
  });
});
