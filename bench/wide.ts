import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { structuredPatch } from 'diff';
import type { Planner } from '../agent/runner.js';
import { prepareWideChange, runWideChange } from '../agent/wide/wide.js';
import type { PatchOp, Plan } from '../utils/plan.js';
import { gitDirFor, materialise, type BenchTask } from './context-data.js';

/**
 * `npm run bench:wide`: wide changes (codemods) from real history, ../shared/bench/tasks-public-wide.jsonl.
 * For each commit the footprint is pinned to the commit's changed files (as `--files` would), the
 * footprint is split into shards under the budget, and each shard request is answered with that
 * commit's own edits for exactly the parts of files the request shows (find = the old lines of a
 * hunk with enough context to be unique, replace = the new lines). The merged plan is applied in
 * memory. Reported per budget: commits written byte-exact, files byte-exact, changed regions shown,
 * requests per commit, the largest request over the budget, and ms of local work per commit.
 * Env: CLAWCODE_BENCH_REPOS (folder of bare clones, required), CLAWCODE_BENCH_TASKS (default
 * ../shared/bench), CLAWCODE_BENCH_FILTER (substring of repo names).
 */

interface WideTask extends BenchTask {
  added?: number;
  removed?: number;
}

const BUDGETS = [18_000, 60_000] as const;

function git(gitDir: string, args: string[]): string {
  return execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

function countOccurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) n++;
  return n;
}

/**
 * The edits a shard can make to one file: each hunk of old → new (3 lines of context) whose old
 * lines all lie inside what the shard shows, widened by more shown lines (down, then up, never into
 * a neighbouring hunk) until its find is unique — what a careful model does with what it sees.
 */
function editsFor(
  path: string,
  oldText: string,
  newText: string,
  shown: readonly [number, number][] | null,
): { patches: PatchOp[]; hunks: number; inside: number } {
  const patch = structuredPatch(path, path, oldText, newText, '', '', { context: 3 });
  const oldLines = oldText.split('\n');
  const within = (a: number, b: number): boolean => shown === null || shown.some(([s, e]) => s <= a && b <= e);
  const patches: PatchOp[] = [];
  let inside = 0;
  let prevEnd = 0;
  for (const [k, h] of patch.hunks.entries()) {
    // Context lines the shard does not show are dropped (a model only copies what it sees);
    // the changed lines themselves must be shown.
    let lines = [...h.lines];
    let start = Math.max(1, h.oldStart);
    while (lines.length > 0 && lines[0]![0] === ' ' && !within(start, start)) {
      lines = lines.slice(1);
      start++;
    }
    let end = start + lines.filter((l) => l[0] === ' ' || l[0] === '-').length - 1;
    while (lines.length > 0 && lines[lines.length - 1]![0] === ' ' && !within(end, end)) {
      lines = lines.slice(0, -1);
      end--;
    }
    if (end < start) end = start;
    if (!within(start, end)) continue;
    inside++;
    const before = lines.filter((l) => l[0] !== '+' && l[0] !== '\\').map((l) => l.slice(1));
    const after = lines.filter((l) => l[0] !== '-' && l[0] !== '\\').map((l) => l.slice(1));
    const noNewlineOld = lines.some((l, i) => l.startsWith('\\') && lines[i - 1]?.[0] !== '+');
    const noNewlineNew = lines.some((l, i) => l.startsWith('\\') && lines[i - 1]?.[0] !== '-');
    let find = before.join('\n') + (noNewlineOld ? '' : '\n');
    let replace = after.join('\n') + (noNewlineNew ? '' : '\n');
    let top = start - 1;
    let bottom = end + 1;
    const nextStart = patch.hunks[k + 1]?.oldStart ?? Infinity;
    while (countOccurrences(oldText, find) !== 1) {
      if (!noNewlineOld && bottom < nextStart && bottom < oldLines.length && within(start, bottom)) {
        find += `${oldLines[bottom - 1]}\n`;
        replace += `${oldLines[bottom - 1]}\n`;
        bottom++;
      } else if (top > prevEnd && top > 0 && within(top, end)) {
        find = `${oldLines[top - 1]}\n${find}`;
        replace = `${oldLines[top - 1]}\n${replace}`;
        top--;
      } else break;
    }
    prevEnd = bottom - 1;
    if (before.length === 0 && h.oldStart === 0) find = '';
    patches.push({ file: path, operation: 'replace', find, replace });
  }
  return { patches, hunks: patch.hunks.length, inside };
}

