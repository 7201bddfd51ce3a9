import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileFootprintPattern, matchingLines, pathsUnder } from '../../agent/wide/footprint.js';
import { parseScopeAnswer } from '../../agent/wide/scope-request.js';
import { mergeShardPlans } from '../../agent/wide/merge.js';
import { buildShardRequests, planShards } from '../../agent/wide/plan-shards.js';
import { filePieces, footprintList, packShards, type Shard } from '../../agent/wide/shards.js';
import { prepareWideChange, runWideChange } from '../../agent/wide/wide.js';
import { createAgentEmitter } from '../../agent/events.js';
import type { Planner } from '../../agent/runner.js';
import type { ProviderConfig } from '../../llm/types.js';
import type { Plan } from '../../utils/plan.js';
import { ProviderError } from '../../utils/errors.js';

const plan = (patches: Plan['patches'], extra: Partial<Plan> = {}): Plan => ({
  analysis: '',
  files_to_edit: [],
  patches,
  commands: [],
  agent_notes: [],
  ...extra,
});
const provider: ProviderConfig = { provider: 'openai', name: 'openai', model: 'gpt-4o-mini' };
const lines = (n: number, f: (i: number) => string): string =>
  Array.from({ length: n }, (_, i) => `${f(i + 1)}\n`).join('');

async function project(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'clawcode-wide-'));
  for (const [path, data] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), data);
  }
  return root;
}

describe('packShards', () => {
  it('keeps every shard under the content budget and every file in exactly one shard, folders together', () => {
    const files = ['b/2.ts', 'a/1.ts', 'b/1.ts', 'a/2.ts', 'c/1.ts'].map((path) => ({
      path,
      text: lines(20, (i) => `const v${i} = ${i};`),
    }));
    const one = filePieces(files[0]!, { contentBudgetChars: 100_000 })[0]!.chars;
    const shards = packShards(files, { contentBudgetChars: one * 2 + 10 });
    expect(shards.map((s) => s.files.map((f) => f.path))).toEqual([
      ['a/1.ts', 'a/2.ts'],
      ['b/1.ts', 'b/2.ts'],
      ['c/1.ts'],
    ]);
    for (const s of shards) expect(s.chars).toBeLessThanOrEqual(one * 2 + 10);
  });

  it('sends a file larger than the budget as the regions around its matches', () => {
    const text = lines(400, (i) => (i === 50 || i === 300 ? `import fs from 'fs'; // ${i}` : `line ${i}`));
    const [piece, ...rest] = filePieces({ path: 'big.js', text, matchLines: [50, 300] }, { contentBudgetChars: 2000 });
    expect(rest).toEqual([]);
    expect(piece!.ranges).toEqual([
      [42, 58],
      [292, 308],
    ]);
    expect(piece!.text).toContain("import fs from 'fs'; // 50\n");
    expect(piece!.chars).toBeLessThanOrEqual(2000);
  });

  it('splits a large file without matches into line windows that together cover every line once', () => {
    const text = lines(300, (i) => `row ${i} ${'x'.repeat(20)}`);
    const pieces = filePieces({ path: 'data.txt', text }, { contentBudgetChars: 1500 });
    expect(pieces.length).toBeGreaterThan(2);
    const covered = pieces.flatMap((p) =>
      p.ranges!.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => a + i)),
    );
    expect(covered).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    for (const p of pieces) expect(p.chars).toBeLessThanOrEqual(1500);
  });

  it('returns no shard for an empty footprint', () => {
    expect(packShards([], { contentBudgetChars: 1000 })).toEqual([]);
  });
});

describe('footprintList', () => {
  it('lists every path, or folds by folder with counts when the list is too long', () => {
    expect(footprintList(['b.ts', 'a/x.ts'], 100)).toBe('a/x.ts\nb.ts');
    const many = Array.from({ length: 50 }, (_, i) => `src/deep/folder/file-${i}.ts`).concat(['README.md']);
    expect(footprintList(many, 200)).toBe('./ (1 file)\nsrc/deep/folder/ (50 files)');
  });
});

