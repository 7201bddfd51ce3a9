import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { render } from 'ink-testing-library';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createAgentEmitter } from '../../agent/events.js';
import { createCarriedFiles } from '../../agent/context/carried-files.js';
import { runColonCommand } from '../../cli/interactive/colon-commands.js';
import { App, type AppProps } from '../../ui/App.js';
import { ConfigError } from '../../utils/errors.js';

const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));

beforeEach(async () => {
  vi.stubEnv('CLAWCODE_HOME', await mkdtemp(join(tmpdir(), 'clawcode-home-')));
});

async function waitForFrame(lastFrame: () => string | undefined, text: string) {
  for (let i = 0; i < 100 && !lastFrame()?.includes(text); i++) await tick(10);
  expect(lastFrame()).toContain(text);
}

/** The App on project "/p" with provider "x" and model "m" (the props a test does not care about), ready for input. */
async function renderReady(props: Pick<AppProps, 'runTask'> & Partial<AppProps>) {
  const r = render(<App rootDir="/p" provider="x" model="m" emitter={createAgentEmitter()} {...props} />);
  await waitForFrame(r.lastFrame, 'describe a task');
  return r;
}

/** Type `line` as a person does: wait for its echo, then press Enter. */
async function submitLine(r: ReturnType<typeof render>, line: string) {
  r.stdin.write(line);
  await waitForFrame(r.lastFrame, line);
  r.stdin.write('\r');
}

