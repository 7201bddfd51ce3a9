// Child process for the SIGKILL test (tests/utils/journal-kill.test.ts): applies one run of many files.
// argv: <rootDir> <homeDir> <changes.json>; changes.json is [{ path, before: base64 | null, after }].
// Prints "ready" right before applyRun starts, "wrote <path>" after each file and "done <ms>" at the end.
import { readFileSync } from 'node:fs';
import { applyRun, type FileChange } from '../../utils/journal/journal.js';

const [rootDir, homeDir, changesPath] = process.argv.slice(2);
if (rootDir === undefined || homeDir === undefined || changesPath === undefined)
  throw new Error('usage: root home changes.json');
const raw = JSON.parse(readFileSync(changesPath, 'utf8')) as { path: string; before: string | null; after: string }[];
const changes: FileChange[] = raw.map((c) => ({
  path: c.path,
  before: c.before === null ? null : Buffer.from(c.before, 'base64'),
  after: c.after,
}));
process.stdout.write('ready\n');
const started = performance.now();
await applyRun({
  rootDir,
  homeDir,
  changes,
  meta: { task: 'many files' },
  onWrite: (path) => process.stdout.write(`wrote ${path}\n`),
});
process.stdout.write(`done ${Math.round(performance.now() - started)}\n`);
