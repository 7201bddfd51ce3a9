import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import chalk from 'chalk';
import { render } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ActivityFeed, describeEvent } from '../../ui/ActivityFeed.js';
import { DiffView, diffLines } from '../../ui/DiffView.js';
import { Header } from '../../ui/Header.js';
import { InputPrompt } from '../../ui/InputPrompt.js';
import { Logo, LOGO_LINES, LOGO_WIDTH } from '../../ui/Logo.js';
import { StatusBar } from '../../ui/StatusBar.js';

const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));
const level = chalk.level;

/** Poll until the frame shows `text` (renders can lag behind input on a busy machine). */
async function until(lastFrame: () => string | undefined, text: string) {
  for (let i = 0; i < 200 && !lastFrame()?.includes(text); i++) await tick(10);
  expect(lastFrame()).toContain(text);
}

beforeEach(async () => {
  vi.stubEnv('CLAWCODE_HOME', await mkdtemp(join(tmpdir(), 'clawcode-home-')));
});
afterEach(() => {
  chalk.level = level;
});

describe('Logo', () => {
  it('draws CLAWCODE in 5 rows that fit a 60-column terminal', () => {
    expect(LOGO_LINES).toHaveLength(5);
    expect(LOGO_WIDTH).toBeLessThanOrEqual(58);
    const { lastFrame } = render(<Logo columns={60} />);
    expect(lastFrame()!.split('\n')).toHaveLength(5);
  });

  it('falls back to one word on a narrow terminal', () => {
    expect(render(<Logo columns={30} />).lastFrame()).toBe('CLAWCODE');
  });
});

describe('Header and StatusBar', () => {
  it('header names provider, model, project folder and branch', () => {
    const frame = render(
      <Header provider="openai" model="gpt-4o-mini" rootDir="/work/shop-api" branch="main" />,
    ).lastFrame()!;
    expect(frame).toContain('openai · gpt-4o-mini │ shop-api │ ⎇ main');
  });

  it('status bar shows mode, model, tokens and memory', () => {
    const frame = render(
      <StatusBar mode="running" model="m1" inputTokens={120} outputTokens={30} memory="memory: 2 tasks" />,
    ).lastFrame()!;
    expect(frame).toContain('running │ m1 │ tokens 120↑ 30↓ │ memory: 2 tasks');
    expect(frame).toContain('Esc/Ctrl-C cancel');
  });

  it('status bar spins and shows the activity while busy, and neither when ready', async () => {
    const busy = render(
      <StatusBar mode="running" model="m" inputTokens={0} outputTokens={0} activity="249 chars received" />,
    );
    const first = busy.lastFrame()!;
    expect(first).toMatch(/^⠋ running 249 chars received │ m/);
    await until(busy.lastFrame, '⠙ running');
    const ready = render(
      <StatusBar mode="ready" model="m" inputTokens={0} outputTokens={0} activity="stale" />,
    ).lastFrame()!;
    expect(ready).toMatch(/^ready │ m/);
    expect(ready).not.toContain('stale');
  });
});

describe('ActivityFeed', () => {
  it('describes agent events as feed lines', () => {
    expect(describeEvent('planning', { task: 'add logging' })).toEqual({ kind: 'step', text: 'Planning: add logging' });
    expect(describeEvent('write_file', { path: 'src/a.ts' })).toEqual({ kind: 'file', text: 'Wrote src/a.ts' });
    expect(describeEvent('command_done', { command: 'npm test', exitCode: 1 })).toEqual({
      kind: 'error',
      text: 'npm test exited 1',
    });
    expect(describeEvent('model_progress', { chars: 10 })).toBeNull();
  });

  it('shows only the newest items with icons', () => {
    const items = [1, 2, 3, 4].map((i) => ({ id: i, kind: 'file' as const, text: `Read f${i}` }));
    const frame = render(
      <ActivityFeed items={[...items, { id: 5, kind: 'error', text: 'boom' }]} maxItems={3} />,
    ).lastFrame()!;
    expect(frame.split('\n')).toEqual(['▸ Read f3', '▸ Read f4', '✖ boom']);
  });
});

describe('DiffView', () => {
  const diff = [
    '--- a/x.ts',
    '+++ b/x.ts',
    '@@ -1,12 +1,12 @@',
    ...Array.from({ length: 12 }, (_, i) => (i === 5 ? '-old five' : ` line ${i}`)),
    '+new five',
    '',
  ].join('\n');

  it('colours added and removed lines', () => {
    chalk.level = 1;
    const frame = render(<DiffView diffs={[{ file: 'x.ts', diff }]} height={20} />).lastFrame()!;
    expect(frame).toContain('\u001b[32m+new five');
    expect(frame).toContain('\u001b[31m-old five');
  });

  it('scrolls with PageDown, and with arrows once focused by Tab', async () => {
    const { lastFrame, stdin } = render(<DiffView diffs={[{ file: 'x.ts', diff }]} height={5} />);
    expect(diffLines([{ file: 'x.ts', diff }])).toHaveLength(16);
    expect(lastFrame()).toContain('lines 1–5 of 16');
    await tick();
    stdin.write('\u001b[6~');
    await until(lastFrame, 'lines 6–10 of 16');
    stdin.write('\u001b[B');
    await until(lastFrame, 'lines 6–10 of 16');
    stdin.write('\t');
    await until(lastFrame, 'Tab back');
    stdin.write('\u001b[B');
    await until(lastFrame, 'lines 7–11 of 16');
    stdin.write('\u001b[6~');
    await tick();
    stdin.write('\u001b[6~');
    await until(lastFrame, 'lines 12–16 of 16');
  });
});

