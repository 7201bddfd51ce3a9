import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { endianness, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fenceFor } from '../../../agent/context/pack-text.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildContext } from '../../../agent/context/build.js';
import { INDEX_VERSION, indexPath } from '../../../agent/context/search-index.js';
import { gitIn } from '../../support/fixture.js';

let root: string;
let home: string;

function write(rel: string, text: string): void {
  const abs = join(root, rel);
  mkdirSync(join(abs, '..'), { recursive: true });
  writeFileSync(abs, text);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cc-ctx-'));
  home = mkdtempSync(join(tmpdir(), 'cc-home-'));
  vi.stubEnv('CLAWCODE_HOME', home);
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

function bigFile(fnName: string, filler: number): string {
  const parts: string[] = [];
  for (let i = 0; i < filler; i++)
    parts.push(`export function helper${i}(value) {\n  const doubled = value * ${i};\n  return doubled + ${i};\n}\n`);
  parts.splice(
    Math.floor(filler / 2),
    0,
    `export function ${fnName}(request) {\n  const retries = request.retryCount;\n  if (retries > 3) {\n    throw new Error('too many retries');\n  }\n  return retries;\n}\n`,
  );
  return parts.join('\n');
}

describe('buildContext', () => {
  it('puts the file that defines the named function first', async () => {
    write('src/retry.ts', 'export function computeRetryDelay(attempt: number) {\n  return 2 ** attempt * 100;\n}\n');
    write('src/http.ts', 'export function send() {\n  return fetch("x");\n}\n');
    write(
      'test/retry.test.ts',
      'import { computeRetryDelay } from "../src/retry";\ntest("retry delay", () => computeRetryDelay(1));\n',
    );
    write('README.md', '# demo\nRetry delay docs.\n');
    const r = await buildContext({
      rootDir: root,
      task: 'Fix computeRetryDelay overflow for large attempt',
      budgetChars: 18_000,
      homeDir: home,
    });
    expect(r.files[0]?.path).toBe('src/retry.ts');
    expect(r.files[0]?.ranges).toBeNull();
    expect(r.files[0]?.text).toContain(
      'export function computeRetryDelay(attempt: number) {\n  return 2 ** attempt * 100;\n}\n',
    );
    expect(r.scannedFiles).toBe(4);
    expect(r.fileList).toEqual(['README.md', 'src/http.ts', 'src/retry.ts', 'test/retry.test.ts']);
    expect(r.totalChars).toBe(r.files.reduce((a, f) => a + f.chars, 0) + r.outline.length);
    expect(r.outline).toContain('src/ http.ts');
  });

  it('sends a large file as verbatim regions around the relevant function', async () => {
    const text = bigFile('handleRetryLimit', 400);
    write('lib/big.js', text);
    const r = await buildContext({
      rootDir: root,
      task: 'handleRetryLimit throws too early',
      budgetChars: 4000,
      homeDir: home,
    });
    const f = r.files.find((x) => x.path === 'lib/big.js');
    expect(f?.ranges).not.toBeNull();
    const lines = text.split('\n');
    const defLine = lines.findIndex((l) => l.includes('function handleRetryLimit')) + 1;
    expect(f!.ranges!.some(([a, b]) => a <= defLine && defLine + 6 <= b)).toBe(true);
    for (const [a, b] of f!.ranges!) expect(f!.text).toContain(excerptBlock(lines, a, b));
    expect(r.totalChars).toBeLessThanOrEqual(4000);
  });

  it('sends a few thousand characters for a focused task, whatever the budget', async () => {
    write('utils/a.ts', 'export function parseWidgetConfig(text: string) {\n  return JSON.parse(text);\n}\n');
    write(
      'app/load.ts',
      "import { parseWidgetConfig } from '../utils/a.js';\nexport const load = parseWidgetConfig;\n",
    );
    // Thirty files that share no word with the task: the old packer filled any budget with them.
    for (let i = 0; i < 30; i++) write(`lib/module${i}.ts`, bigFile(`compute${i}`, 40));
    const r = await buildContext({
      rootDir: root,
      task: 'rename parseWidgetConfig in utils/a.ts',
      budgetChars: 240_000,
    });
    expect(r.files.map((f) => f.path).sort()).toEqual(['app/load.ts', 'utils/a.ts']);
    expect(r.totalChars).toBeLessThan(5_000);
  });

  it('leaves out a file far below the best match however much room is left', async () => {
    // Every file says `value`; only one says what the task asks about, many times over.
    write('src/billing.ts', bigFile('chargeInvoiceTotal', 3).replace(/doubled/g, 'invoiceTotal'));
    for (let i = 0; i < 40; i++) write(`src/part${i}.ts`, `export const value${i} = ${i};\n`);
    write('src/weak.ts', 'export const value = 1; // invoice\n' + 'export const other = 2;\n'.repeat(200));
    const r = await buildContext({ rootDir: root, task: 'charge the invoice total value', budgetChars: 240_000 });
    const sent = r.files.map((f) => f.path);
    expect(sent[0]).toBe('src/billing.ts');
    expect(sent).not.toContain('src/weak.ts');
    expect(r.totalChars).toBeLessThan(20_000);
  });

  it('past the first files packed, leaves out weak matches far down the ranking instead of refilling their room', async () => {
    // Four files say the task's words 150 times each (about 71,000 characters, packed first); 24 small
    // files say one of them once. Their value (score 0.12 times the rank prior) falls under the floor
    // from mid4 on (the 9th file).
    const fns = (s: number, n: number): string =>
      Array.from(
        { length: n },
        (_, i) =>
          `export function settle${s}x${i}(ledger, balance) {\n  // reconcile the ledger balance\n  return ledger.balance - balance;\n}\n`,
      ).join('\n');
    const project = (n: number): void => {
      for (let s = 0; s < 4; s++) write(`src/accounts${s}.ts`, fns(s, n));
      for (let i = 0; i < 60; i++) write(`src/other${i}.ts`, `export const pad${i} = ${i};\n`);
      for (let i = 0; i < 24; i++)
        write(
          `src/mid${i}.ts`,
          `export function step${i}(entry) {\n  // reconcile\n  return entry.amount + ${i};\n}\n`,
        );
    };
    const mids = (paths: string[]): string[] => paths.filter((p) => p.startsWith('src/mid')).sort();
    project(150);
    const far = await buildContext({ rootDir: root, task: 'reconcile the ledger balance', budgetChars: 240_000 });
    expect(far.files.slice(0, 4).map((f) => f.path)).toEqual([0, 1, 2, 3].map((s) => `src/accounts${s}.ts`));
    expect(mids(far.files.map((f) => f.path))).toEqual([0, 1, 2, 3].map((i) => `src/mid${i}.ts`));
    // The same weak files reached early (the strong files are small) are sent: the floor cuts only the tail.
    project(3);
    const near = await buildContext({ rootDir: root, task: 'reconcile the ledger balance', budgetChars: 240_000 });
    expect(mids(near.files.map((f) => f.path))).toHaveLength(24);
  });

  it('never exceeds the budget, counting the outline', async () => {
    for (let i = 0; i < 60; i++) write(`src/mod${i}.ts`, `export const value${i} = 'retry ${'x'.repeat(i * 37)}';\n`);
    for (const budget of [0, 50, 300, 1000, 2500, 9000]) {
      const r = await buildContext({ rootDir: root, task: 'retry value', budgetChars: budget, homeDir: home });
      expect(r.totalChars).toBeLessThanOrEqual(budget);
      expect(r.files.reduce((a, f) => a + f.chars, 0) + r.outline.length).toBe(r.totalChars);
      for (const f of r.files) expect(f.text.length).toBe(f.chars);
    }
  });

  it('redacts secrets in sent text and never sends .env files', async () => {
    write('.env', 'OPENAI_API_KEY=sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX1234567890\n');
    write('src/config.ts', 'export const awsKey = "AKIAIOSFODNN7EXAMPLE";\nexport const loadConfig = () => awsKey;\n');
    const r = await buildContext({
      rootDir: root,
      task: 'loadConfig reads the aws key and api key',
      budgetChars: 18_000,
      homeDir: home,
    });
    expect(r.files.map((f) => f.path)).toEqual(['src/config.ts']);
    expect(r.files[0]!.text).toContain('[REDACTED:aws_access_key]');
    expect(r.files[0]!.text).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(r.redactions).toEqual([{ path: 'src/config.ts', kind: 'aws_access_key', count: 1 }]);
    expect(r.fileList).not.toContain('.env');
    expect(r.outline).not.toContain('.env');
  });

  it('reuses the on-disk index when nothing changed and re-tokenizes an edited file', async () => {
    write('a.ts', 'export const alpha = 1;\n');
    write('b.ts', 'export const beta = 2;\n');
    const cold = await buildContext({ rootDir: root, task: 'gamma', budgetChars: 5000, homeDir: home });
    expect(cold.indexedFiles).toBe(2);
    const warm = await buildContext({ rootDir: root, task: 'gamma', budgetChars: 5000, homeDir: home });
    expect(warm.indexedFiles).toBe(0);
    expect(warm.files.every((f) => f.parts?.content === 0)).toBe(true);
    writeFileSync(join(root, 'b.ts'), 'export const gammaRay = 3; // gamma\n');
    utimesSync(join(root, 'b.ts'), new Date(), new Date(Date.now() + 5000));
    const edited = await buildContext({ rootDir: root, task: 'gamma', budgetChars: 5000, homeDir: home });
    expect(edited.indexedFiles).toBe(1);
    expect(edited.files[0]?.path).toBe('b.ts');
    expect(edited.files[0]?.parts?.content).toBeGreaterThan(0);
    expect(edited.files[0]!.text).toContain('gammaRay');
  });

  it('in a git work tree, keys unmodified tracked files by blob id: a touch costs nothing, a same-size same-mtime edit is seen', async () => {
    write('a.ts', 'export const alpha = 1;\n');
    write('b.ts', 'export const beta0 = 2;\n');
    const git = (...args: string[]) => gitIn(root, ...args);
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'init');
    expect((await buildContext({ rootDir: root, task: 'beta', budgetChars: 5000, homeDir: home })).indexedFiles).toBe(
      2,
    );

    // New mtime, same bytes: git compares the content, finds the blob unchanged, nothing is re-read.
    utimesSync(join(root, 'a.ts'), new Date(), new Date(Date.now() + 5000));
    expect((await buildContext({ rootDir: root, task: 'beta', budgetChars: 5000, homeDir: home })).indexedFiles).toBe(
      0,
    );

    // Same size and mtime, new bytes (what an mtime+size cache cannot see): git reports it modified.
    const before = statSync(join(root, 'b.ts'));
    write('b.ts', 'export const gamma = 2;\n');
    utimesSync(join(root, 'b.ts'), before.atime, before.mtime);
    expect(statSync(join(root, 'b.ts')).size).toBe(before.size);
    const edited = await buildContext({ rootDir: root, task: 'gamma', budgetChars: 5000, homeDir: home });
    expect(edited.indexedFiles).toBe(1);
    expect(edited.files[0]?.path).toBe('b.ts');
    expect(edited.files[0]?.parts?.content).toBeGreaterThan(0);
  });

  it('removes the index files of earlier versions when it writes the current one', async () => {
    write('a.ts', 'export const alpha = 1;\n');
    const current = indexPath(home, root);
    const older = current.replace(`.v${INDEX_VERSION}.idx`, `.v${INDEX_VERSION - 1}.json`);
    mkdirSync(join(current, '..'), { recursive: true });
    writeFileSync(older, '{"version":5,"docs":{}}');
    await buildContext({ rootDir: root, task: 'alpha', budgetChars: 5000, homeDir: home });
    expect(existsSync(current)).toBe(true);
    expect(existsSync(older)).toBe(false);
  });

  it('rebuilds a damaged index instead of failing', async () => {
    write('a.ts', 'export const alpha = 1;\n');
    await buildContext({ rootDir: root, task: 'alpha', budgetChars: 5000, homeDir: home });
    const file = indexPath(home, root);
    const good = readFileSync(file);
    // A header that promises sections the file does not have.
    writeFileSync(
      file,
      `${JSON.stringify({ version: INDEX_VERSION, endian: endianness(), count: 2, strings: 9, terms: 3 })}\n`,
    );
    const r0 = await buildContext({ rootDir: root, task: 'alpha', budgetChars: 5000, homeDir: home });
    expect(r0.indexedFiles).toBe(1);
    // The last byte cut off: the terms no longer add up, the whole file is distrusted.
    writeFileSync(file, good.subarray(0, good.length - 1));
    const r = await buildContext({ rootDir: root, task: 'alpha', budgetChars: 5000, homeDir: home });
    expect(r.indexedFiles).toBe(1);
    expect(r.files[0]?.path).toBe('a.ts');
    writeFileSync(file, '{ not json');
    expect(
      (await buildContext({ rootDir: root, task: 'alpha', budgetChars: 5000, homeDir: home })).files[0]?.path,
    ).toBe('a.ts');
  });
});

/** One excerpt as the prompt shows it: its line marker outside the fence, the verbatim lines inside. */
function excerptBlock(lines: readonly string[], a: number, b: number): string {
  const body = `${lines.slice(a - 1, b).join('\n')}\n`;
  const fence = fenceFor(body);
  return `[lines ${a}-${b}]\n${fence}\n${body}${fence}\n`;
}
