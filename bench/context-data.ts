import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Benchmark data for `bench/context.ts`: the public task files, trees materialised from bare clones
 * (`git archive PARENT`, then `tar -x`), and gold hunks (old-side ranges of `git diff -U0 PARENT SHA`),
 * as defined in ../shared/bench/README.md. Trees and hunks are cached under bench/.cache (gitignored).
 */

/** One line of tasks-public-*.jsonl. */
export interface BenchTask {
  repo: string;
  sha: string;
  parent: string;
  task: string;
  subject: string;
  gold: string[];
  /** commits only: every file the commit changed */
  allChanged?: string[];
  /** issue reports (tasks-public-swebench-lite.jsonl): the reference fix's old-side ranges per file */
  hunks?: Record<string, [number, number][]>;
  /** issue reports: the instance id */
  id?: string;
  /** which set the task came from: 'commits' (subject as query) or 'issues' (the issue text as query) */
  set: 'commits' | 'issues';
}

/** A gold hunk: file and old-side 1-based inclusive line range (a pure insertion keeps its anchor line). */
export interface Hunk {
  file: string;
  start: number;
  end: number;
}

/**
 * Read the context task files of a folder: every tasks-public-OWNER+NAME.jsonl (real commits) and
 * tasks-public-swebench-*.jsonl (issue reports). The wide-change set measures something else.
 * @throws Error when the folder holds no such file
 */
export function loadTasks(dir: string): BenchTask[] {
  const out: BenchTask[] = [];
  for (const f of readdirSync(dir)
    .filter((n) => /^tasks-public-.*\.jsonl$/.test(n) && n !== 'tasks-public-wide.jsonl')
    .sort()) {
    const set = f.includes('swebench') ? 'issues' : 'commits';
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n'))
      if (line.trim()) out.push({ ...(JSON.parse(line) as Omit<BenchTask, 'set'>), set });
  }
  // A set named otherwise (tasks-heldout-x.jsonl) would load nothing and score an empty table.
  if (out.length === 0) throw new Error(`no task file in ${dir}: names must match tasks-public-*.jsonl`);
  return out;
}

/** The task text a person would type: the commit subject, or the whole issue report. */
export function queryOf(task: BenchTask): string {
  return task.set === 'issues' ? task.task : task.subject;
}

/** The git dir of a repo inside the repos folder: `owner+name/repo` (fetch mirror), `owner+name`, or `owner+name.git`. */
export function gitDirFor(reposDir: string, repo: string): string {
  for (const c of [join(reposDir, repo, 'repo'), join(reposDir, repo), join(reposDir, `${repo}.git`)]) {
    if (existsSync(join(c, 'HEAD')) || existsSync(join(c, '.git'))) return c;
  }
  throw new Error(`no clone of ${repo} under ${reposDir} (expected ${repo}/repo, ${repo} or ${repo}.git)`);
}

/** The file that marks a finished tree (renamed when trees made before must be made again). */
const TREE_MARK = '.complete-2';

/**
 * Materialise the tree at `parent` once; returns its folder. `git archive` writes a tar file first:
 * piped straight into `tar`, a failed archive (a blob missing from a snapshot mirror) left the
 * trees extracted so far with tar's success status, and the task ran on a truncated tree.
 * Trees marked by an older version (`.complete`) are made again: some of them were truncated so.
 * Two bench processes may make the same tree at once: each extracts into its own folder and the first rename
 * wins (the two once shared one temp folder, and one emptied it under the other, which marked a partial tree).
 */
export function materialise(cacheDir: string, gitDir: string, task: BenchTask): string {
  const out = join(cacheDir, 'trees', task.repo, task.parent);
  if (existsSync(join(out, TREE_MARK))) return out;
  const tmp = `${out}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const tar = `${out}.${process.pid}.tar`;
  try {
    execFileSync('git', ['--git-dir', gitDir, 'archive', '-o', tar, task.parent], { stdio: 'ignore' });
    execFileSync('tar', ['-xf', tar, '-C', tmp], { stdio: 'ignore' });
  } catch {
    // A snapshot mirror may lack its largest blobs (data files): write every blob it has instead.
    writeBlobs(gitDir, task.parent, tmp);
  } finally {
    rmSync(tar, { force: true });
  }
  writeFileSync(join(tmp, TREE_MARK), '');
  // An unmarked tree is one a killed run left half made.
  if (!existsSync(join(out, TREE_MARK))) rmSync(out, { recursive: true, force: true });
  try {
    renameSync(tmp, out);
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(join(out, TREE_MARK))) throw error;
  }
  return out;
}

/** Write the tree of `rev` into `out` blob by blob (`git cat-file --batch`), skipping missing blobs. */
function writeBlobs(gitDir: string, rev: string, out: string): void {
  const entries = execFileSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', '-z', rev], { maxBuffer: 2 ** 30 })
    .toString('utf8')
    .split('\0')
    .filter((e) => e !== '')
    .map((e) => {
      const [meta, path] = [e.slice(0, e.indexOf('\t')), e.slice(e.indexOf('\t') + 1)];
      const [mode, type, oid] = meta.split(' ');
      return { mode: mode!, type: type!, oid: oid!, path };
    })
    .filter((e) => e.type === 'blob' && e.mode !== '120000');
  const batch = execFileSync('git', ['--git-dir', gitDir, 'cat-file', '--batch'], {
    input: entries.map((e) => e.oid).join('\n') + '\n',
    maxBuffer: 2 ** 31,
  });
  let at = 0;
  for (const e of entries) {
    const nl = batch.indexOf(10, at);
    const head = batch.toString('utf8', at, nl);
    at = nl + 1;
    if (head.endsWith(' missing')) continue;
    const size = Number(head.split(' ')[2]);
    mkdirSync(join(out, e.path, '..'), { recursive: true });
    writeFileSync(join(out, e.path), batch.subarray(at, at + size));
    at += size + 1;
  }
}

/** Parse the old-side ranges of a `git diff -U0` output. */
export function parseHunks(file: string, diff: string): Hunk[] {
  const out: Hunk[] = [];
  for (const m of diff.matchAll(/^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/gm)) {
    const start = Number(m[1]);
    const count = m[2] === undefined ? 1 : Number(m[2]);
    if (count === 0) out.push({ file, start: Math.max(1, start), end: Math.max(1, start) });
    else out.push({ file, start, end: start + count - 1 });
  }
  return out;
}

/** Gold hunks of a task: given with issue reports, else from `git diff -U0 parent sha`. */
export function goldHunks(gitDir: string, task: BenchTask): Hunk[] {
  const given = task.hunks;
  if (given) return task.gold.flatMap((file) => (given[file] ?? []).map(([start, end]) => ({ file, start, end })));
  return task.gold.flatMap((file) => {
    const diff = execFileSync('git', ['--git-dir', gitDir, 'diff', '-U0', task.parent, task.sha, '--', file], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    return parseHunks(file, diff);
  });
}

/** Whether the subject names a changed file (its stem as a word, or its path): the "leak" split. */
export function namesChangedFile(task: BenchTask): boolean {
  const subject = ` ${task.subject.toLowerCase().replace(/[^a-z0-9_/.-]+/g, ' ')} `;
  return (task.allChanged ?? task.gold).some((p) => {
    const base = p.slice(p.lastIndexOf('/') + 1).toLowerCase();
    const stem = base.replace(/\.[^.]*$/, '');
    return (
      subject.includes(p.toLowerCase()) ||
      subject.includes(` ${base} `) ||
      (stem.length >= 3 && new RegExp(`[ /.(]${stem.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[ .):]`).test(subject))
    );
  });
}
