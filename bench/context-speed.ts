import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Whole-process speed of `clawcode context` on one project (targets: ≤ 1.5 s cold, ≤ 0.5 s
 * warm, ≤ 300 MB peak on ~10k files). Runs the built module (`npx tsc -p tsconfig.json --outDir DIR`
 * first; default DIR = dist) in a fresh `node` per run, cold (empty CLAWCODE_HOME) then warm.
 *
 * Usage: tsx bench/context-speed.ts <projectDir> [task] [runs]   env CLAWCODE_SPEED_DIST=<built dir>
 */

const [project, task = 'fix formatting of long string concatenation in JSX attributes', runsArg = '3'] =
  process.argv.slice(2);
if (!project) throw new Error('usage: tsx bench/context-speed.ts <projectDir> [task] [runs]');
const dist = resolve(process.env.CLAWCODE_SPEED_DIST ?? 'dist');
const moduleUrl = new URL(`file://${join(dist, 'cli/context.js')}`).href;
if (!existsSync(join(dist, 'cli/context.js')))
  throw new Error(`build first: ${join(dist, 'cli/context.js')} is missing`);

const child = `
const { runContextCommand } = await import(${JSON.stringify(moduleUrl)});
let out = '';
await runContextCommand({ rootDir: process.argv[1], task: process.argv[2], budgetChars: 18000, json: true, stdout: { write: (s) => { out += s; return true; } } });
const j = JSON.parse(out);
process.stderr.write(JSON.stringify({ files: j.files.length, scanned: j.scannedFiles, stageMs: j.ms, maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024) }));
`;

function run(home: string): { wallMs: number; stageMs: number; maxRssMB: number; scanned: number } {
  const started = performance.now();
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', child, resolve(project!), task], {
    env: { ...process.env, CLAWCODE_HOME: home },
    encoding: 'utf8',
  });
  const wallMs = performance.now() - started;
  if (r.status !== 0) throw new Error(r.stderr);
  const j = JSON.parse(r.stderr) as { stageMs: number; maxRssMB: number; scanned: number };
  return { wallMs, ...j };
}

const runs = Number(runsArg);
const rows: string[] = [];
for (let i = 0; i < runs; i++) {
  const home = mkdtempSync(join(tmpdir(), 'clawcode-speed-'));
  const cold = run(home);
  const warm = run(home);
  rows.push(
    `run ${i + 1}: scanned ${cold.scanned} files; cold ${cold.wallMs.toFixed(0)} ms (stage ${cold.stageMs}, peak ${cold.maxRssMB} MB); warm ${warm.wallMs.toFixed(0)} ms (stage ${warm.stageMs}, peak ${warm.maxRssMB} MB)`,
  );
  rmSync(home, { recursive: true, force: true });
}
process.stdout.write(`${rows.join('\n')}\n`);
