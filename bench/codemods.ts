import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gitDirFor, materialise, type BenchTask } from './context-data.js';
import type { CodemodTask } from './mine-codemods.js';
import { committedCopy } from './committed-copy.js';

/**
 * `npm run bench:codemods`: real mechanical commits replayed as codemod rules (tasks-public-codemods.jsonl,
 * made by `npm run bench:mine-codemods`; a hidden twin has the same format). For each commit the tree at its
 * parent is made a committed project, the task's one-rule plan goes through the built CLI's
 * `clawcode apply plan.json --yes`, and then `clawcode undo --yes`. A commit counts as exact when every file
 * it changed has exactly its new bytes and no other file changed; undo counts when the whole tree is back
 * byte for byte. Reported per repository and kind, and overall (target: ≥ 90% exact, undo always).
 * Env: CLAWCODE_BENCH_REPOS (folder of clones, required), CLAWCODE_CODEMOD_TASKS (the .jsonl file, or a
 * folder holding tasks-public-codemods.jsonl; default ../shared/bench), CLAWCODE_BENCH_FILTER (repo substring).
 */

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist/cli.js');

/** path → sha1 of every file under `dir` (no .git). */
function hashTree(dir: string, base = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(join(dir, base), { withFileTypes: true })) {
    const rel = base ? `${base}/${e.name}` : e.name;
    if (rel === '.git') continue;
    if (e.isDirectory()) for (const [p, h] of hashTree(dir, rel)) out.set(p, h);
    else if (e.isFile())
      out.set(
        rel,
        createHash('sha1')
          .update(readFileSync(join(dir, rel)))
          .digest('hex'),
      );
  }
  return out;
}

const sha1 = (bytes: Buffer): string => createHash('sha1').update(bytes).digest('hex');

interface Outcome {
  task: CodemodTask;
  exact: boolean;
  undone: boolean;
  /** what went wrong, one line */
  why?: string;
  ms: number;
}

/** Replay one task in a committed copy of its parent tree. */
function replay(task: CodemodTask, reposDir: string, work: string): Outcome {
  const gitDir = gitDirFor(reposDir, task.repo);
  const tree = materialise(join(ROOT, 'bench/.cache'), gitDir, task as unknown as BenchTask);
  const dir = join(work, task.sha.slice(0, 12));
  committedCopy(tree, dir);
  const before = hashTree(dir);
  const planFile = join(work, `${task.sha}.json`);
  writeFileSync(planFile, JSON.stringify(task.plan));
  const env = { ...process.env, CLAWCODE_HOME: mkdtempSync(join(work, 'home-')) };
  const started = performance.now();
  const apply = spawnSync(process.execPath, [CLI, 'apply', planFile, '--yes', '--dir', dir], { env, encoding: 'utf8' });
  const ms = performance.now() - started;
  let exact = apply.status === 0;
  let why = exact ? undefined : `apply exited ${apply.status}: ${apply.stderr.trim().split('\n').at(-1)}`;
  const after = hashTree(dir);
  if (exact) {
    const want = new Map<string, string>();
    for (const f of task.gold) {
      want.set(f, sha1(execFileSync('git', ['--git-dir', gitDir, 'show', `${task.sha}:${f}`], { maxBuffer: 2 ** 28 })));
    }
    for (const [p, h] of after) {
      const expected = want.get(p) ?? before.get(p);
      if (expected !== h) {
        exact = false;
        why = want.has(p) ? `${p}: not the commit's bytes` : `${p}: changed, the commit did not change it`;
        break;
      }
    }
    if (exact && after.size !== before.size) [exact, why] = [false, 'files added or removed'];
  }
  const undo = spawnSync(process.execPath, [CLI, 'undo', '--yes', '--dir', dir], { env, encoding: 'utf8' });
  const restored = hashTree(dir);
  const undone =
    apply.status !== 0 ||
    (undo.status === 0 && restored.size === before.size && [...before].every(([p, h]) => restored.get(p) === h));
  rmSync(dir, { recursive: true, force: true });
  return { task, exact, undone, why, ms };
}

function loadTasks(): CodemodTask[] {
  const where = process.env.CLAWCODE_CODEMOD_TASKS ?? join(ROOT, '../shared/bench');
  const file = where.endsWith('.jsonl') ? where : join(where, 'tasks-public-codemods.jsonl');
  if (!existsSync(file)) throw new Error(`no codemod tasks at ${file} (npm run bench:mine-codemods makes them)`);
  const filter = process.env.CLAWCODE_BENCH_FILTER ?? '';
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as CodemodTask)
    .filter((t) => t.repo.includes(filter));
}

function main(): void {
  const reposDir = process.env.CLAWCODE_BENCH_REPOS;
  if (!reposDir || !existsSync(CLI)) {
    console.error('usage: npm run build, then CLAWCODE_BENCH_REPOS=DIR npm run bench:codemods');
    process.exit(2);
  }
  const tasks = loadTasks();
  const work = mkdtempSync(join(tmpdir(), 'clawcode-codemods-'));
  const outcomes: Outcome[] = [];
  try {
    for (const task of tasks) {
      const o = replay(task, reposDir, work);
      outcomes.push(o);
      const rule = task.plan.patches[0]!;
      const mark = o.exact ? 'exact' : 'MISS ';
      console.log(
        `${mark} ${o.undone ? 'undo ok ' : 'UNDO BAD'} ${task.repo} ${task.sha.slice(0, 10)} ${task.kind} ${rule.file}: ${rule.find} → ${rule.replace} (${Math.round(o.ms)} ms)${o.why ? `\n      ${o.why}` : ''}`,
      );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const share = (xs: Outcome[]) => `${xs.filter((o) => o.exact).length}/${xs.length}`;
  const groups = (key: (o: Outcome) => string) => {
    const m = new Map<string, Outcome[]>();
    for (const o of outcomes) m.set(key(o), [...(m.get(key(o)) ?? []), o]);
    return [...m].map(([k, xs]) => `${k} ${share(xs)}`).join(', ');
  };
  const exact = outcomes.filter((o) => o.exact).length;
  const undone = outcomes.filter((o) => o.undone).length;
  console.log(`\nby repository: ${groups((o) => o.task.repo)}`);
  console.log(`by kind: ${groups((o) => o.task.kind)}`);
  console.log(
    `byte-exact: ${exact}/${outcomes.length} (${((100 * exact) / Math.max(1, outcomes.length)).toFixed(1)}%, target ≥ 90%); ` +
      `undo restores the tree: ${undone}/${outcomes.length}; apply median ${Math.round(outcomes.map((o) => o.ms).sort((a, b) => a - b)[Math.floor(outcomes.length / 2)] ?? 0)} ms`,
  );
}

main();
