// Child process for tests/utils/lock.test.ts: takes the project lock, holds it, releases it.
// argv: <rootDir> <homeDir> <holdMs>. Prints "locked" once it holds the lock and "released" at the end.
import { setTimeout as sleep } from 'node:timers/promises';
import { acquireProjectLock } from '../../utils/journal/lock.js';

const [rootDir, homeDir, holdMs] = process.argv.slice(2);
if (rootDir === undefined || homeDir === undefined) throw new Error('usage: root home holdMs');
const release = await acquireProjectLock(rootDir, { homeDir, waitMs: 10_000 });
process.stdout.write('locked\n');
await sleep(Number(holdMs ?? 500));
await release();
process.stdout.write('released\n');
