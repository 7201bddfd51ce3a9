/**
 * Benchmark of the patch engine on find/replace cases transcribed from other editing tools' own test suites.
 * The cases are not part of this repository: CLAWCODE_PEER_CASES names a JSON file, or a directory whose
 * `*.json` files (not `*-raw.json`) are read. Each file is an array of
 *
 *   { source: "owner/repo:path:test name", content, find, replace, expect: string | null, class?, replaceAll? }
 *
 * where find/replace may be arrays (several patches of one file, applied in order as one plan) and
 * `expect: null` means the case must be refused (the tool errors, or it guesses: first of several matches,
 * most similar, case-insensitive). Scoring: applied with exactly `expect` or refused where `expect` is null
 * is correct; refused where an edit was expected is "refused"; any other applied result is WRONG.
 *
 *   CLAWCODE_PEER_CASES=/path/to/cases npx tsx bench/peer.ts [--show]
 *
 * CLAWCODE_PATCH_BASELINE names another build's patch module (`../main/utils/patch.ts`, say): its totals are
 * printed beside ours, from the same run.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { applyPatch } from '../utils/patch.js';
import { applyPatches } from '../utils/patch/plan-apply.js';

/** The two entry points the cases call; a baseline build's `utils/patch` module has both (before plans moved to `utils/patch/plan-apply`). */
interface PatchModule {
  applyPatch: typeof applyPatch;
  applyPatches: typeof applyPatches;
}
const ours: PatchModule = { applyPatch, applyPatches };

interface PeerCase {
  source: string;
  content: string;
  find: string | string[];
  replace: string | string[];
  expect: string | null;
  class?: string;
  replaceAll?: boolean;
}

type Verdict = 'correct' | 'refused' | 'wrong';
type Tally = Record<Verdict, number> & { n: number };

function loadCases(where: string): PeerCase[] {
  const files = statSync(where).isDirectory()
    ? readdirSync(where)
        .filter((f) => f.endsWith('.json') && !f.endsWith('-raw.json'))
        .map((f) => path.join(where, f))
    : [where];
  return files.flatMap((f) => JSON.parse(readFileSync(f, 'utf8')) as PeerCase[]);
}

/** Apply one case; returns whether it applied, the new content, and the pass or error code. */
function run(
  c: PeerCase,
  { applyPatch, applyPatches }: PatchModule = ours,
): { applied: boolean; out?: string; how: string } {
  if (Array.isArray(c.find)) {
    const replaces = c.replace as string[];
    const patches = c.find.map((find, i) => ({
      file: 'f',
      operation: 'replace' as const,
      find,
      replace: replaces[i]!,
    }));
    const r = applyPatches(new Map([['f', c.content]]), patches);
    return { applied: r.applied, out: r.contents.get('f'), how: r.results.map((x) => x.strategy ?? x.code).join(',') };
  }
  const r = applyPatch(c.content, c.find, c.replace as string, c.replaceAll ? { replaceAll: true } : {});
  return { applied: r.applied, out: r.newContent, how: r.strategy ?? r.code ?? '' };
}

function verdictOf(c: PeerCase, r: { applied: boolean; out?: string }): Verdict {
  if (!r.applied) return c.expect === null ? 'correct' : 'refused';
  return c.expect !== null && r.out === c.expect ? 'correct' : 'wrong';
}

async function main(): Promise<void> {
  const where = process.env.CLAWCODE_PEER_CASES;
  if (!where) {
    console.error('set CLAWCODE_PEER_CASES to a JSON file or a directory of case files');
    process.exit(2);
  }
  const cases = loadCases(where);
  const show = process.argv.includes('--show');
  const by: Record<'tool' | 'class', Record<string, Tally>> = { tool: {}, class: {} };
  const total: Tally = { n: 0, correct: 0, refused: 0, wrong: 0 };
  const times: number[] = [];
  for (const c of cases) {
    const t0 = performance.now();
    const r = run(c);
    times.push(performance.now() - t0);
    const verdict = verdictOf(c, r);
    const tool = c.source.split(':')[0]!;
    const cls = c.class ?? 'unclassified';
    for (const t of [(by.tool[tool] ??= blank()), (by.class[cls] ??= blank()), total]) {
      t.n++;
      t[verdict]++;
    }
    if (show && verdict !== 'correct')
      console.log(`${verdict.toUpperCase().padEnd(8)} [${cls}] ${c.source} :: ${r.how}`);
  }
  const row = (k: string, t: Tally) =>
    `${k.padEnd(30)} ${String(t.n).padStart(4)} ${String(t.correct).padStart(8)} ${String(t.refused).padStart(8)} ${String(t.wrong).padStart(6)}`;
  for (const [name, tallies] of Object.entries(by)) {
    console.log(`${`by ${name}`.padEnd(30)}    n  correct  refused  WRONG`);
    for (const [k, t] of Object.entries(tallies).sort()) console.log(row(k, t));
  }
  console.log(row('TOTAL', total));
  const baseline = process.env.CLAWCODE_PATCH_BASELINE;
  if (baseline) {
    const mod = (await import(pathToFileURL(resolve(baseline)).href)) as PatchModule;
    const other: Tally = blank();
    for (const c of cases) {
      other.n++;
      other[verdictOf(c, run(c, mod))]++;
    }
    console.log(row('TOTAL (baseline)', other));
  }
  times.sort((a, b) => a - b);
  console.log(`median ms per case ${(times[Math.floor(times.length / 2)] ?? 0).toFixed(3)}`);
}

function blank(): Tally {
  return { n: 0, correct: 0, refused: 0, wrong: 0 };
}

void main();
