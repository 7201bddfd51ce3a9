/**
 * What a plan of thousands of patches costs before the first prompt: the plan prepared in memory (path checks,
 * reads, patches, diffs) and the uncommitted-files check, in CPU ms, for 1,500 to 12,000 patches in three
 * shapes: one patch per file in 100 folders, new files, and every patch to one file of as many lines. The
 * growth column is the CPU ratio to the previous size (2 = linear); wall time includes git (a child process). `npx tsx bench/big-plan.ts [sizes...]`;
 * never part of `npm test`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { preparePlan } from '../agent/prepare.js';
import { dirtyFiles } from '../utils/git/ops.js';
import type { Plan } from '../utils/plan.js';

type Shape = 'files' | 'new' | 'one';

function project(shape: Shape, n: number): { root: string; plan: Plan } {
  const root = mkdtempSync(join(tmpdir(), 'clawcode-bench-plan-'));
  const files: Record<string, string> = {};
  const patches: Plan['patches'] = [];
  const patch = (file: string, find: string, replace: string) =>
    patches.push({ file, operation: 'replace', find, replace });
  for (let i = 0; i < n; i++) {
    if (shape === 'files') {
      files[`src/d${i % 100}/f${i}.txt`] = `value ${i}\n`;
      patch(`src/d${i % 100}/f${i}.txt`, `value ${i}`, `value ${i + 1}`);
    } else if (shape === 'new') patch(`new/d${i % 100}/f${i}.txt`, '', `v${i}\n`);
    else patch('big.txt', `line ${i}\n`, `LINE ${i}\n`);
  }
  if (shape === 'one') files['big.txt'] = Array.from({ length: n }, (_, i) => `line ${i}\n`).join('');
  if (shape === 'new') files['a.txt'] = 'x\n';
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qm', 'init');
  return { root, plan: { analysis: '', files_to_edit: [], patches, commands: [], agent_notes: [] } };
}

/** CPU ms of this process, and wall ms (which includes git, a child process). */
async function cost(fn: () => Promise<unknown>): Promise<{ cpu: number; wall: number }> {
  const start = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const used = process.cpuUsage(start);
  return { cpu: (used.user + used.system) / 1000, wall: performance.now() - t0 };
}

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
for (const shape of ['files', 'new', 'one'] as const) {
  let previous: number | undefined;
  for (const n of sizes.length > 0 ? sizes : [1500, 3000, 6000, 12000]) {
    const { root, plan } = project(shape, n);
    const { cpu, wall } = await cost(async () => {
      const prepared = await preparePlan(root, plan);
      if (!prepared.ok) throw new Error(`${shape} ${n}: the plan did not apply`);
      await dirtyFiles(
        root,
        prepared.changes.map((c) => c.path),
      );
    });
    const growth = previous === undefined ? '' : `  x${(cpu / previous).toFixed(2)}`;
    console.log(
      `${shape.padEnd(6)} ${String(n).padStart(6)} patches ${cpu.toFixed(0).padStart(7)} ms CPU ${wall.toFixed(0).padStart(7)} ms wall${growth}`,
    );
    previous = cpu;
    rmSync(root, { recursive: true, force: true });
  }
}
