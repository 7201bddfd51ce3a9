/**
 * Runs `runInkUI` on a project folder with a scripted task runner, for the pty tests:
 *   node --import tsx tests/support/tui-driver.ts <projectDir>
 * Tasks: "write <file> <text>" emits the agent events of a real run and writes `<text>\n`;
 * "wait" runs until Esc/Ctrl-C aborts it; anything else fails with "unknown task".
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { createAgentEmitter } from '../../agent/events.js';
import { loadInkUI } from '../../ui/load-ui.js';

const rootDir = process.argv[2] ?? process.cwd();
const emitter = createAgentEmitter();

const { runInkUI } = await loadInkUI();
await runInkUI({
  rootDir,
  provider: 'loopback',
  model: 'test-model',
  branch: 'main',
  emitter,
  runTask: async (task, signal) => {
    const write = /^write (\S+) (.*)$/.exec(task);
    if (write) {
      const [, file, text] = write as unknown as [string, string, string];
      emitter.emit('planning', { task });
      emitter.emit('model_reply', { ms: 5, inputTokens: 321, outputTokens: 12 });
      const before = await readFile(join(rootDir, file), 'utf8').catch(() => '');
      emitter.emit('diffs', {
        diffs: [{ file, diff: createTwoFilesPatch(`a/${file}`, `b/${file}`, before, `${text}\n`) }],
      });
      await writeFile(join(rootDir, file), `${text}\n`);
      emitter.emit('write_file', { path: file });
      emitter.emit('success', { message: `Applied 1 file`, filesWritten: [file] });
      return;
    }
    if (task === 'wait') {
      emitter.emit('planning', { task });
      await new Promise<void>((_resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('never aborted')), 60_000);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(new DOMException('aborted', 'AbortError'));
        });
      });
      return;
    }
    throw new Error(`unknown task: ${task}`);
  },
});
process.stdout.write('\nTUI closed\n');
