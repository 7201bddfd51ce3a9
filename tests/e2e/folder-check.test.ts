import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, CLI_PATH, gitIn, runCli } from '../support/fixture.js';
import { startProviderServer, type ProviderServer } from '../support/provider-server.js';
import { spawnPty } from '../support/pty.js';

// Outside a project: a folder that is no repository and holds thousands of files, or the home folder, is not
// scanned without a yes (asked in a terminal, refused without one), as Codex and Claude Code guard it.

let server: ProviderServer;
let big: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startProviderServer({ apiKey: 'k' });
  big = await mkdtemp(join(tmpdir(), 'clawcode-big-folder-'));
  for (let d = 0; d < 51; d++) {
    const dir = join(big, `d${d}`);
    await mkdir(dir);
    await Promise.all(Array.from({ length: 100 }, (_, f) => writeFile(join(dir, `f${f}.txt`), `file ${d}/${f}\n`)));
  }
  home = await mkdtemp(join(tmpdir(), 'clawcode-fake-home-'));
  await writeFile(join(home, 'notes.txt'), 'notes\n');
  env = cleanEnv({
    HOME: home,
    CLAWCODE_HOME: await mkdtemp(join(tmpdir(), 'clawcode-home-')),
    OPENAI_API_KEY: 'k',
    OPENAI_BASE_URL: `${server.url}/v1`,
  });
}, 60_000);
afterAll(async () => server.close());

const HINT = 'Run clawcode in your project folder (or --dir <project>), or pass --any-folder to scan this one.\n';

describe('a folder that is no project', () => {
  it('with more than 5,000 files is not scanned without a terminal: one line, exit 2', async () => {
    const r = await runCli(['context', 'fix the parser', '--dir', big], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `clawcode: ${big} is not a project (no git repository, no package.json or the like) and holds more than 5,000 files; not scanned.\n${HINT}`,
    );
    const task = await runCli(['fix the parser', '--dir', big, '--dry-run'], { env });
    expect(task.code).toBe(2);
    expect(server.requests).toEqual([]);
  });

  it('--any-folder scans it', async () => {
    const r = await runCli(['context', 'fix the parser', '--dir', big, '--any-folder', '--json'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).scannedFiles).toBe(5100);
  });

  it('the home folder is never scanned without a yes, however small', async () => {
    const r = await runCli(['context', 'fix the notes', '--dir', home], { env });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      `clawcode: ${home} is your home folder: clawcode would read every file under it; not scanned.`,
    );
  });

  it('a git repository with as many files is a project: no question', async () => {
    gitIn(big, 'init', '-q');
    try {
      const r = await runCli(['context', 'fix the parser', '--dir', big, '--json'], { env });
      expect(r.code).toBe(0);
    } finally {
      await import('node:fs/promises').then((fs) => fs.rm(join(big, '.git'), { recursive: true, force: true }));
    }
  });

  it('in a terminal, asks first (Enter means no) and reads nothing on a no', { timeout: 30_000 }, async () => {
    const s = spawnPty(process.execPath, [CLI_PATH, 'context', 'fix the parser', '--dir', big], { cwd: big, env });
    try {
      await s.waitFor('holds more than 5,000 files. Scan it anyway? (y/N)');
      s.mark();
      s.write('\r');
      expect(await s.exitCode()).toBe(0);
      expect(s.output()).toContain(`Nothing was read in ${big}.`);
      expect(s.output()).not.toContain('scanned 5100 files');
    } finally {
      s.kill();
    }
  });
});