describe('footprint patterns', () => {
  it('finds matching line numbers and skips very long lines', () => {
    expect(
      matchingLines("a\nrequire('fs')\nb\nrequire('path')", [compileFootprintPattern("require\\('(fs|path)'\\)")]),
    ).toEqual([2, 4]);
    expect(matchingLines(`${'x'.repeat(3000)}fs\nfs\n`, [/fs/u])).toEqual([2]);
  });

  it('refuses empty, invalid and exponential-backtracking patterns with one line', () => {
    expect(() => compileFootprintPattern('')).toThrow(/1 to 300 characters/);
    expect(() => compileFootprintPattern('(')).toThrow(/Not a valid regular expression/);
    expect(() => compileFootprintPattern('(a+)+$')).toThrow(/exponential/);
    expect(() => compileFootprintPattern('(\\w*)*')).toThrow(/exponential/);
    expect(compileFootprintPattern('(foo|bar)+').test('foobar')).toBe(true);
  });

  it('parses a scope answer and refuses one of the wrong shape', () => {
    expect(parseScopeAnswer('```json\n{"patterns":["x"],"pathspecs":["src/"],"reason":"r"}\n```')).toEqual({
      patterns: ['x'],
      pathspecs: ['src/'],
      rules: [],
      reason: 'r',
    });
    expect(() => parseScopeAnswer('{"patterns":"x"}')).toThrow(/scope schema/);
    expect(() => parseScopeAnswer('no json here')).toThrow(/no JSON/);
  });

  it('resolves pathspecs only to candidates (a secret or missing path never enters)', () => {
    expect(
      pathsUnder(
        ['src/', './lib/a.js', '.env', 'nope'],
        ['lib/a.js', 'lib/b.js', 'src/x.ts', 'src/y/z.ts', 'srcfoo.ts'],
      ),
    ).toEqual(['lib/a.js', 'src/x.ts', 'src/y/z.ts']);
  });
});

function shard(index: number, paths: string[]): Shard {
  return {
    index,
    files: paths.map((path) => ({ path, ranges: null, text: `## ${path}\n`, chars: 4 + path.length })),
    chars: 0,
  };
}

describe('mergeShardPlans', () => {
  it('keeps shard order, refuses a patch to a file its shard did not show, and lists failed shards', () => {
    const merged = mergeShardPlans([
      {
        shard: shard(1, ['b.ts']),
        status: 'planned',
        plan: plan([{ file: 'b.ts', operation: 'replace', find: 'b', replace: 'B' }], { commands: ['npm test'] }),
      },
      {
        shard: shard(0, ['a.ts']),
        status: 'planned',
        plan: plan(
          [
            { file: 'a.ts', operation: 'replace', find: 'a', replace: 'A' },
            { file: 'b.ts', operation: 'replace', find: 'b', replace: 'X' },
          ],
          { commands: ['npm test'], analysis: 'first' },
        ),
      },
      { shard: shard(2, ['c.ts']), status: 'failed', error: 'rate limited', code: 'provider_rate_limited' },
    ]);
    expect(merged.plan.patches.map((p) => `${p.file}:${p.replace}`)).toEqual(['a.ts:A', 'b.ts:B']);
    expect(merged.patchShards).toEqual([0, 1]);
    expect(merged.refused).toEqual([
      {
        shard: 0,
        patchIndex: 1,
        file: 'b.ts',
        code: 'patch_outside_shard',
        message: 'shard 1 patched b.ts, which it was not shown',
      },
    ]);
    expect(merged.plan.commands).toEqual(['npm test']);
    expect(merged.planned).toEqual([0, 1]);
    expect(merged.failed).toEqual([{ shard: 2, error: 'rate limited', code: 'provider_rate_limited' }]);
  });
});

