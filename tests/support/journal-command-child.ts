// Child process for tests/utils/commands.test.ts: starts a long command, then exits without waiting.
// argv: <cwd>. The command writes its own shell's pid and a background child's pid to pids.txt.
import { runCommand } from '../../utils/shell/run.js';

const [cwd] = process.argv.slice(2);
if (cwd === undefined) throw new Error('usage: cwd');
void runCommand('sleep 30 & echo "$$ $!" > pids.txt; sleep 30', { cwd });
setTimeout(() => process.exit(0), 300);
