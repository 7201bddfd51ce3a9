import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createAgentEmitter } from '../../agent/events.js';
import { runInkUI } from '../../ui/run-ui.js';
import { UsageError } from '../../utils/errors.js';

beforeEach(async () => {
  vi.stubEnv('CLAWCODE_HOME', await mkdtemp(join(tmpdir(), 'clawcode-home-')));
});

describe('runInkUI', () => {
  it('refuses to start without a terminal, with a hint to pass a task', async () => {
    const pipe = new PassThrough() as unknown as NodeJS.ReadStream & NodeJS.WriteStream;
    const run = runInkUI({
      rootDir: '/p',
      provider: 'x',
      model: 'm',
      emitter: createAgentEmitter(),
      runTask: async () => undefined,
      stdin: pipe,
      stdout: pipe,
    });
    await expect(run).rejects.toBeInstanceOf(UsageError);
    await expect(run).rejects.toMatchObject({
      code: 'tui_needs_tty',
      exitCode: 2,
      hint: expect.stringContaining('clawcode "'),
    });
  });
});
