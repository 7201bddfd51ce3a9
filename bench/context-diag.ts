import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildContext } from '../agent/context/build.js';
import { loadIndex } from '../agent/context/search-index.js';
import { rankFiles, type RankDoc } from '../agent/context/rank.js';
import { gitDirFor, goldHunks, loadTasks, materialise, queryOf } from './context-data.js';
import { formatLoss, lossSummary, type Miss } from './context-loss.js';

/**
 * Diagnostics for tuning the context stage (not part of any test): for every task, each gold hunk
 * missed at the given budget with the gold file's size, whether the file was sent at all, and its
 * rank in the outline order; last, the loss summed by cause (`lossSummary`). Env as bench/context.ts,
 * plus CLAWCODE_DIAG_BUDGET (default 60000).
 */
async function main(): Promise<void> {
  const reposDir = process.env.CLAWCODE_BENCH_REPOS!;
  const tasks = loadTasks(resolve(process.env.CLAWCODE_BENCH_TASKS ?? '../shared/bench')).filter(
    (t) =>
      t.repo.includes(process.env.CLAWCODE_BENCH_FILTER ?? '') && t.set.includes(process.env.CLAWCODE_BENCH_SET ?? ''),
  );
  const budget = Number(process.env.CLAWCODE_DIAG_BUDGET ?? 60_000);
  const home = process.env.CLAWCODE_BENCH_HOME!;
  const misses: Miss[] = [];
  for (const task of tasks) {
    const gitDir = gitDirFor(reposDir, task.repo);
    const root = materialise(resolve('bench/.cache'), gitDir, task);
    const hunks = goldHunks(gitDir, task);
    const r = await buildContext({ rootDir: root, task: queryOf(task), budgetChars: budget, homeDir: home });
    const missed = hunks.filter((h) => {
      const f = r.files.find((x) => x.path === h.file);
      return !f || !(f.ranges === null || f.ranges.some(([a, b]) => a <= h.start && h.end <= b));
    });
    if (missed.length === 0) continue;
    const docs: RankDoc[] = [...loadIndex(home, root)]
      .filter(([, d]) => d.kind === 'text')
      .map(([path, doc]) => ({ path, doc }));
    const order = rankFiles(queryOf(task), docs).ranked.map((x) => x.path);
    const rows = missed.map((h) => {
      const place = r.files.findIndex((x) => x.path === h.file);
      const f = r.files[place];
      // A gold file can be missing from the tree: a blob the mirror lacks, or `export-ignore`.
      let size = -1;
      try {
        size = readFileSync(join(root, h.file), 'utf8').length;
      } catch {
        // left at -1: not in the tree
      }
      const rank = order.indexOf(h.file);
      misses.push({ taskHunks: hunks.length, sentAt: f ? place : null, rank, size });
      return `  ${h.file}:${h.start}-${h.end} size=${size} ${f ? `sent#${place} ${f.ranges ? JSON.stringify(f.ranges) : 'whole'}` : `not sent (rank ${rank})`}`;
    });
    process.stdout.write(
      `${task.repo} ${task.id ?? task.sha.slice(0, 8)} "${task.subject.slice(0, 60)}" missed ${missed.length}/${hunks.length} used=${r.totalChars} files=${r.files.length}\n${rows.join('\n')}\n`,
    );
  }
  if (tasks.length > 0) process.stdout.write(`${formatLoss(lossSummary(misses, tasks.length))}\n`);
}
main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
