/**
 * Journal timing: in-process `applyRun` then `undoRun` of 1, 10 and 60 files (about 2 KB each, in 6
 * folders), median of 7 repetitions, in a temp folder on the default temp file system.
 * Run: `npx tsx bench/journal.ts`. Times are wall-clock ms and are dominated by fsync, so they vary
 * with the disk and the machine's load; count fsyncs (`strace -f -e trace=fsync`) for a stable measure.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { applyRun, type FileChange } from '../utils/journal/journal.js';
import { undoRun } from '../utils/journal/undo.js';

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const results: Record<number, { applyMs: number; undoMs: number }> = {};
for (const count of [1, 10, 60]) {
  const applyMs: number[] = [];
  const undoMs: number[] = [];
  for (let rep = 0; rep < 7; rep += 1) {
    const root = await mkdtemp(join(tmpdir(), 'cc-bench-root-'));
    const home = await mkdtemp(join(tmpdir(), 'cc-bench-home-'));
    const changes: FileChange[] = [];
    for (let i = 0; i < count; i += 1) {
      const path = `src/m${i % 6}/f${i}.ts`;
      const before = Buffer.from(`export const v${i} = ${i};\n`.repeat(80));
      await mkdir(join(root, `src/m${i % 6}`), { recursive: true });
      await writeFile(join(root, path), before);
      changes.push({ path, before, after: `export const v${i} = ${i * 2};\n`.repeat(80) });
    }
    let t = performance.now();
    await applyRun({ rootDir: root, homeDir: home, changes, meta: { task: 'bench' } });
    applyMs.push(performance.now() - t);
    t = performance.now();
    await undoRun({ rootDir: root, homeDir: home });
    undoMs.push(performance.now() - t);
    await Promise.all([root, home].map((dir) => rm(dir, { recursive: true, force: true })));
  }
  results[count] = { applyMs: Math.round(median(applyMs)), undoMs: Math.round(median(undoMs)) };
}
console.log(JSON.stringify(results));