describe('planShards', () => {
  const requests = buildShardRequests({
    task: 't',
    shards: [shard(0, ['a.ts']), shard(1, ['b.ts']), shard(2, ['c.ts'])],
    footprintPaths: ['a.ts', 'b.ts', 'c.ts'],
    listMaxChars: 1000,
  });

  it('shows every request the whole scope and only its own files', () => {
    expect(requests[1]!.userPrompt).toContain('this request is part 2 of 3');
    expect(requests[1]!.userPrompt).toContain('a.ts\nb.ts\nc.ts');
    expect(requests[1]!.userPrompt).toContain('## b.ts');
    expect(requests[1]!.userPrompt).not.toContain('## a.ts');
  });

  it('never has more requests in flight than the concurrency, and reports each shard', async () => {
    let inFlight = 0;
    let most = 0;
    const planner: Planner = async (_c, _s, user) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 20));
      inFlight--;
      if (user.includes('part 3 of 3')) throw new ProviderError('bad request', { provider: 'openai', status: 400 });
      return {
        plan: plan([]),
        reply: { text: '{}', model: 'test' },
        repaired: false,
        ms: 1,
        usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 },
      };
    };
    const emitter = createAgentEmitter();
    const done: string[] = [];
    emitter.on('shard_done', (e) => done.push(`${e.shard}:${e.status}`));
    const result = await planShards(requests, { provider, systemPrompt: 's', planner, concurrency: 2, emitter });
    expect(most).toBe(2);
    expect(result.outcomes.map((o) => o.status)).toEqual(['planned', 'planned', 'failed']);
    expect(done.sort()).toEqual(['0:planned', '1:planned', '2:failed']);
    expect(result.usage).toEqual({ inputTokens: 20, outputTokens: 4, totalTokens: 24 });
    expect(result.requests).toBe(3);
  });

  it('sends a rate-limited shard once more from a shared budget, then one request at a time', async () => {
    let calls = 0;
    const planner: Planner = async (_c, _s, user) => {
      calls++;
      if (user.includes('part 1 of 3') && calls === 1)
        throw new ProviderError('rate limited', { provider: 'openai', status: 429, retryable: true });
      return { plan: plan([]), reply: { text: '{}', model: 'test' }, repaired: false, ms: 1 };
    };
    const result = await planShards(requests, {
      provider,
      systemPrompt: 's',
      planner,
      concurrency: 1,
      requeueDelayMs: 1,
    });
    expect(result.outcomes.map((o) => o.status)).toEqual(['planned', 'planned', 'planned']);
    expect(result.requests).toBe(4);
  });
});

describe('prepareWideChange + runWideChange', () => {
  it('covers a footprint larger than one budget with several requests, each within the budget, merged into one plan', async () => {
    const files: Record<string, string> = { '.env': "SECRET=require('fs')\n" };
    for (let i = 0; i < 12; i++)
      files[`lib/m${i}.js`] = `const fs = require('fs');\n${lines(40, (j) => `// filler ${i}.${j}`)}`;
    const root = await project(files);
    const budget = 4000;
    const prepared = await prepareWideChange({
      rootDir: root,
      task: 'use the node: prefix for builtins',
      budgetChars: budget,
      patterns: ["require\\('fs'\\)"],
    });
    expect(prepared.footprint).toEqual(
      Object.keys(files)
        .filter((p) => p.startsWith('lib/'))
        .sort(),
    );
    expect(prepared.requests.length).toBeGreaterThan(1);
    for (const r of prepared.requests)
      expect(r.chars).toBeLessThanOrEqual(budget + r.userPrompt.indexOf('# Project files'));

    // Each shard answers with the edit for exactly the files it shows.
    const planner: Planner = async (_c, _s, user) => {
      const shown = [...user.matchAll(/^## (lib\/m\d+\.js)/gm)].map((m) => m[1]!);
      return {
        plan: plan(
          shown.map((file) => ({
            file,
            operation: 'replace' as const,
            find: "require('fs')",
            replace: "require('node:fs')",
          })),
        ),
        reply: { text: '', model: 'test' },
        repaired: false,
        ms: 1,
      };
    };
    const run = await runWideChange(prepared, { rootDir: root, provider, planner });
    expect(run.merged.failed).toEqual([]);
    expect(run.prepared.ok).toBe(true);
    expect(run.prepared.changes.map((c) => c.path).sort()).toEqual(prepared.footprint);
    expect(run.prepared.changes.every((c) => c.after.startsWith("const fs = require('node:fs');\n"))).toBe(true);
    expect(await readFile(join(root, 'lib/m0.js'), 'utf8')).toContain("require('fs')");
  });

  it('refuses an empty footprint with one line', async () => {
    const root = await project({ 'a.js': 'x\n' });
    await expect(
      prepareWideChange({ rootDir: root, task: 't', budgetChars: 18_000, patterns: ['nothing-matches-this'] }),
    ).rejects.toThrow('No file is in scope of this change');
  });
});
