import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gitDirFor, materialise } from './context-data.js';
import { committedCopy } from './committed-copy.js';

/**
 * `npm run bench:codemod-speed`: one rename rule over a whole real tree (prettier/prettier, ~9,300 files),
 * `clawcode rewrite P R --yes` (the built CLI: scan, path policy, rewrite, diffs, journal, atomic write)
 * against ast-grep's own CLI `sg run -p P -r R -U` on identical copies of the tree, in one run, alternating,
 * each run on a fresh copy. Reports per tool the median wall time and the highest peak memory (GNU time's
 * maximum resident set) over the runs, and whether both changed the same files into the same bytes.
 * Env: CLAWCODE_BENCH_REPOS (folder of clones, required), CLAWCODE_SG (the ast-grep CLI binary, required),
 * CLAWCODE_SPEED_REPO (default prettier+prettier), CLAWCODE_SPEED_RULE (`pattern=>replacement`, default
 * `isNonEmptyArray=>isNotEmptyArray`), CLAWCODE_SPEED_RUNS (default 3).
 */

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist/cli.js');

interface Measured {
  ms: number;
  peakMb: number;
}

/** Run a command under GNU time; wall ms and peak resident set in MB. Throws on a non-zero exit. */
function timed(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Measured {
  const started = performance.now();
  const res = spawnSync('/usr/bin/time', ['-f', '%M', cmd, ...args], { cwd, env, maxBuffer: 2 ** 30 });
  const ms = performance.now() - started;
  const stderr = res.stderr.toString('utf8').trim().split('\n');
  if (res.status !== 0) throw new Error(`${cmd} exited ${res.status}: ${stderr.slice(-3).join(' | ')}`);
  return { ms, peakMb: Number(stderr.at(-1)) / 1024 };
}

/** A committed copy of `tree` under `into`: a project as a person has it. */
function copyOf(tree: string, into: string): string {
  return committedCopy(tree, join(into, `copy-${Math.random().toString(36).slice(2)}`));
}

/** path → content of every file git reports changed in a copy. */
function changedFiles(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const names = execFileSync('git', ['-C', dir, 'diff', '--name-only', '-z'], { maxBuffer: 2 ** 28 }).toString('utf8');
  for (const p of names.split('\0').filter(Boolean)) out.set(p, readFileSync(join(dir, p), 'utf8'));
  return out;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function main(): void {
  const reposDir = process.env.CLAWCODE_BENCH_REPOS;
  const sg = process.env.CLAWCODE_SG;
  if (!reposDir || !sg || !existsSync(CLI)) {
    console.error('usage: npm run build, then CLAWCODE_BENCH_REPOS=DIR CLAWCODE_SG=BIN npm run bench:codemod-speed');
    process.exit(2);
  }
  const repo = process.env.CLAWCODE_SPEED_REPO ?? 'prettier+prettier';
  const [pattern, replacement] = (process.env.CLAWCODE_SPEED_RULE ?? 'isNonEmptyArray=>isNotEmptyArray').split(
    '=>',
  ) as [string, string];
  const runs = Number(process.env.CLAWCODE_SPEED_RUNS ?? 3);
  const gitDir = gitDirFor(reposDir, repo);
  const head = execFileSync('git', ['--git-dir', gitDir, 'rev-parse', 'HEAD']).toString().trim();
  const tree = materialise(join(ROOT, 'bench/.cache'), gitDir, { repo, parent: head } as Parameters<
    typeof materialise
  >[2]);
  const work = mkdtempSync(join(tmpdir(), 'clawcode-codemod-speed-'));
  const files =
    execFileSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', '--name-only', head]).toString().split('\n').length - 1;
  console.log(
    `${repo}@${head.slice(0, 10)}: ${files} files; rule ${pattern} → ${replacement}; ${runs} runs each, alternating`,
  );
  const ours: Measured[] = [];
  const theirs: Measured[] = [];
  let same = true;
  let changed = 0;
  let sgFailures = 0;
  try {
    for (let i = 0; i < runs; i++) {
      let a = copyOf(tree, work);
      const b = copyOf(tree, work);
      const home = mkdtempSync(join(work, 'home-'));
      const env = { ...process.env, CLAWCODE_HOME: home };
      // sg now and then fails with `Os { code: 2, kind: NotFound }` after writing (its walker meets the
      // temporary file of a write in flight): that run is done again on a fresh copy, and counted.
      for (let attempt = 1; ; attempt++) {
        try {
          theirs.push(timed(sg, ['run', '-p', pattern, '-r', replacement, '-U'], a, env));
          break;
        } catch (error) {
          sgFailures++;
          if (attempt === 3) throw error;
          rmSync(a, { recursive: true, force: true });
          a = copyOf(tree, work);
        }
      }
      ours.push(timed(process.execPath, [CLI, 'rewrite', pattern, replacement, '--yes', '--dir', b], b, env));
      const [s, o] = [theirs.at(-1)!, ours.at(-1)!];
      console.log(
        `  run ${i + 1}: sg ${Math.round(s.ms)} ms ${s.peakMb.toFixed(0)} MB, clawcode ${Math.round(o.ms)} ms ${o.peakMb.toFixed(0)} MB`,
      );
      const x = changedFiles(a);
      const y = changedFiles(b);
      changed = y.size;
      for (const [p, text] of x) if (y.get(p) !== text) same = false;
      if (x.size !== y.size) same = false;
      if (!same && i === 0) {
        const only = [...x.keys()].filter((p) => y.get(p) !== x.get(p)).slice(0, 5);
        console.log(`  differ: sg changed ${x.size} files, clawcode ${y.size}; first differences: ${only.join(', ')}`);
      }
      for (const d of [a, b, home]) rmSync(d, { recursive: true, force: true });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const peak = (m: Measured[]): number => Math.max(...m.map((x) => x.peakMb));
  const row = (name: string, m: Measured[]) =>
    `  ${name.padEnd(34)} ${String(Math.round(median(m.map((x) => x.ms)))).padStart(6)} ms   peak ${peak(m)
      .toFixed(0)
      .padStart(4)} MB   runs ${m.map((x) => Math.round(x.ms)).join(', ')} ms`;
  console.log(row(`sg run -p … -r … -U`, theirs));
  console.log(row(`clawcode rewrite … --yes`, ours));
  const ratio = median(ours.map((x) => x.ms)) / median(theirs.map((x) => x.ms));
  console.log(
    `  clawcode / sg: ${ratio.toFixed(2)}× (target ≤ 2×); clawcode peak ${peak(ours).toFixed(0)} MB (target < 500 MB); ` +
      `${changed} files changed, ${same ? 'the same bytes as sg' : 'NOT the same bytes as sg'}` +
      (sgFailures > 0 ? `; sg failed ${sgFailures} time(s) and was run again` : ''),
  );
}

main();
