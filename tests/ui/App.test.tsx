import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { render } from 'ink-testing-library';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createAgentEmitter } from '../../agent/events.js';
import { createContextSession, sessionCommand } from '../../agent/context/session.js';
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

  it('answers :add, :files and :help from the session, never running them as tasks', async () => {
    const tasks: string[] = [];
    const files = createContextSession();
    files.kept = ['src/greet.js'];
    const r = await renderReady({
      filesCommand: (line) => sessionCommand(files, line),
      runTask: async (t) => {
        tasks.push(t);
      },
    });
    for (const [line, shown] of [
      [':add src/limits.js', 'Pinned src/limits.js'],
      [':files', 'kept    src/greet.js'],
      [':help', ':files list kept files'],
    ] as const) {
      await submitLine(r, line);
      await waitForFrame(r.lastFrame, shown);
    }
    expect(r.lastFrame()).toContain('pinned  src/limits.js');
    expect(files.pinned).toEqual(['src/limits.js']);
    expect(tasks).toEqual([]);
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
