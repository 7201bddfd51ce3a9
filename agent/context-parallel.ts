import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ScannedFile } from '../utils/scanner.js';
import { indexFile, type IndexedDoc } from './context-index.js';

/**
 * Cold indexing of a large repository splits its files with one worker thread: tokenizing ~10k files
 * is the one CPU-bound step of the context stage (issue 5 target: ≤ 1.5 s cold on ~10k files).
 */

/** Below this many files a worker's start-up (~50 ms) costs more than it saves. */
export const PARALLEL_MIN_FILES = 1500;
/** The worker boots while this thread already works, so it takes a little less than half. */
const WORKER_SHARE = 0.45;

type Job = Pick<ScannedFile, 'absPath' | 'mtimeMs' | 'sizeBytes'>;

function indexHere(jobs: readonly Job[]): IndexedDoc[] {
  return jobs.map((j) => indexFile(j.absPath, j.mtimeMs, j.sizeBytes));
}

function workerUrl(): URL {
  // Run from sources (tsx, vitest) the sibling is .ts; from the build it is .js.
  return new URL(import.meta.url.endsWith('.ts') ? './context-worker.ts' : './context-worker.js', import.meta.url);
}

/**
 * Index files, in order, using a worker thread for part of them when there are many and more
 * than one core. Any worker failure falls back to indexing its share on this thread.
 *
 * @returns one entry per input file, same order
 */
export async function indexFiles(files: readonly Job[]): Promise<IndexedDoc[]> {
  if (files.length < PARALLEL_MIN_FILES || availableParallelism() < 2) return indexHere(files);
  const split = Math.floor(files.length * WORKER_SHARE);
  const theirs = files.slice(0, split).map((f) => ({ absPath: f.absPath, mtimeMs: f.mtimeMs, sizeBytes: f.sizeBytes }));
  let worker: Worker;
  try {
    worker = new Worker(workerUrl(), { workerData: theirs });
  } catch {
    return indexHere(files);
  }
  const fromWorker = new Promise<IndexedDoc[] | null>((resolveDocs) => {
    worker.once('message', (docs: IndexedDoc[]) => resolveDocs(docs));
    worker.once('error', () => resolveDocs(null));
    worker.once('exit', () => resolveDocs(null));
  });
  const mine = indexHere(files.slice(split));
  const docs = (await fromWorker) ?? indexHere(theirs);
  void worker.terminate();
  return [...docs, ...mine];
}
