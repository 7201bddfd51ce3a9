import { mkdir, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { historyPath, loadHistory } from '../../../cli/interactive/history-file.js';
import { runRepl, type ReplOptions } from '../../../cli/interactive/repl.js';
import { ConfigError } from '../../../utils/errors.js';

let home: string;
let project: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
  vi.stubEnv('CLAWCODE_HOME', home);
  project = await mkdtemp(join(tmpdir(), 'clawcode-repl-'));
});

/** Run the REPL on piped input (all lines at once, as `printf ... | clawcode --shell` would). */
async function session(lines: string[], extra: Partial<ReplOptions> = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  let screen = '';
  output.on('data', (d: Buffer) => (screen += d.toString()));
  const tasks: { task: string; rootDir: string }[] = [];
  const done = runRepl({
    rootDir: project,
    input,
    output,
    env: { CLAWCODE_HOME: home, NO_COLOR: '1' },
    runTask: async (task, _signal, ctx) => {
      tasks.push({ task, rootDir: ctx.rootDir });
    },
    ...extra,
  });
  input.end(lines.map((l) => `${l}\n`).join(''));
  await done;
  return { screen, tasks };
}

describe('runRepl (piped)', () => {
  it('runs each line as a task in order, skips blank lines and leaves at end of input', async () => {
    const { screen, tasks } = await session(['add logging', '', 'fix the bug'], { banner: 'Provider: openai · gpt-x' });
    expect(screen).toContain('Provider: openai · gpt-x');
    expect(tasks.map((t) => t.task)).toEqual(['add logging', 'fix the bug']);
    expect(tasks[0]!.rootDir).toBe(project);
    expect(screen).toContain('clawcode shell');
    expect(screen.trimEnd().endsWith('Bye.')).toBe(true);
  });

  it(':exit leaves before later lines run', async () => {
    const { tasks } = await session(['one', ':exit', 'two']);
    expect(tasks.map((t) => t.task)).toEqual(['one']);
  });

  it(':help lists the commands and an unknown :command is named', async () => {
    const { screen, tasks } = await session([':help', ':bogus']);
    expect(screen).toContain(':project [path]');
    expect(screen).toContain(':undo');
    expect(screen).toContain('Unknown command :bogus');
    expect(tasks).toEqual([]);
  });

  it('a failing task shows its message and hint and the loop goes on', async () => {
    let n = 0;
    const { screen } = await session(['bad', 'good'], {
      runTask: async () => {
        n += 1;
        if (n === 1) throw new ConfigError('No provider configured', { hint: 'Run clawcode config' });
      },
    });
    expect(screen).toContain('✖ No provider configured');
    expect(screen).toContain('Run clawcode config');
    expect(n).toBe(2);
    expect(screen).not.toMatch(/\u001b\[/);
  });

  it(':project <path> switches the root for later tasks and rejects a missing folder', async () => {
    await mkdir(join(project, 'sub'));
    const { screen, tasks } = await session([':project nope', ':project sub', 'task']);
    expect(screen).toContain('nope does not exist');
    expect(tasks).toEqual([{ task: 'task', rootDir: join(project, 'sub') }]);
  });

  it(':provider and :undo call the injected callbacks, or say they are unavailable', async () => {
    const calls: string[] = [];
    const withCallbacks = await session([':provider groq', ':undo'], {
      switchProvider: async (name) => {
        calls.push(`provider ${name}`);
        return 'groq · llama';
      },
      undo: async (root) => {
        calls.push(`undo ${root}`);
        return 'Restored 2 files.';
      },
    });
    expect(calls).toEqual(['provider groq', `undo ${project}`]);
    expect(withCallbacks.screen).toContain('Provider: groq · llama');
    expect(withCallbacks.screen).toContain('Restored 2 files.');
    const without = await session([':provider', ':undo']);
    expect(without.screen).toContain('not available');
  });

  it('keeps the history per project on disk', async () => {
    await session(['first task', ':help']);
    expect(await loadHistory(project, { CLAWCODE_HOME: home })).toEqual(['first task', ':help']);
    expect(await readFile(historyPath(project, { CLAWCODE_HOME: home }), 'utf8')).toBe('first task\n:help\n');
  });
});
