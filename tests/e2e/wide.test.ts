import { mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { applyPlan, planWideChange } from '../../index.js';
import { cleanEnv, gitIn, runCli, snapshotTree } from '../support/fixture.js';
import {
  replies,
  startProviderServer,
  type ProviderServer,
  type RecordedRequest,
  type ScriptedReply,
} from '../support/provider-server.js';

// Wide changes through the built CLI and the real openai SDK against the loopback server: a
// footprint larger than the budget goes as several plan requests, merged and written once.

const FILES = 14;
const BUDGET = 3000;
const fileText = (i: number): string =>
  `'use strict';\nconst fs = require('fs');\n${Array.from({ length: 12 }, (_, j) => `// module ${i}, note ${j}: keep this line as it is\n`).join('')}module.exports = () => fs.existsSync('${i}');\n`;
const NODE_FS = (text: string): string => text.replace("require('fs')", "require('node:fs')");

let server: ProviderServer;
let project: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startProviderServer({ apiKey: 'sk-test-wide' });
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  server.reset();
  project = await mkdtemp(join(tmpdir(), 'clawcode-wide-e2e-'));
  for (let i = 0; i < FILES; i++) {
    await mkdir(join(project, i < 7 ? 'lib' : 'src'), { recursive: true });
    await writeFile(join(project, i < 7 ? 'lib' : 'src', `m${i}.js`), fileText(i));
  }
  await writeFile(join(project, '.env'), "TOKEN=require('fs')\n");
  await writeFile(join(project, 'README.md'), '# fixture\n');
  gitIn(project, 'init', '-q');
  gitIn(project, 'add', '-A');
  gitIn(project, 'commit', '-qm', 'init');
  home = await mkdtemp(join(tmpdir(), 'clawcode-home-'));
  env = cleanEnv({ CLAWCODE_HOME: home, OPENAI_API_KEY: 'sk-test-wide', OPENAI_BASE_URL: `${server.url}/v1` });
});

