import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { buildContext } from '../../agent/context/build.js';
import { scanProject } from '../../agent/context/scan.js';
import type { Planner } from '../../agent/runner.js';
import { runWideTask, type FootprintEstimate } from '../../agent/wide/task.js';
import type { ProviderConfig } from '../../llm/types.js';
import type { Plan } from '../../utils/plan.js';

const provider: ProviderConfig = { provider: 'openai', name: 'openai', model: 'gpt-4o-mini' };
const empty: Plan = { analysis: '', files_to_edit: [], patches: [], commands: [], agent_notes: [] };

beforeEach(async () => {
  vi.stubEnv('CLAWCODE_HOME', await mkdtemp(join(tmpdir(), 'clawcode-home-')));
});

async function project(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'clawcode-wide-task-'));
  for (const [path, data] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), data);
  }
  return root;
}

/** A planner that counts its requests and answers every shard with an empty plan. */
function countingPlanner(): { planner: Planner; calls: () => number } {
  let n = 0;
  return {
    planner: async () => {
      n++;
      return { plan: empty, reply: { text: '', model: 'test' }, repaired: false, ms: 1 };
    },
    calls: () => n,
  };
}

describe('runWideTask', () => {
  it('decides that pinned files fitting one request are an ordinary task, before asking or sending anything', async () => {
    const root = await project({ 'a.js': 'one\n', 'b.js': 'two\n' });
    const { planner, calls } = countingPlanner();
    const asked: FootprintEstimate[] = [];
    const outcome = await runWideTask(
      { rootDir: root, task: 't', provider, budgetChars: 18_000, files: ['a.js'], planner },
      { confirmFootprint: async (e) => (asked.push(e), true) },
    );
    expect(outcome.kind).toBe('single-request');
    expect(asked).toEqual([]);
    expect(calls()).toBe(0);
    // The outcome carries the one scan, for the ordinary task to reuse.
    expect(outcome.kind === 'single-request' && outcome.scan.fileList).toEqual(['a.js', 'b.js']);
  });

  it('asks confirmFootprint with the estimate; a no sends nothing', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 6; i++) files[`lib/m${i}.js`] = `const fs = require('fs');\n${'// filler\n'.repeat(60)}`;
    const root = await project(files);
    const { planner, calls } = countingPlanner();
    const asked: FootprintEstimate[] = [];
    const input = { rootDir: root, task: 't', provider, budgetChars: 1500, grep: ["require\\('fs'\\)"], planner };
    const declined = await runWideTask(input, { confirmFootprint: async (e) => (asked.push(e), false) });
    expect(declined.kind).toBe('declined');
    expect(calls()).toBe(0);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ files: 6 });
    expect(asked[0]!.shards).toBeGreaterThan(1);

    const planned = await runWideTask(input, { confirmFootprint: async () => true });
    expect(planned.kind).toBe('planned');
    expect(calls()).toBe(asked[0]!.shards);
  });
});

describe('buildContext with a scan', () => {
  it('uses the scan it is given instead of scanning again', async () => {
    const root = await project({ 'a.js': 'alpha beta\n', 'b.js': 'alpha beta gamma\n' });
    const scan = await scanProject(root);
    const only = { ...scan, files: scan.files.filter((f) => f.path === 'a.js'), fileList: ['a.js'] };
    const context = await buildContext({ rootDir: root, task: 'alpha beta gamma', budgetChars: 18_000, scan: only });
    expect(context.fileList).toEqual(['a.js']);
    expect(context.files.map((f) => f.path)).toEqual(['a.js']);
  });
});