async function main(): Promise<void> {
  const reposDir = process.env.CLAWCODE_BENCH_REPOS;
  if (!reposDir)
    throw new Error(
      'set CLAWCODE_BENCH_REPOS to a folder of bare clones (owner+name/repo, owner+name or owner+name.git)',
    );
  const tasksDir = resolve(process.env.CLAWCODE_BENCH_TASKS ?? '../shared/bench');
  const filter = process.env.CLAWCODE_BENCH_FILTER ?? '';
  const cacheDir = resolve('bench/.cache');
  const tasks = readFileSync(join(tasksDir, 'tasks-public-wide.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as WideTask)
    .filter((t) => t.repo.includes(filter));
  const rows: string[] = [];
  rows.push(`Wide-change benchmark: ${tasks.length} commits, footprint pinned to the commit's changed files`);
  rows.push('');
  rows.push(
    '| budget | commits byte-exact | files byte-exact | regions shown | requests/commit (mean, max) | commits >1 request when over budget | largest request − budget (chars) | ms/commit |',
  );
  rows.push('|---|---|---|---|---|---|---|---|');
  for (const budget of BUDGETS) {
    let exact = 0;
    let filesExact = 0;
    let filesTotal = 0;
    let hunksTotal = 0;
    let hunksShown = 0;
    let requests = 0;
    let maxRequests = 0;
    let overBudget = 0;
    let overBudgetMulti = 0;
    let worstOver = -Infinity;
    let ms = 0;
    const failures: string[] = [];
    for (const task of tasks) {
      const gitDir = gitDirFor(reposDir, task.repo);
      const root = materialise(cacheDir, gitDir, task);
      const t0 = performance.now();
      const prepared = await prepareWideChange({
        rootDir: root,
        task: task.subject,
        budgetChars: budget,
        paths: task.gold,
      });
      ms += performance.now() - t0;
      const newText = new Map<string, string>();
      for (const p of prepared.footprint) newText.set(p, git(gitDir, ['show', `${task.sha}:${p}`]));
      let shownHere = 0;
      let hunksHere = 0;
      const counted = new Set<string>();
      const planner: Planner = async (_config, _system, user) => {
        const request = prepared.requests.find((r) => r.userPrompt === user)!;
        const patches: PatchOp[] = [];
        for (const f of request.shard.files) {
          const oldText = readFileSync(join(root, f.path), 'utf8');
          const edits = editsFor(f.path, oldText, newText.get(f.path)!, f.ranges);
          patches.push(...edits.patches);
          shownHere += edits.inside;
          if (!counted.has(f.path)) {
            counted.add(f.path);
            hunksHere += edits.hunks;
          }
        }
        const plan: Plan = { analysis: '', files_to_edit: [], patches, commands: [], agent_notes: [] };
        return { plan, reply: { text: '', model: 'bench' }, repaired: false, ms: 0 };
      };
      const t1 = performance.now();
      const run = await runWideChange(prepared, {
        rootDir: root,
        provider: { provider: 'openai', name: 'bench', model: 'bench' },
        planner,
        concurrency: 4,
      });
      ms += performance.now() - t1;
      const after = new Map(run.prepared.changes.map((c) => [c.path, c.after]));
      let allExact = run.prepared.ok && prepared.footprint.length === task.gold.length;
      for (const p of prepared.footprint) {
        filesTotal++;
        const want = newText.get(p)!;
        const before = readFileSync(join(root, p), 'utf8');
        const got = after.get(p) ?? before;
        if (got === want) filesExact++;
        else allExact = false;
      }
      filesTotal += task.gold.length - prepared.footprint.length;
      if (allExact) exact++;
      else {
        const refused = run.prepared.results.find((r) => !r.applied);
        const wrongFile = prepared.footprint.find(
          (p) => (after.get(p) ?? readFileSync(join(root, p), 'utf8')) !== newText.get(p),
        );
        const why = refused
          ? `${refused.file}: ${refused.error ?? 'refused'}`
          : (run.prepared.pathIssues[0]?.message ?? `differs: ${wrongFile}`);
        failures.push(
          `${task.repo}@${task.sha.slice(0, 8)} footprint ${prepared.footprint.length}/${task.gold.length}: ${why}`,
        );
      }
      hunksTotal += hunksHere;
      hunksShown += shownHere;
      const n = prepared.requests.length;
      requests += n;
      maxRequests = Math.max(maxRequests, n);
      const contentChars = prepared.footprint.reduce((a, p) => a + readFileSync(join(root, p), 'utf8').length, 0);
      if (contentChars > budget) {
        overBudget++;
        if (n > 1) overBudgetMulti++;
      }
      // What a request carries beyond the budget is the task and the fixed framing.
      for (const r of prepared.requests) worstOver = Math.max(worstOver, r.chars - budget);
    }
    rows.push(
      `| ${budget / 1000}k | ${exact}/${tasks.length} (${(exact / tasks.length).toFixed(3)}) | ${filesExact}/${filesTotal} | ${hunksShown}/${hunksTotal} | ${(requests / tasks.length).toFixed(1)}, ${maxRequests} | ${overBudgetMulti}/${overBudget} | ${worstOver} | ${(ms / tasks.length).toFixed(0)} |`,
    );
    if (failures.length > 0) process.stderr.write(`@${budget}: not byte-exact:\n  ${failures.join('\n  ')}\n`);
  }
  rows.push('');
  rows.push(speedRow(reposDir, cacheDir));
  process.stdout.write(`${rows.join('\n')}\n`);
}

/** Peak resident memory of one run of the command, MB (GNU time's %M, kilobytes). */
function peakRssMb(file: string, args: string[], home: string): number {
  const result = spawnSync('/usr/bin/time', ['-f', '%M', file, ...args], {
    encoding: 'utf8',
    env: { ...process.env, CLAWCODE_HOME: home },
    maxBuffer: 64 * 1024 * 1024,
  });
  const kb = Number(result.stderr.trim().split('\n').pop());
  return kb / 1024;
}

/**
 * Local work of a 200-file footprint on a git checkout of prettier/prettier (its newest commit),
 * measured as whole processes of the built CLI (`--files <200 paths> --print-prompt`: scan through git,
 * read the footprint, build every shard request at 18,000 characters, print them; no model call).
 * Median of 5 runs after one warm-up, and the peak RSS of one more. Needs `npm run build` first.
 */
function speedRow(reposDir: string, cacheDir: string): string {
  let gitDir: string;
  try {
    gitDir = gitDirFor(reposDir, 'prettier+prettier');
  } catch {
    return 'speed: skipped (no clone of prettier+prettier under CLAWCODE_BENCH_REPOS)';
  }
  const head = git(gitDir, ['rev-parse', 'HEAD']).trim();
  // A git checkout, as a user has: the scanner lists files through git there.
  const root = join(cacheDir, 'prettier-checkout');
  if (!existsSync(join(root, '.git'))) execFileSync('git', ['clone', '-q', '--shared', gitDir, root]);
  const files = git(gitDir, ['ls-tree', '-r', '--name-only', head, 'src/'])
    .split('\n')
    .filter((p) => p.endsWith('.js'))
    .slice(0, 200);
  // The built CLI, as a person runs it: `--print-prompt` builds every shard request and sends nothing.
  const cli = resolve('dist/cli.js');
  const args = [
    cli,
    'use the node: prefix for builtins',
    '--dir',
    root,
    '--budget',
    '18000',
    '--print-prompt',
    '--files',
    ...files,
  ];
  const home = mkdtempSync(join(tmpdir(), 'clawcode-bench-home-'));
  const runs = Array.from({ length: 6 }, () => {
    const t = performance.now();
    const out = execFileSync(process.execPath, args, {
      encoding: 'utf8',
      env: { ...process.env, CLAWCODE_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
    return { wallMs: performance.now() - t, requests: (out.match(/^===== request /gm) ?? []).length };
  }).slice(1);
  const rssMb = peakRssMb(process.execPath, args, home);
  rmSync(home, { recursive: true, force: true });
  const wall = runs.map((r) => r.wallMs).sort((a, b) => a - b);
  const last = { files: files.length, requests: runs[0]!.requests, rssMb };
  return `speed: prettier/prettier, ${last.files}-file footprint, ${last.requests} requests @18k: whole process median ${wall[2]!.toFixed(0)} ms (min ${wall[0]!.toFixed(0)}, max ${wall[4]!.toFixed(0)}), peak RSS ${last.rssMb.toFixed(0)} MB`;
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
