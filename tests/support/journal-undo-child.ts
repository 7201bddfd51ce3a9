// Child process for the SIGKILL undo test (tests/utils/journal-undo-kill.test.ts): undoes the newest run.
// argv: <rootDir> <homeDir>. Prints "ready" right before undoRun starts, "restored <path>" after each
// file and "done <ms>" at the end.
import { undoRun } from '../../utils/journal/undo.js';

const [rootDir, homeDir] = process.argv.slice(2);
if (rootDir === undefined || homeDir === undefined) throw new Error('usage: root home');
process.stdout.write('ready\n');
const started = performance.now();
await undoRun({ rootDir, homeDir, onRestore: (path) => process.stdout.write(`restored ${path}\n`) });
process.stdout.write(`done ${Math.round(performance.now() - started)}\n`);
