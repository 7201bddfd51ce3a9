/**
 * Benchmark of patch engines on drifted find/replace edits built from real commits
 * (../shared/bench/edits-public.json, described in ../shared/bench/README.md).
 *
 *   npm run bench:edits                  table: ours vs an exact-indexOf engine, per kind
 *   npm run bench:edits -- --json        the same numbers as JSON
 *   npm run bench:edits -- --show wrong  also list cases that came out WRONG (or: refused, correct)
 *   npm run bench:edits -- --kind tabs_spaces
 *
 * CLAWCODE_EDITS_BENCH overrides the data file; CLAWCODE_PATCH_BASELINE names another build's patch module
 * (`../main/utils/patch.ts`, say) to score beside ours in the same run. Scoring: a case with `expect: null` is correct only when
 * refused; otherwise the engine must produce exactly content.slice(0, at) + text + content.slice(at + len).
 * An applied edit that differs is WRONG (silent corruption). Time is wall time per applyPatch call.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { baselineEngine, exactEngine, oursEngine, type Engine } from './engines/engines.js';

interface BenchCase {
  file: string;
  kind: string;
  find: string;
  replace: string;
  expect: { at: number; len: number; text: string } | null;
}

interface BenchData {
  about: string;
  files: Record<string, string>;
  cases: BenchCase[];
}

type Verdict = 'correct' | 'refused' | 'wrong';

interface Tally {
  n: number;
  correct: number;
  refused: number;
  wrong: number;
}

interface EngineReport {
  engine: string;
  overall: Tally & { correctRate: number };
  kinds: Record<string, Tally & { correctRate: number }>;
  medianMs: number;
  p95Ms: number;
  maxMs: number;
  strategies: Record<string, number>;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const show = valueOf(args, '--show') as Verdict | undefined;
  const onlyKind = valueOf(args, '--kind');
  const path =
    process.env.CLAWCODE_EDITS_BENCH ?? fileURLToPath(new URL('../../shared/bench/edits-public.json', import.meta.url));
  let data: BenchData;
  try {
    data = JSON.parse(readFileSync(path, 'utf8')) as BenchData;
  } catch (error) {
    process.stderr.write(
      `cannot read the edits benchmark at ${path}: ${(error as Error).message}\n(set CLAWCODE_EDITS_BENCH to its path)\n`,
    );
    process.exitCode = 1;
    return;
  }
  const cases = onlyKind ? data.cases.filter((c) => c.kind === onlyKind) : data.cases;
  const baseline = process.env.CLAWCODE_PATCH_BASELINE;
  const engines = [oursEngine, ...(baseline ? [await baselineEngine(baseline)] : []), exactEngine];
  const reports = engines.map((engine) => run(engine, data, cases, engine === oursEngine ? show : undefined));
  if (json) {
    process.stdout.write(`${JSON.stringify({ data: path, cases: cases.length, engines: reports }, null, 2)}\n`);
    return;
  }
  printTable(reports, cases.length, path);
}

function run(engine: Engine, data: BenchData, cases: readonly BenchCase[], show: Verdict | undefined): EngineReport {
  const kinds: Record<string, Tally> = {};
  const overall: Tally = { n: 0, correct: 0, refused: 0, wrong: 0 };
  const times: number[] = [];
  const strategies: Record<string, number> = {};
  for (const c of cases) {
    const content = data.files[c.file];
    if (content === undefined) throw new Error(`case refers to missing file ${c.file}`);
    const t0 = performance.now();
    const out = engine.apply(content, c.find, c.replace);
    times.push(performance.now() - t0);
    const verdict = judge(content, c, out.newContent);
    if (out.strategy) strategies[out.strategy] = (strategies[out.strategy] ?? 0) + 1;
    const tally = (kinds[c.kind] ??= { n: 0, correct: 0, refused: 0, wrong: 0 });
    for (const t of [tally, overall]) {
      t.n++;
      t[verdict]++;
    }
    if (show === verdict) {
      process.stderr.write(`--- ${verdict} ${c.kind} ${c.file} strategy=${out.strategy ?? '-'} ${out.error ?? ''}\n`);
      process.stderr.write(`find: ${JSON.stringify(c.find)}\n`);
    }
  }
  times.sort((a, b) => a - b);
  const rate = (t: Tally) => ({ ...t, correctRate: t.n === 0 ? 0 : t.correct / t.n });
  return {
    engine: engine.name,
    overall: rate(overall),
    kinds: Object.fromEntries(Object.entries(kinds).map(([k, t]) => [k, rate(t)])),
    medianMs: quantile(times, 0.5),
    p95Ms: quantile(times, 0.95),
    maxMs: times[times.length - 1] ?? 0,
    strategies,
  };
}

function judge(content: string, c: BenchCase, result: string | undefined): Verdict {
  if (result === undefined) return c.expect === null ? 'correct' : 'refused';
  if (c.expect === null) return 'wrong';
  const { at, len, text } = c.expect;
  return result === content.slice(0, at) + text + content.slice(at + len) ? 'correct' : 'wrong';
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function printTable(reports: readonly EngineReport[], total: number, path: string): void {
  const kinds = Object.keys(reports[0]!.kinds).sort();
  const cell = (t: Tally & { correctRate: number }) =>
    `${t.correctRate.toFixed(3).padStart(6)} ${String(t.refused).padStart(5)} ${String(t.wrong).padStart(5)}`;
  const head = reports.map((r) => r.engine.padEnd(18)).join(' │ ');
  const sub = reports.map(() => 'correct  refd WRONG').join(' │ ');
  const lines = [
    `edits benchmark: ${total} cases from ${path}`,
    `${''.padEnd(20)}${''.padStart(5)}   ${head}`,
    `${'kind'.padEnd(20)}${'n'.padStart(5)}   ${sub}`,
  ];
  for (const k of kinds) {
    lines.push(
      `${k.padEnd(20)}${String(reports[0]!.kinds[k]!.n).padStart(5)}   ${reports.map((r) => cell(r.kinds[k]!)).join(' │ ')}`,
    );
  }
  lines.push(
    `${'OVERALL'.padEnd(20)}${String(total).padStart(5)}   ${reports.map((r) => cell(r.overall)).join(' │ ')}`,
  );
  lines.push(`${'median ms / edit'.padEnd(25)} ${reports.map((r) => r.medianMs.toFixed(3).padStart(18)).join(' │ ')}`);
  lines.push(`${'p95 ms / edit'.padEnd(25)} ${reports.map((r) => r.p95Ms.toFixed(3).padStart(18)).join(' │ ')}`);
  lines.push(`${'max ms / edit'.padEnd(25)} ${reports.map((r) => r.maxMs.toFixed(3).padStart(18)).join(' │ ')}`);
  lines.push(
    `strategies (ours): ${Object.entries(reports[0]!.strategies)
      .map(([s, n]) => `${s} ${n}`)
      .join(', ')}`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

function valueOf(args: readonly string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

void main();
