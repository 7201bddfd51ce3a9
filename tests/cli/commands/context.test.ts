import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatPromptEstimate, runContextCommand } from '../../../cli/commands/context.js';
import { reportedCostUsd } from '../../../cli/task/report-cost.js';

let root: string;
let home: string;

function sink(): { stream: Writable; text: () => string } {
  let out = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      out += chunk.toString();
      done();
    },
  });
  return { stream, text: () => out };
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cc-cli-ctx-'));
  home = mkdtempSync(join(tmpdir(), 'cc-home-'));
  vi.stubEnv('CLAWCODE_HOME', home);
  mkdirSync(join(root, 'src'));
  writeFileSync(
    join(root, 'src/retry.ts'),
    'export function computeRetryDelay(attempt: number) {\n  return attempt * 100;\n}\nconst key = "AKIAIOSFODNN7EXAMPLE";\n',
  );
  writeFileSync(join(root, 'src/other.ts'), 'export const other = 1;\n');
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

describe('clawcode context', () => {
  it('prints exactly the DESIGN.md JSON shape with --json', async () => {
    const out = sink();
    await runContextCommand({
      rootDir: root,
      task: 'computeRetryDelay is too slow',
      budgetChars: 5000,
      json: true,
      stdout: out.stream,
    });
    const j = JSON.parse(out.text()) as Record<string, unknown> & { files: Record<string, unknown>[] };
    expect(Object.keys(j).sort()).toEqual(['budget', 'files', 'ms', 'scannedFiles', 'totalChars']);
    expect(Object.keys(j.files[0]!).sort()).toEqual(['chars', 'path', 'ranges', 'score']);
    expect(j.files[0]).toMatchObject({ path: 'src/retry.ts', ranges: null });
    expect(j).toMatchObject({ budget: 5000, scannedFiles: 2 });
    expect(j.totalChars as number).toBeLessThanOrEqual(5000);
    expect(out.text().endsWith('}\n')).toBe(true);
  });

  it('prints a readable table with reasons and what was redacted', async () => {
    const out = sink();
    await runContextCommand({
      rootDir: root,
      task: 'computeRetryDelay is too slow',
      budgetChars: 5000,
      json: false,
      stdout: out.stream,
    });
    const text = out.text();
    expect(text.split('\n')[0]).toMatch(/^file\s+score\s+chars\s+lines\s+why$/);
    expect(text).toMatch(/src\/retry\.ts\s+\d\.\d{3}\s+\d+\s+whole\s+text [\d.]+, path [\d.]+, defines/);
    expect(text).toMatch(/of 5000 characters .*scanned 2 files/);
    expect(text).toContain('redacted 1 aws access key in src/retry.ts');
  });
});

describe('formatContextTable', () => {
  it('keeps the columns aligned when a path or a list of line ranges is longer than its column', async () => {
    const { formatContextTable } = await import('../../../cli/commands/context.js');
    const file = (path: string, ranges: [number, number][] | null) => ({
      path,
      score: 0.5,
      chars: 100,
      ranges,
      parts: { content: 0.5, path: 0, symbol: 0, neighbour: 0, prior: 1 },
    });
    const table = formatContextTable({
      files: [
        file('a.ts', null),
        file(`src/${'deep/'.repeat(20)}long-name.ts`, [
          [68, 181],
          [200, 260],
          [300, 420],
          [1000, 1200],
          [1500, 1600],
        ]),
      ] as never,
      outline: '',
      fileList: [],
      pinned: [],
      totalChars: 200,
      budget: 18000,
      scannedFiles: 2,
      ms: 1,
      redactions: [],
      indexedFiles: 0,
    });
    const rows = table.split('\n').slice(0, 3);
    const starts = rows.map((r) => r.indexOf(r.startsWith('file') ? 'why' : 'text 0.50'));
    expect(new Set(starts).size).toBe(1);
    expect(rows[2]).toMatch(/^…p\/deep\/.*\/long-name\.ts {2}0\.500/);
    expect(rows[2]).toContain('68-181,200-260,300-420,1000…');
  });
});

describe('the line shown before a request is sent', () => {
  const p = { chars: 200_000, estimatedTokens: 50_000, contextChars: 190_000, budgetChars: 230_000 };
  it('gives the input cost at the list price of a model the price table knows', () => {
    const usage = { inputTokens: p.estimatedTokens, outputTokens: 0, totalTokens: p.estimatedTokens };
    const cost = reportedCostUsd({ provider: 'openai' }, 'gpt-4o', usage);
    expect(formatPromptEstimate(p, cost)).toBe(
      'Sending 200,000 chars (~50,000 tokens, ~$0.13 in): context 190,000 of 230,000 chars',
    );
    expect(formatPromptEstimate(p, reportedCostUsd({ provider: 'openai' }, 'gpt-4o-mini', usage))).toContain(
      '~$0.0075 in',
    );
  });
  it('says nothing of cost when the price is unknown', () => {
    expect(formatPromptEstimate(p, null)).toBe(
      'Sending 200,000 chars (~50,000 tokens): context 190,000 of 230,000 chars',
    );
  });
});
