import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { preparePlan } from '../../agent/prepare.js';
import { repairPlan } from '../../agent/repair.js';
import type { Planner } from '../../agent/runner.js';
import type { PlanResult } from '../../llm/provider.js';
import type { ProviderConfig } from '../../llm/types.js';
import type { Plan } from '../../utils/plan.js';

async function project(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'clawcode-repair-'));
  for (const [path, data] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), data);
  }
  return root;
}

const plan = (patches: Plan['patches']): Plan => ({
  analysis: '',
  files_to_edit: [],
  patches,
  commands: [],
  agent_notes: [],
});
const result = (p: Plan, input = 10): PlanResult => ({
  plan: p,
  reply: { text: JSON.stringify(p), model: 'm' },
  usage: { inputTokens: input, outputTokens: 1, totalTokens: input + 1 },
  repaired: false,
  ms: 5,
});
const provider: ProviderConfig = { provider: 'openai', name: 'openai', model: 'm' };

/** A planner that answers from a list and records every user prompt it was given. */
function scripted(answers: Plan[]): { planner: Planner; prompts: string[] } {
  const prompts: string[] = [];
  return {
    prompts,
    planner: async (_config, _system, user) => {
      prompts.push(user);
      const next = answers.shift();
      if (!next) throw new Error('no more answers');
      return result(next, 100);
    },
  };
}

const FILE = 'function a() {\n  return 1;\n}\n\nfunction b() {\n  return 1;\n}\n';

describe('repairPlan', () => {
  it('shows every location of an ambiguous find and puts the replacement in its place', async () => {
    const root = await project({ 'src/f.js': FILE });
    const first = plan([
      { file: 'src/f.js', operation: 'replace', find: 'function a() {', replace: 'function a(x) {' },
      { file: 'src/f.js', operation: 'replace', find: '  return 1;\n}', replace: '  return 2;\n}' },
    ]);
    const prepared = await preparePlan(root, first);
    expect(prepared.ok).toBe(false);
    const { planner, prompts } = scripted([
      plan([
        {
          file: 'src/f.js',
          operation: 'replace',
          find: 'function b() {\n  return 1;',
          replace: 'function b() {\n  return 2;',
        },
      ]),
    ]);
    const out = await repairPlan({
      rootDir: root,
      provider,
      planner,
      systemPrompt: 's',
      userPrompt: 'TASK',
      plan: first,
      planResult: result(first),
      prepared,
    });
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain('## Patch 2 (src/f.js)');
    expect(prompts[0]).not.toContain('## Patch 1');
    expect(prompts[0]).toContain('Error: find matches 2 places');
    expect(prompts[0]?.match(/Lines \d+-\d+ of src\/f\.js/g)).toHaveLength(2);
    expect(out?.report).toMatchObject({ patches: [2], applied: true });
    expect(out?.plan.patches[0]!.find).toBe('function a() {');
    expect(out?.prepared.changes[0]!.after).toBe('function a(x) {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n');
    expect(out?.planResult.usage).toEqual({ inputTokens: 110, outputTokens: 2, totalTokens: 112 });
  });

  it('keeps the original refusal when the reply has the wrong number of patches', async () => {
    const root = await project({ 'src/f.js': FILE });
    const first = plan([{ file: 'src/f.js', operation: 'replace', find: 'function c() {', replace: 'x' }]);
    const prepared = await preparePlan(root, first);
    const { planner } = scripted([plan([])]);
    const out = await repairPlan({
      rootDir: root,
      provider,
      planner,
      systemPrompt: 's',
      userPrompt: 'TASK',
      plan: first,
      planResult: result(first),
      prepared,
    });
    expect(out?.report).toMatchObject({
      patches: [1],
      applied: false,
      error: 'the repair reply has 0 patches for 1 refused',
    });
    expect(out?.prepared.ok).toBe(false);
    expect(out?.plan).toBe(first);
  });

  it('does nothing for a plan that applied or was refused by a path check', async () => {
    const root = await project({ 'src/f.js': FILE });
    const good = plan([{ file: 'src/f.js', operation: 'replace', find: 'function a() {', replace: 'function a(x) {' }]);
    const { planner, prompts } = scripted([]);
    expect(
      await repairPlan({
        rootDir: root,
        provider,
        planner,
        systemPrompt: 's',
        userPrompt: 'T',
        plan: good,
        planResult: result(good),
        prepared: await preparePlan(root, good),
      }),
    ).toBeUndefined();
    const escape = plan([{ file: '../outside.js', operation: 'replace', find: '', replace: 'x' }]);
    expect(
      await repairPlan({
        rootDir: root,
        provider,
        planner,
        systemPrompt: 's',
        userPrompt: 'T',
        plan: escape,
        planResult: result(escape),
        prepared: await preparePlan(root, escape),
      }),
    ).toBeUndefined();
    expect(prompts).toHaveLength(0);
  });
});
