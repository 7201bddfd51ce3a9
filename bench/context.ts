import { appendFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildContext } from '../agent/context/build.js';
import { budgetForWindow } from '../config/model-budget.js';
import type { ContextFile } from '../agent/context/select.js';
import { bm25Select, loadTree, referenceSelect } from './context-baselines.js';
import {
  gitDirFor,
  goldHunks,
  loadTasks,
  materialise,
  namesChangedFile,
  queryOf,
  type BenchTask,
  type Hunk,
} from './context-data.js';

/**
 * `npm run bench:context`: file recall, hunk recall, mean characters sent and time per task for
 * clawcode's selector and plain BM25 (and, with CLAWCODE_BENCH_REFERENCE=1, the keyword scorer
 * `referenceSelect`) at 18k, 60k, 120k and 240k characters and at the default budget of a model with a
 * 128k-token window, side by side in one run, on
 * ../shared/bench's public sets: real commits (task text = `subject`) and issue reports (task text =
 * the issue). Rows per repository, overall, and per half: the "tune" repositories are the ones
 * weights may be tuned on, the "held out" ones are not.
 * Env: CLAWCODE_BENCH_REPOS (folder of bare clones, required), CLAWCODE_BENCH_TASKS (default
 * ../shared/bench), CLAWCODE_BENCH_FILTER (substring of repo names), CLAWCODE_BENCH_SET (commits or
 * issues), CLAWCODE_BENCH_HOME (keep indexes between runs), CLAWCODE_BENCH_ONLY_OURS (skip baselines),
 * CLAWCODE_BENCH_BUDGETS (comma-separated budgets in characters), CLAWCODE_BENCH_BEFORE (the root of
 * another checkout, e.g. `git archive main`: its `agent/context/build.ts`, or `agent/context.ts` in a checkout
 * older than that move, runs as the `before` selector, side by side), CLAWCODE_BENCH_DUMP (a file: one JSON
 * line per task and selector).
 */

/** The default budget of a model with a 128k-token window, the smallest window the default targets. */
const DEFAULT_128K = budgetForWindow(128_000).chars;
/**
 * Budgets in characters: CLAWCODE_BENCH_BUDGETS (comma-separated), else 18k, 60k, 120k, 240k and the
 * default for a 128k-token model (labelled `default`).
 */
const BUDGETS: readonly number[] = [
  ...new Set(
    (process.env.CLAWCODE_BENCH_BUDGETS ?? `18000,60000,120000,240000,${DEFAULT_128K}`)
      .split(',')
      .map((b) => Number(b.trim()))
      .filter((b) => Number.isFinite(b) && b > 0),
  ),
];
const label = (b: number): string => (b === DEFAULT_128K ? `default (${b / 1000}k)` : `${b / 1000}k`);
type Selector = 'ours' | 'before' | 'reference' | 'bm25';

/**
 * Repositories weights may be tuned on, per set; every other repository (the public held-out ones and
 * any set from CLAWCODE_BENCH_TASKS) is held out: its rows measure how the rules carry over.
 */
const TUNE: Record<BenchTask['set'], readonly string[]> = {
  commits: ['pallets+flask', 'sindresorhus+ky', 'urfave+cli'],
  issues: ['astropy+astropy', 'pallets+flask'],
};
const heldOut = (set: BenchTask['set'], repo: string): boolean => !TUNE[set].includes(repo);

interface Outcome {
  repo: string;
  set: BenchTask['set'];
  leak: boolean;
  fileRecall: number;
  hunkRecall: number;
  /** characters sent: file texts, plus the project map for ours and before */
  chars: number;
  ms: number;
}

function covered(h: Hunk, files: readonly ContextFile[]): boolean {
  const f = files.find((x) => x.path === h.file);
  if (!f) return false;
  return f.ranges === null || f.ranges.some(([a, b]) => a <= h.start && h.end <= b);
}

function score(
  task: BenchTask,
  hunks: readonly Hunk[],
  files: readonly ContextFile[],
  ms: number,
  chars = files.reduce((a, f) => a + f.chars, 0),
): Pick<Outcome, 'fileRecall' | 'hunkRecall' | 'chars' | 'ms'> {
  const sent = new Set(files.map((f) => f.path));
  const gold = task.gold;
  return {
    fileRecall: gold.length === 0 ? 0 : gold.filter((g) => sent.has(g)).length / gold.length,
    hunkRecall: hunks.length === 0 ? 0 : hunks.filter((h) => covered(h, files)).length / hunks.length,
    chars,
    ms,
  };
}

