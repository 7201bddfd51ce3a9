import { parentPort, workerData } from 'node:worker_threads';
import { indexFile } from './context-index.js';

/** Worker entry of `indexFiles` (context-parallel.ts): index the files it is given, post the entries back. */
const jobs = workerData as { absPath: string; mtimeMs: number; sizeBytes: number }[];
parentPort?.postMessage(jobs.map((j) => indexFile(j.absPath, j.mtimeMs, j.sizeBytes)));