/** The files a request shows, from its `## <path>` headers. */
function shownFiles(request: RecordedRequest): string[] {
  const user = String(request.body.messages[1].content);
  return [...user.matchAll(/^## (\S+)/gm)].map((m) => m[1]!);
}

/** A model that answers each shard with the edit for exactly the files it was shown. */
function codemod(fail?: (request: RecordedRequest) => boolean): ScriptedReply {
  return (request) => {
    if (fail?.(request)) return replies.status(400, 'This shard is refused by the test.');
    const patches = shownFiles(request).map((file) => ({
      file,
      operation: 'replace',
      find: "require('fs')",
      replace: "require('node:fs')",
      replace_all: null,
      occurrence: null,
    }));
    return replies.plan(
      { analysis: 'node: prefix', files_to_edit: [], patches, commands: [], agent_notes: [] },
      { usage: { input: 700, output: 60 } },
    );
  };
}

const paths = Array.from({ length: FILES }, (_, i) => `${i < 7 ? 'lib' : 'src'}/m${i}.js`);

describe('clawcode --files / --grep / --wide', () => {
  it('shards a footprint over the budget, writes the merged plan once and undoes it in one step', async () => {
    const before = await snapshotTree(project);
    server.setFallback(codemod());
    const result = await runCli(
      [
        'use the node: prefix for builtins',
        '--dir',
        project,
        '--files',
        'lib',
        'src/*.js',
        '--budget',
        String(BUDGET),
        '--yes',
        '--json',
      ],
      { env },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    const calls = server.completions();
    expect(calls.length).toBeGreaterThan(1);
    expect(report.shards).toHaveLength(calls.length);
    expect(report.shards.every((s: { status: string }) => s.status === 'planned')).toBe(true);
    // Every footprint file shown exactly once, never the secret file; each request within the budget plus the task's framing.
    expect(calls.flatMap(shownFiles).sort()).toEqual(paths.slice().sort());
    for (const call of calls) {
      const user = String(call.body.messages[1].content);
      expect(user).not.toContain('TOKEN=');
      expect(user.length).toBeLessThanOrEqual(BUDGET + user.indexOf('# Project files'));
    }
    for (const p of paths)
      expect(await readFile(join(project, p), 'utf8')).toBe(NODE_FS(before.get(p)!.toString('utf8')));
    expect(await readFile(join(project, '.env'), 'utf8')).toBe("TOKEN=require('fs')\n");
    expect(report.filesWritten.sort()).toEqual(paths.slice().sort());
    expect(report.usage.inputTokens).toBe(700 * calls.length);

    // One journal run: one undo restores every file.
    const undo = await runCli(['undo', report.runId, '--dir', project, '--yes'], { env });
    expect(undo.code).toBe(0);
    const after = await snapshotTree(project);
    for (const [p, bytes] of before) expect(after.get(p)?.equals(bytes), p).toBe(true);
  });

  it('with --yes writes nothing when a shard fails, and says which; --partial writes the shards that planned', async () => {
    const before = await snapshotTree(project);
    const failSrc = (r: RecordedRequest): boolean => shownFiles(r).some((f) => f.startsWith('src/m13'));
    server.setFallback(codemod(failSrc));
    const args = [
      'use the node: prefix for builtins',
      '--dir',
      project,
      '--grep',
      "require\\('fs'\\)",
      '--budget',
      String(BUDGET),
      '--yes',
    ];
    const refused = await runCli([...args, '--json'], { env });
    expect(refused.code).toBe(3);
    const report = JSON.parse(refused.stdout);
    const failed = report.shards.filter((s: { status: string }) => s.status === 'failed');
    expect(failed).toHaveLength(1);
    expect(failed[0].files).toContain('src/m13.js');
    expect(report.error).toMatch(
      /1 of \d+ shards failed; nothing was written \(--partial writes the shards that planned\)/,
    );
    const unchanged = await snapshotTree(project);
    for (const [p, bytes] of before) expect(unchanged.get(p)?.equals(bytes), p).toBe(true);

    server.reset();
    server.setFallback(codemod(failSrc));
    const partial = await runCli([...args, '--partial'], { env });
    expect(partial.code).toBe(0);
    expect(partial.stdout).toMatch(/Shard \d+\/\d+ failed: .*refused by the test/);
    expect(partial.stdout).toContain('Changes by folder:');
    const failedFiles = new Set<string>(failed[0].files);
    for (const p of paths) {
      const want = failedFiles.has(p) ? before.get(p)!.toString('utf8') : NODE_FS(before.get(p)!.toString('utf8'));
      expect(await readFile(join(project, p), 'utf8'), p).toBe(want);
    }
  });

  it('--wide sends one scope request first, then one plan request per shard of what it found', async () => {
    let first = true;
    server.setFallback((request) => {
      if (first) {
        first = false;
        return replies.plan({ patterns: ["require\\('fs'\\)"], pathspecs: [], reason: 'every require of fs' });
      }
      return (codemod() as (r: RecordedRequest) => ScriptedReply)(request);
    });
    const result = await runCli(
      ['use the node: prefix for builtins', '--dir', project, '--wide', '--budget', String(BUDGET), '--yes', '--json'],
      { env },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const calls = server.completions();
    const scopeCall = calls[0]!;
    expect(scopeCall.body.response_format.json_schema.schema.required).toEqual([
      'patterns',
      'pathspecs',
      'rules',
      'reason',
    ]);
    expect(String(scopeCall.body.messages[1].content)).toContain('# Project map');
    expect(String(scopeCall.body.messages[1].content)).not.toContain('TOKEN=');
    const report = JSON.parse(result.stdout);
    expect(calls.length).toBe(1 + report.shards.length);
    expect(report.filesWritten.sort()).toEqual(paths.slice().sort());
  });

  it('--print-prompt prints every shard request and sends nothing', async () => {
    const result = await runCli(
      [
        'use the node: prefix for builtins',
        '--dir',
        project,
        '--files',
        'lib',
        'src',
        '--budget',
        String(BUDGET),
        '--print-prompt',
      ],
      { env },
    );
    expect(result.code).toBe(0);
    const n = (result.stdout.match(/^===== request \d+\/(\d+) =====$/gm) ?? []).length;
    expect(n).toBeGreaterThan(1);
    expect(server.requests).toHaveLength(0);
    expect(await readdir(home)).not.toContain('runs');
  });

  it('refuses pathspecs that match nothing sendable, before any request', async () => {
    const result = await runCli(['x', '--dir', project, '--files', '.env', 'nope/', '--yes'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Pinned file ".env" matches no file that can be sent.');
    expect(server.requests).toHaveLength(0);
  });

  it('the library plans the same sharded change and applyPlan writes the merged plan', async () => {
    server.setFallback(codemod());
    const provider = {
      provider: 'openai' as const,
      name: 'openai',
      model: 'gpt-4o-mini',
      apiKey: 'sk-test-wide',
      baseURL: `${server.url}/v1`,
    };
    const events: string[] = [];
    const { shards, run } = await planWideChange({
      rootDir: project,
      task: 'use the node: prefix',
      budgetChars: BUDGET,
      patterns: ["require\\('fs'\\)"],
      provider,
      onEvent: (name) => events.push(name),
    });
    expect(shards.requests.length).toBeGreaterThan(1);
    expect(events.filter((e) => e === 'shard_done')).toHaveLength(shards.requests.length);
    expect(run.prepared.ok).toBe(true);
    const written = await applyPlan({
      rootDir: project,
      plan: run.merged.plan,
      task: 'use the node: prefix',
      homeDir: home,
    });
    expect(written.filesWritten.sort()).toEqual(paths.slice().sort());
    expect(await readFile(join(project, 'lib/m0.js'), 'utf8')).toBe(NODE_FS(fileText(0)));
  });

  it('a shard whose patch does not apply gets one repair request of its own; the merged plan is written byte-exact', async () => {
    const before = await snapshotTree(project);
    const repairs: RecordedRequest[] = [];
    server.setFallback((request) => {
      const user = String(request.body.messages[1].content);
      if (user.includes('could not be applied')) {
        repairs.push(request);
        const patch = {
          file: 'lib/m3.js',
          operation: 'replace',
          find: "require('fs')",
          replace: "require('node:fs')",
          replace_all: null,
          occurrence: null,
        };
        return replies.plan({ analysis: 'fixed', files_to_edit: [], patches: [patch], commands: [], agent_notes: [] });
      }
      // The shard that shows lib/m3.js first answers with a find the file does not hold.
      const patches = shownFiles(request).map((file) => ({
        file,
        operation: 'replace',
        find: file === 'lib/m3.js' ? "require('fss')" : "require('fs')",
        replace: "require('node:fs')",
        replace_all: null,
        occurrence: null,
      }));
      return replies.plan({ analysis: 'node: prefix', files_to_edit: [], patches, commands: [], agent_notes: [] });
    });
    const result = await runCli(
      [
        'use the node: prefix for builtins',
        '--dir',
        project,
        '--files',
        'lib',
        'src',
        '--budget',
        String(BUDGET),
        '--yes',
        '--json',
      ],
      { env },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(repairs).toHaveLength(1);
    expect(String(repairs[0]!.body.messages[1].content)).toContain('## Patch');
    expect(server.completions()).toHaveLength(report.shards.length + 1);
    const repaired = report.shards.filter((s: { repair?: unknown }) => s.repair);
    expect(repaired).toHaveLength(1);
    expect(repaired[0].files).toContain('lib/m3.js');
    expect(repaired[0].repair.applied).toBe(true);
    for (const p of paths)
      expect(await readFile(join(project, p), 'utf8'), p).toBe(NODE_FS(before.get(p)!.toString('utf8')));
  });

  it('reports shard progress as --events lines: the footprint, then a request and a done line per shard', async () => {
    server.setFallback(codemod());
    const args = [
      'use the node: prefix for builtins',
      '--dir',
      project,
      '--files',
      'lib',
      'src',
      '--budget',
      String(BUDGET),
    ];
    const result = await runCli([...args, '--yes', '--events'], { env });
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as { event: string; shard?: number; shards?: number; done?: number; status?: string },
      );
    const footprint = events.find((e) => e.event === 'footprint') as { files: number; shards: number } | undefined;
    expect(footprint).toMatchObject({ files: FILES });
    const requests = events.filter((e) => e.event === 'shard_request');
    const done = events.filter((e) => e.event === 'shard_done');
    expect(requests).toHaveLength(footprint!.shards);
    expect(done.map((e) => e.done).sort((a, b) => a! - b!)).toEqual(requests.map((_, i) => i + 1));
    expect(done.every((e) => e.status === 'planned' && e.shards === footprint!.shards)).toBe(true);
    expect(events.findIndex((e) => e.event === 'footprint')).toBeLessThan(
      events.findIndex((e) => e.event === 'shard_request'),
    );
    expect(events.at(-1)?.event).toBe('report');
  });
});
