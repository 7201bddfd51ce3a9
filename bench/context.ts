import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildContext } from '../agent/context.js';
import type { ContextFile } from '../agent/selector.js';
import { bm25Select, loadTree, referenceSelect } from './context-baselines.js';
import { gitDirFor, goldHunks, loadTasks, materialise, namesChangedFile, type BenchTask, type Hunk } from './context-data.js';

/**
 * `npm run bench:context`: file recall, hunk recall and time per task for clawcode's selector, the
 * reference keyword scorer and plain BM25, at 18k and 60k characters, on ../shared/bench's public tasks
 * (task text = `subject`). Env: CLAWCODE_BENCH_REPOS (folder of bare clones, required),
 * CLAWCODE_BENCH_TASKS (default ../shared/bench), CLAWCODE_BENCH_FILTER (substring of repo names),
 * CLAWCODE_BENCH_HOME (keep indexes between runs), CLAWCODE_BENCH_ONLY_OURS (skip the baselines).
 */

const BUDGETS = [18_000, 60_000] as const;
const SELECTORS = ['ours', 'reference', 'bm25'] as const;
type Selector = (typeof SELECTORS)[number];

interface Outcome {
  repo: string;
  leak: boolean;
  fileRecall: number;
  hunkRecall: number;
  ms: number;
}

function covered(h: Hunk, files: readonly ContextFile[]): boolean {
  const f = files.find((x) => x.path === h.file);
  if (!f) return false;
  return f.ranges === null || f.ranges.some(([a, b]) => a <= h.start && h.end <= b);
}

function score(task: BenchTask, hunks: readonly Hunk[], files: readonly ContextFile[], ms: number): Omit<Outcome, 'repo' | 'leak'> {
  const sent = new Set(files.map((f) => f.path));
  const gold = task.gold;
  return {
    fileRecall: gold.length === 0 ? 0 : gold.filter((g) => sent.has(g)).length / gold.length,
    hunkRecall: hunks.length === 0 ? 0 : hunks.filter((h) => covered(h, files)).length / hunks.length,
    ms,
  };
}

const mean = (xs: readonly number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
const f3 = (x: number): string => x.toFixed(3);

async function main(): Promise<void> {
  const reposDir = process.env.CLAWCODE_BENCH_REPOS;
  if (!reposDir) throw new Error('set CLAWCODE_BENCH_REPOS to a folder of bare clones (owner+name/repo, owner+name or owner+name.git)');
  const tasksDir = resolve(process.env.CLAWCODE_BENCH_TASKS ?? '../shared/bench');
  const filter = process.env.CLAWCODE_BENCH_FILTER ?? '';
  const cacheDir = resolve('bench/.cache');
  // A kept home (CLAWCODE_BENCH_HOME) reuses indexes across runs: for tuning, not for timing.
  const keptHome = process.env.CLAWCODE_BENCH_HOME;
  const home = keptHome ?? mkdtempSync(join(tmpdir(), 'clawcode-bench-home-'));
  const tasks = loadTasks(tasksDir).filter((t) => t.repo.includes(filter));
  const results = new Map<string, Outcome[]>();
  const push = (sel: Selector, budget: number, o: Outcome): void => {
    const key = `${sel}@${budget}`;
    results.set(key, [...(results.get(key) ?? []), o]);
  };
  const warmMs: number[] = [];
  let done = 0;
  for (const task of tasks) {
    const gitDir = gitDirFor(reposDir, task.repo);
    const root = materialise(cacheDir, gitDir, task);
    const hunks = goldHunks(gitDir, task);
    const leak = namesChangedFile(task);
    const tree = process.env.CLAWCODE_BENCH_ONLY_OURS ? { files: [] } : await loadTree(root);
    let docs;
    for (const budget of BUDGETS) {
      const r = await buildContext({ rootDir: root, task: task.subject, budgetChars: budget, homeDir: home });
      if (budget !== BUDGETS[0]) warmMs.push(r.ms);
      push('ours', budget, { repo: task.repo, leak, ...score(task, hunks, r.files, r.ms) });
      if (process.env.CLAWCODE_BENCH_ONLY_OURS) continue;
      let t = performance.now();
      const ref = referenceSelect(task.subject, tree, budget);
      push('reference', budget, { repo: task.repo, leak, ...score(task, hunks, ref, performance.now() - t) });
      t = performance.now();
      const bm = bm25Select(task.subject, tree, budget, docs);
      docs = bm.docs;
      push('bm25', budget, { repo: task.repo, leak, ...score(task, hunks, bm.files, performance.now() - t) });
    }
    if (++done % 40 === 0) process.stderr.write(`${done}/${tasks.length} tasks\n`);
  }
  if (!keptHome) rmSync(home, { recursive: true, force: true });

  const repos = [...new Set(tasks.map((t) => t.repo))];
  const short = (r: string): string => r.split('+')[1] ?? r;
  const lines: string[] = [];
  lines.push(`Context benchmark: ${tasks.length} tasks (${tasks.filter(namesChangedFile).length} name a changed file), task text = subject`);
  lines.push('');
  lines.push(`| selector | budget | file | hunk | hunk no-leak | ${repos.map((r) => `hunk ${short(r)}`).join(' | ')} | ms/task |`);
  lines.push(`|---|---|---|---|---|${repos.map(() => '---').join('|')}|---|`);
  for (const budget of BUDGETS) {
    for (const sel of SELECTORS) {
      const os = results.get(`${sel}@${budget}`) ?? [];
      const perRepo = repos.map((r) => f3(mean(os.filter((o) => o.repo === r).map((o) => o.hunkRecall))));
      lines.push(`| ${sel} | ${budget / 1000}k | ${f3(mean(os.map((o) => o.fileRecall)))} | ${f3(mean(os.map((o) => o.hunkRecall)))} | ${f3(mean(os.filter((o) => !o.leak).map((o) => o.hunkRecall)))} | ${perRepo.join(' | ')} | ${mean(os.map((o) => o.ms)).toFixed(0)} |`);
    }
  }
  lines.push('');
  const cold = (results.get(`ours@${BUDGETS[0]}`) ?? []).map((o) => o.ms);
  lines.push(`ours, in-process ms per task: cold index ${mean(cold).toFixed(0)} (max ${Math.max(...cold).toFixed(0)}), warm index ${mean(warmMs).toFixed(0)} (max ${Math.max(...warmMs).toFixed(0)})`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exitCode = 1;
});