const mean = (xs: readonly number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
const f3 = (x: number): string => x.toFixed(3);

async function main(): Promise<void> {
  const reposDir = process.env.CLAWCODE_BENCH_REPOS;
  if (!reposDir)
    throw new Error(
      'set CLAWCODE_BENCH_REPOS to a folder of bare clones (owner+name/repo, owner+name or owner+name.git)',
    );
  const tasksDir = resolve(process.env.CLAWCODE_BENCH_TASKS ?? '../shared/bench');
  const filter = process.env.CLAWCODE_BENCH_FILTER ?? '';
  const onlySet = process.env.CLAWCODE_BENCH_SET ?? '';
  const onlyOurs = Boolean(process.env.CLAWCODE_BENCH_ONLY_OURS);
  const beforeDir = process.env.CLAWCODE_BENCH_BEFORE;
  // The context stage's entry moved into its folder; a checkout from before that keeps it beside the folder.
  const beforeEntry = (root: string) =>
    [join(root, 'agent/context/build.ts'), join(root, 'agent/context.ts')].find((path) => existsSync(path)) ??
    join(root, 'agent/context/build.ts');
  const before = beforeDir
    ? ((await import(pathToFileURL(beforeEntry(resolve(beforeDir))).href)) as {
        buildContext: typeof buildContext;
      })
    : undefined;
  const selectors: Selector[] = [
    'ours',
    ...(before ? (['before'] as const) : []),
    ...(onlyOurs ? [] : (['bm25'] as const)),
    ...(!onlyOurs && process.env.CLAWCODE_BENCH_REFERENCE ? (['reference'] as const) : []),
  ];
  const dump = process.env.CLAWCODE_BENCH_DUMP;
  if (dump) rmSync(dump, { force: true });
  const cacheDir = resolve('bench/.cache');
  // A kept home (CLAWCODE_BENCH_HOME) reuses indexes across runs: for tuning, not for timing.
  const keptHome = process.env.CLAWCODE_BENCH_HOME;
  const home = keptHome ?? mkdtempSync(join(tmpdir(), 'clawcode-bench-home-'));
  const tasks = loadTasks(tasksDir).filter((t) => t.repo.includes(filter) && t.set.includes(onlySet));
  const results = new Map<string, Outcome[]>();
  const push = (sel: Selector, budget: number, o: Outcome, sha = ''): void => {
    const key = `${sel}@${budget}`;
    if (dump) appendFileSync(dump, `${JSON.stringify({ sel, budget, sha, ...o })}\n`);
    results.set(key, [...(results.get(key) ?? []), o]);
  };
  const warmMs: number[] = [];
  let done = 0;
  for (const task of tasks) {
    const gitDir = gitDirFor(reposDir, task.repo);
    const root = materialise(cacheDir, gitDir, task);
    const hunks = goldHunks(gitDir, task);
    const leak = namesChangedFile(task);
    const query = queryOf(task);
    const tree = onlyOurs ? { files: [] } : await loadTree(root);
    const base = { repo: task.repo, set: task.set, leak };
    let docs;
    for (const budget of BUDGETS) {
      const r = await buildContext({ rootDir: root, task: query, budgetChars: budget, homeDir: home });
      if (budget !== BUDGETS[0]) warmMs.push(r.ms);
      push('ours', budget, { ...base, ...score(task, hunks, r.files, r.ms, r.totalChars) }, task.id ?? task.sha);
      if (before) {
        const b = await before.buildContext({ rootDir: root, task: query, budgetChars: budget, homeDir: home });
        push('before', budget, { ...base, ...score(task, hunks, b.files, b.ms, b.totalChars) }, task.id ?? task.sha);
      }
      if (onlyOurs) continue;
      let t = performance.now();
      const bm = bm25Select(query, tree, budget, docs);
      docs = bm.docs;
      push('bm25', budget, { ...base, ...score(task, hunks, bm.files, performance.now() - t) }, task.id ?? task.sha);
      if (!selectors.includes('reference')) continue;
      t = performance.now();
      const ref = referenceSelect(query, tree, budget);
      push('reference', budget, { ...base, ...score(task, hunks, ref, performance.now() - t) });
    }
    if (++done % 40 === 0) process.stderr.write(`${done}/${tasks.length} tasks\n`);
  }
  if (!keptHome) rmSync(home, { recursive: true, force: true });

  const short = (r: string): string => r.split('+')[1] ?? r;
  const lines: string[] = [];
  for (const set of ['commits', 'issues'] as const) {
    const setTasks = tasks.filter((t) => t.set === set);
    if (setTasks.length === 0) continue;
    const repos = [...new Set(setTasks.map((t) => t.repo))].sort();
    const groups: [string, (o: Outcome) => boolean][] = [
      ...repos.map((r): [string, (o: Outcome) => boolean] => [
        `${short(r)}${heldOut(set, r) ? ' (held out)' : ''}`,
        (o) => o.repo === r,
      ]),
      ['tune half', (o) => !heldOut(set, o.repo)],
      ['held-out half', (o) => heldOut(set, o.repo)],
      ['no-leak', (o) => !o.leak],
      ['**all**', () => true],
    ];
    lines.push(
      `${set === 'commits' ? 'Real commits (task text = subject)' : 'Issue reports (task text = the issue)'}: ${setTasks.length} tasks, ${setTasks.filter(namesChangedFile).length} name a changed file`,
    );
    lines.push('');
    const head = BUDGETS.flatMap((b) => selectors.map((s) => `${s} file / hunk / chars @${label(b)}`));
    lines.push(`| repo | n | ${head.join(' | ')} |`);
    lines.push(`|---|---|${head.map(() => '---').join('|')}|`);
    for (const [name, pick] of groups) {
      const cells = BUDGETS.flatMap((b) =>
        selectors.map((s) => {
          const os = (results.get(`${s}@${b}`) ?? []).filter((o) => o.set === set && pick(o));
          const chars = Math.round(mean(os.map((o) => o.chars))).toLocaleString('en-US');
          return `${f3(mean(os.map((o) => o.fileRecall)))} / ${f3(mean(os.map((o) => o.hunkRecall)))} / ${chars}`;
        }),
      );
      const n = (results.get(`ours@${BUDGETS[0]}`) ?? []).filter((o) => o.set === set && pick(o)).length;
      lines.push(`| ${name} | ${n} | ${cells.join(' | ')} |`);
    }
    lines.push('');
  }
  const cold = (results.get(`ours@${BUDGETS[0]}`) ?? []).map((o) => o.ms);
  lines.push(
    `ours, in-process ms per task: first run ${mean(cold).toFixed(0)} (max ${Math.max(...cold).toFixed(0)}), ${warmMs.length ? `warm index ${mean(warmMs).toFixed(0)} (max ${Math.max(...warmMs).toFixed(0)})` : 'no warm run (one budget)'}`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