describe('App', () => {
  it('runs a submitted task and shows its events, diff and token totals', async () => {
    const emitter = createAgentEmitter();
    const tasks: string[] = [];
    const submitted: string[] = [];
    const { lastFrame, stdin } = render(
      <App
        rootDir="/tmp/shop"
        provider="openai"
        model="gpt-test"
        branch="dev"
        emitter={emitter}
        onSubmitted={(t) => submitted.push(t)}
        runTask={async (task) => {
          tasks.push(task);
          emitter.emit('planning', { task });
          emitter.emit('model_reply', { ms: 12, inputTokens: 100, outputTokens: 40 });
          emitter.emit('diffs', {
            diffs: [{ file: 'a.ts', diff: '--- a/a.ts\n+++ b/a.ts\n@@ -1 +1 @@\n-old\n+new\n' }],
          });
          emitter.emit('write_file', { path: 'a.ts' });
          emitter.emit('success', { message: 'Applied 1 file', filesWritten: ['a.ts'] });
        }}
      />,
    );
    expect(lastFrame()).toContain('openai · gpt-test │ shop │ ⎇ dev');
    expect(lastFrame()).toContain('ready');
    await waitForFrame(lastFrame, 'describe a task');
    stdin.write('rename old');
    await waitForFrame(lastFrame, 'rename old');
    await tick(100);
    stdin.write('\r');
    await waitForFrame(lastFrame, 'Applied 1 file');
    const frame = lastFrame()!;
    expect(tasks).toEqual(['rename old']);
    expect(submitted).toEqual(['rename old']);
    expect(frame).toContain('Planning: rename old');
    expect(frame).toContain('Wrote a.ts');
    expect(frame).toContain('+new');
    expect(frame).toContain('tokens 100↑ 40↓');
    expect(frame).toContain('ready');
  });

  it('shows a failed task as an error line and stays ready', async () => {
    const r = await renderReady({
      runTask: async () => {
        throw new ConfigError('No provider configured');
      },
    });
    await submitLine(r, 'go');
    await waitForFrame(r.lastFrame, '✖ No provider configured');
    expect(r.lastFrame()).toContain('ready');
  });

  it('Esc cancels the running task through its AbortSignal', async () => {
    let seen: AbortSignal | undefined;
    const r = await renderReady({
      runTask: (_task, signal) => {
        seen = signal;
        return new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
        );
      },
    });
    await submitLine(r, 'long task');
    await waitForFrame(r.lastFrame, 'running…');
    r.stdin.write('\u001b');
    await waitForFrame(r.lastFrame, 'Task cancelled.');
    expect(seen?.aborted).toBe(true);
    expect(r.lastFrame()).toContain('ready');
  });

  it("asks the task's yes/no questions inside the TUI: y answers yes, n answers no", async () => {
    const emitter = createAgentEmitter();
    const answers: boolean[] = [];
    const r = await renderReady({
      emitter,
      runTask: async (_task, _signal, hooks) => {
        answers.push(await hooks.confirm('Apply these changes to 1 file?'));
        answers.push(await hooks.confirm('Run npm test?'));
        emitter.emit('success', { message: 'applied', filesWritten: ['a.ts'] });
      },
    });
    await submitLine(r, 'go');
    await waitForFrame(r.lastFrame, '? Apply these changes to 1 file? (y/n)');
    r.stdin.write('y');
    await waitForFrame(r.lastFrame, 'Run npm test?');
    r.stdin.write('n');
    await waitForFrame(r.lastFrame, 'applied · wrote 1 file');
    expect(answers).toEqual([true, false]);
  });

  it('answers :add, :files and :help through the command handler, never running them as tasks', async () => {
    const tasks: string[] = [];
    const files = createCarriedFiles();
    files.kept = ['src/greet.js'];
    const r = await renderReady({
      command: (line, _signal, hooks) =>
        runColonCommand(
          line,
          { rootDir: '/p' },
          { files },
          { say: hooks.print, error: (t) => hooks.print(t, 'error') },
        ),
      runTask: async (t) => {
        tasks.push(t);
      },
    });
    for (const [line, shown] of [
      [':add src/limits.js', 'Pinned src/limits.js'],
      [':files', 'kept    src/greet.js'],
      [':help', 'Keys: Esc cancels a running task'],
      [':undoo', 'Unknown command :undoo (not sent to the model)'],
    ] as const) {
      await submitLine(r, line);
      await waitForFrame(r.lastFrame, shown);
    }
    expect(r.lastFrame()).toContain(':files            list pinned files');
    expect(files.pinned).toEqual(['src/limits.js']);
    expect(tasks).toEqual([]);
  });

  it('a command offers a list: typing narrows it, Enter picks, Esc backs out', async () => {
    const picked: (string | undefined)[] = [];
    const r = await renderReady({
      command: async (_line, _signal, hooks) => {
        picked.push(
          await hooks.pick(
            'Which model?',
            ['gpt-4o', 'gpt-4o-mini', 'o3'].map((m) => ({ name: m, value: m })),
          ),
        );
        return 'done';
      },
      runTask: async () => {},
    });
    await submitLine(r, ':model');
    await waitForFrame(r.lastFrame, '1 of 3');
    // The list reads keys once it has mounted (its input hook subscribes after the first frame).
    await tick(50);
    r.stdin.write('mini');
    await waitForFrame(r.lastFrame, '1 of 1');
    expect(r.lastFrame()).not.toContain('o3');
    r.stdin.write('\r');
    await waitForFrame(r.lastFrame, 'describe a task');
    await submitLine(r, ':model');
    await waitForFrame(r.lastFrame, '1 of 3');
    await tick(50);
    r.stdin.write('\u001b[B');
    await waitForFrame(r.lastFrame, '2 of 3');
    r.stdin.write('\u001b');
    await waitForFrame(r.lastFrame, 'describe a task');
    expect(picked).toEqual(['gpt-4o-mini', undefined]);
  });

  it('counts the tokens of a repair request with the plan request, grouped as the console writes them', async () => {
    const emitter = createAgentEmitter();
    const r = await renderReady({
      emitter,
      runTask: async () => {
        emitter.emit('model_reply', { ms: 1200, inputTokens: 1000, outputTokens: 200 });
        emitter.emit('repair_request', { patches: [2], firstError: 'patch #2 (a.ts): find text not found' });
        emitter.emit('repair_reply', { ms: 900, applied: true, inputTokens: 1500, outputTokens: 300 });
      },
    });
    await submitLine(r, 'go');
    await waitForFrame(r.lastFrame, 'tokens 2,500↑ 500↓');
    expect(r.lastFrame()).toContain('Asking once more for patch #2: patch #2 (a.ts): find text not found');
    expect(r.lastFrame()).toContain('Repair received in 900 ms: the plan applies');
  });

  it(':exit leaves the app without running a task', async () => {
    const tasks: string[] = [];
    const r = await renderReady({
      runTask: async (t) => {
        tasks.push(t);
      },
    });
    await submitLine(r, ':exit');
    await tick();
    expect(tasks).toEqual([]);
    expect(r.lastFrame()).toBeDefined();
  });
});
