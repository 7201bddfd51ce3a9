import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Whole-process speed of `clawcode context` on one project against `git grep -l` for the task's
 * words (targets: warm ≤ 3× git grep, cold ≤ 1.5 s, ≤ 150 MB peak on ~10k files). Runs the built CLI
 * (`npm run build` first; env CLAWCODE_SPEED_DIST names another build) exactly as a person does:
 * `node <dist>/cli.js context --json -d <project> <task>`, one fresh process per run. Cold runs get an
 * empty CLAWCODE_HOME (no index), warm runs the home the cold run just filled.
 *
 * The runs are paired: each round runs git grep, the cold run and the warm run one after the other, so
 * load from other processes on the machine falls on all three alike, and the ratio is taken per round
 * before the median. `git grep -l -I -i -F -e <word>…` lists the tracked files holding any of the
 * task's words (every word of two letters or more), reading every file: the search a person would
 * otherwise run. Reports medians of wall time, CPU time (user + system, children included, as
 * `/usr/bin/time` counts them) and peak RSS. On a loaded machine wall time is mostly waiting for a
 * core; CPU time is then the steadier comparison.
 *
 * CLAWCODE_SPEED_BASE names a second build (e.g. main's) run in the same rounds, right after this one,
 * cold then warm with its own home: the two builds then meet the same load, and the report adds the
 * per-round ratio of this build to the base.
 *
 * Usage: tsx bench/context-speed.ts <projectDir> [task] [rounds]
 */

const [project, task = 'fix formatting of long string concatenation in JSX attributes', roundsArg = '7'] =
  process.argv.slice(2);
if (!project) throw new Error('usage: tsx bench/context-speed.ts <projectDir> [task] [rounds]');
const cliOf = (dist: string): string => {
  const cli = join(resolve(dist), 'cli.js');
  if (!existsSync(cli)) throw new Error(`build first: ${cli} is missing`);
  return cli;
};
const cli = cliOf(process.env.CLAWCODE_SPEED_DIST ?? 'dist');
const baseCli = process.env.CLAWCODE_SPEED_BASE ? cliOf(process.env.CLAWCODE_SPEED_BASE) : undefined;

interface Run {
  wallMs: number;
  /** user + system CPU of the process and every child it waited for (git), in ms */
  cpuMs: number;
  maxRssMB: number;
}

/**
 * Run a child process to its end under `/usr/bin/time`, which reports the CPU time of the process and
 * of the children it waited for (clawcode's git processes), and its peak RSS.
 */
function timed(command: string, args: string[], env: NodeJS.ProcessEnv): { run: Run; stdout: string } {
  const started = performance.now();
  const out = spawnSync('/usr/bin/time', ['-f', '\nTIME %U %S %M', command, ...args], {
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const wallMs = performance.now() - started;
  const m = /\nTIME ([\d.]+) ([\d.]+) (\d+)\s*$/.exec(out.stderr);
  if (!m) throw new Error(`${command} failed (${out.status}): ${out.stderr}`);
  if (out.status !== 0 && !(command === 'git' && out.status === 1))
    throw new Error(`${command} exited ${out.status}: ${out.stderr}`);
  return {
    run: { wallMs, cpuMs: (Number(m[1]) + Number(m[2])) * 1000, maxRssMB: Math.round(Number(m[3]) / 1024) },
    stdout: out.stdout,
  };
}

function clawcode(home: string, build = cli): Run & { scanned: number; files: number } {
  const { run, stdout } = timed(process.execPath, [build, 'context', '--json', '-d', resolve(project!), task], {
    ...process.env,
    CLAWCODE_HOME: home,
  });
  const json = JSON.parse(stdout) as { files: unknown[]; scannedFiles: number };
  return { ...run, scanned: json.scannedFiles, files: json.files.length };
}

/** The task's words as `git grep -e` patterns: identifier-like runs of two characters or more. */
const words = [...new Set(task.match(/[A-Za-z0-9_]{2,}/g) ?? [])];
function gitGrep(): Run {
  const args = ['-C', resolve(project!), 'grep', '-l', '-I', '-i', '-F', ...words.flatMap((w) => ['-e', w])];
  return timed('git', args, process.env).run;
}

const rounds = Math.max(1, Number(roundsArg));
const grep: Run[] = [];
const cold: (Run & { scanned: number; files: number })[] = [];
const warm: (Run & { scanned: number; files: number })[] = [];
const baseCold: Run[] = [];
const baseWarm: Run[] = [];
for (let i = 0; i < rounds; i++) {
  const home = mkdtempSync(join(tmpdir(), 'clawcode-speed-'));
  const baseHome = baseCli ? mkdtempSync(join(tmpdir(), 'clawcode-speed-base-')) : undefined;
  try {
    grep.push(gitGrep());
    cold.push(clawcode(home));
    warm.push(clawcode(home));
    if (baseCli && baseHome) {
      baseCold.push(clawcode(baseHome, baseCli));
      baseWarm.push(clawcode(baseHome, baseCli));
    }
  } finally {
    for (const h of [home, baseHome]) if (h) rmSync(h, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const ms = (x: number): string => `${x.toFixed(0)} ms`;
const line = (name: string, rs: Run[]): string =>
  `${name.padEnd(9)} wall ${ms(median(rs.map((r) => r.wallMs)))} (runs ${rs.map((r) => r.wallMs.toFixed(0)).join(' ')}), ` +
  `cpu ${ms(median(rs.map((r) => r.cpuMs)))}, peak RSS ${median(rs.map((r) => r.maxRssMB))} MB`;
const ratio = (rs: Run[], key: 'wallMs' | 'cpuMs', to: Run[] = grep): string =>
  median(rs.map((r, i) => r[key] / to[i]![key])).toFixed(2);
/** One line of per-round ratios, warm and cold, wall and CPU, of `warmRs`/`coldRs` to `warmTo`/`coldTo`. */
const ratios = (label: string, warmRs: Run[], coldRs: Run[], warmTo = grep, coldTo = grep): string =>
  `${label}, median: warm ${ratio(warmRs, 'wallMs', warmTo)}× wall (${ratio(warmRs, 'cpuMs', warmTo)}× cpu), ` +
  `cold ${ratio(coldRs, 'wallMs', coldTo)}× wall (${ratio(coldRs, 'cpuMs', coldTo)}× cpu)\n`;
process.stdout.write(
  `${resolve(project)}: ${cold[0]!.scanned} files scanned, ${warm[0]!.files} sent; ${rounds} paired rounds; ` +
    `git grep words: ${words.join(' ')}\n` +
    `${line('git grep', grep)}\n${line('cold', cold)}\n${line('warm', warm)}\n` +
    ratios('per-round ratio to git grep -l', warm, cold) +
    (baseCli
      ? `${line('base cold', baseCold)}\n${line('base warm', baseWarm)}\n` +
        ratios('base per-round ratio to git grep -l', baseWarm, baseCold) +
        ratios('this build / base, per round', warm, cold, baseWarm, baseCold)
      : ''),
);