describe('InputPrompt', () => {
  it('submits typed text on Enter and walks history with the arrows', async () => {
    const submitted: string[] = [];
    const { lastFrame, stdin } = render(
      <InputPrompt onSubmit={(v) => submitted.push(v)} history={['first', 'second']} />,
    );
    for (let i = 0; i < 100 && !lastFrame()!.includes('describe a task'); i++) await tick(10);
    stdin.write('fix it');
    await until(lastFrame, 'fix it');
    stdin.write('\u007f');
    await tick();
    stdin.write('\r');
    await tick();
    for (let i = 0; i < 100 && submitted.length < 1; i++) await tick(10);
    expect(submitted).toEqual(['fix i']);
    stdin.write('\u001b[A');
    await until(lastFrame, 'second');
    stdin.write('\u001b[A');
    await until(lastFrame, 'first');
    stdin.write('\u001b[B');
    await until(lastFrame, 'second');
    stdin.write('\r');
    await tick();
    for (let i = 0; i < 100 && submitted.length < 2; i++) await tick(10);
    expect(submitted).toEqual(['fix i', 'second']);
  });

  it('edits at the cursor: arrows, Home/End, Ctrl-W, Ctrl-U and Ctrl-K, readline-style', async () => {
    const submitted: string[] = [];
    const { lastFrame, stdin } = render(<InputPrompt onSubmit={(v) => submitted.push(v)} history={[]} />);
    for (let i = 0; i < 100 && !lastFrame()!.includes('describe a task'); i++) await tick(10);
    const type = async (keys: string) => {
      stdin.write(keys);
      await tick();
    };
    const submit = async (count: number) => {
      await type('\r');
      for (let i = 0; i < 100 && submitted.length < count; i++) await tick(10);
    };
    await type('fix bug');
    for (const _ of 'bug') await type('\u001b[D');
    await type('the ');
    await until(lastFrame, 'fix the ');
    await type('\u001b[C\u007f');
    await submit(1);
    expect(submitted).toEqual(['fix the ug']);

    await type('add logging');
    await type('\u0001');
    await type('please ');
    await type('\u0005');
    await type('\u0017');
    await submit(2);
    expect(submitted[1]).toBe('please add');

    await type('keep this drop that');
    for (const _ of ' drop that') await type('\u001b[D');
    await type('\u000b');
    await submit(3);
    expect(submitted[2]).toBe('keep this');

    await type('old words new words');
    for (const _ of 'new words') await type('\u001b[D');
    await type('\u0015');
    await submit(4);
    expect(submitted[3]).toBe('new words');

    // Home and End keys; Ctrl-B / Ctrl-F; Alt-B jumps a word left.
    await type('abc');
    await type('\u001b[H');
    await type('>');
    await type('\u001b[F');
    await type('d');
    await type('\u0002');
    await type('\u0002');
    await type('_');
    await type('\u0006');
    await type('!');
    await type('\u001bb');
    await type('^');
    await submit(5);
    expect(submitted[4]).toBe('^>ab_c!d');

    // An emoji is one character for the arrows and Backspace.
    await type('😀ab');
    await type('\u0001');
    await type('\u001b[C');
    await type('Z');
    await type('\u001b[F');
    await type('x😀');
    await type('\u007f');
    await submit(6);
    expect(submitted[5]).toBe('😀Zabx');
  });

  it('scrolls a long line so the cursor stays in view', async () => {
    const { lastFrame, stdin } = render(<InputPrompt onSubmit={() => {}} history={[]} />);
    for (let i = 0; i < 100 && !lastFrame()!.includes('describe a task'); i++) await tick(10);
    stdin.write(`START${'x'.repeat(300)}END`);
    await until(lastFrame, 'END');
    expect(lastFrame()).not.toContain('START');
    stdin.write('\u0001');
    await until(lastFrame, 'START');
    expect(lastFrame()).not.toContain('END');
  });

  it('ignores typing while disabled', async () => {
    const submitted: string[] = [];
    const { lastFrame, stdin } = render(<InputPrompt onSubmit={(v) => submitted.push(v)} history={[]} disabled />);
    await tick();
    stdin.write('x\r');
    await tick();
    expect(submitted).toEqual([]);
    expect(lastFrame()).toContain('running…');
  });
});
