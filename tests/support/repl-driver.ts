/**
 * Runs `runRepl` on a project folder with a scripted task runner, for the pty tests:
 *   node --import tsx tests/support/repl-driver.ts <projectDir>
 * Tasks: "write <file> <text>" writes `<text>\n` into the project; "wait" runs until Ctrl-C aborts it;
 * anything else just prints "ran: <task>".
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runRepl } from '../../cli/interactive/repl.js';

const rootDir = process.argv[2] ?? process.cwd();

await runRepl({
  rootDir,
  runTask: async (task, signal, ctx) => {
    const write = /^write (\S+) (.*)$/.exec(task);
    if (write) {
      await writeFile(join(ctx.rootDir, write[1]!), `${write[2]}\n`);
      process.stdout.write(`wrote ${write[1]}\n`);
      return;
    }
    if (task === 'wait') {
      process.stdout.write('working...\n');
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, 60_000);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(new DOMException('The task was aborted', 'AbortError'));
        });
      });
      return;
    }
    process.stdout.write(`ran: ${task}\n`);
  },
});
