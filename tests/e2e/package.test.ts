import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, replacePlan, REPO_ROOT } from '../support/fixture.js';
import { replies, startProviderServer, type ProviderServer } from '../support/provider-server.js';

// The package as users get it: a clean clone of this repository is packed (`npm pack`, which builds on
// prepack), the tarball is installed into a temporary prefix (`npm i -g --prefix`), and the installed command
// runs from another folder. The clone borrows this checkout's node_modules (same package-lock) so packing
// needs no download; the install reads npm's cache first (--prefer-offline) and the registry for the rest.

const GREET = 'function greet(name) {\n  return "Hello " + name;\n}\n';
const PLAN = {
  ...replacePlan(
    'greet.js',
    [{ find: 'return "Hello " + name;', replace: 'return "Hello " + name + "!";' }],
    'Add an exclamation mark.',
  ),
  // Inline code needs a person's yes: without a terminal it is skipped, after the bash grammar read it.
  commands: ['node -e "process.exit(0)"'],
};

let server: ProviderServer;
let work: string;
let tarball: string;
let files: string[];
let installLog: string;
let bin: string;

/** Run npm with the developer's environment minus provider variables; throws with its output on failure. */
function npm(args: string[], cwd: string): string {
  const r = spawnSync('npm', args, { cwd, env: cleanEnv({}), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return `${r.stdout}\n${r.stderr}`;
}

beforeAll(async () => {
  server = await startProviderServer({ apiKey: 'k' });
  work = await mkdtemp(join(tmpdir(), 'clawcode-package-'));
  const clone = join(work, 'clone');
  execFileSync('git', ['clone', '-q', REPO_ROOT, clone]);
  expect(existsSync(join(clone, 'dist'))).toBe(false);
  await symlink(join(REPO_ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
  const packed = npm(['pack', '--pack-destination', work, '--json'], clone);
  const [info] = JSON.parse(packed.slice(packed.indexOf('['), packed.lastIndexOf(']') + 1)) as {
    filename: string;
    files: { path: string }[];
  }[];
  tarball = join(work, info!.filename);
  files = info!.files.map((f) => f.path);
  const prefix = join(work, 'prefix');
  installLog = npm(['i', '-g', '--prefix', prefix, tarball, '--prefer-offline', '--no-audit', '--no-fund'], work);
  bin = join(prefix, 'bin', 'clawcode');
}, 420_000);
afterAll(async () => server.close());

describe('the packed package', () => {
  it('holds the built command, the licence and the bash grammar, and no sources or tests', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'dist/cli.js',
        'dist/index.js',
        'dist/vendor/tree-sitter-bash/tree-sitter-bash.wasm',
        'dist/vendor/tree-sitter-bash/LICENSE',
      ]),
    );
    expect(
      files.filter((f) => /^(tests|cli|agent|utils)\//.test(f) || (f.endsWith('.ts') && !f.endsWith('.d.ts'))),
    ).toEqual([]);
  });

  it('installs as a command, without the tree-sitter-bash package or its native install script', async () => {
    expect(existsSync(bin)).toBe(true);
    expect(installLog).not.toContain('tree-sitter-bash');
    const installed = join(bin, '..', '..', 'lib', 'node_modules', 'clawcode');
    expect(existsSync(join(installed, 'node_modules', 'tree-sitter-bash'))).toBe(false);
    expect(await readFile(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
  });

  it('runs --help and a dry run from another folder, and reads plan commands with the vendored grammar', async () => {
    const project = await mkdtemp(join(tmpdir(), 'clawcode-package-project-'));
    await writeFile(join(project, 'greet.js'), GREET);
    const env = cleanEnv({
      CLAWCODE_HOME: await mkdtemp(join(tmpdir(), 'clawcode-home-')),
      OPENAI_API_KEY: 'k',
      OPENAI_BASE_URL: `${server.url}/v1`,
    });
    // Asynchronous: the loopback provider answers from this process.
    const run = (args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn(bin, args, { cwd: work, env });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('error', reject);
        child.on('close', (status) => resolve({ status, stdout, stderr }));
        child.stdin.end();
      });

    const help = await run(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: clawcode \[options\] \[command\] \[task\.\.\.\]/);

    server.reply(replies.plan(PLAN));
    const dry = await run(['add an exclamation mark', '--dir', project, '--dry-run']);
    expect(dry.stderr).toBe('');
    expect(dry.status).toBe(0);
    expect(dry.stdout).toContain('+  return "Hello " + name + "!";');
    expect(dry.stdout).toContain('Dry run: nothing written.');
    expect(await readFile(join(project, 'greet.js'), 'utf8')).toBe(GREET);

    server.reply(replies.plan(PLAN));
    const written = await run(['add an exclamation mark', '--dir', project, '--yes', '--json']);
    expect(written.status).toBe(0);
    const report = JSON.parse(written.stdout) as { commands: { skipped?: string; reason?: string }[] };
    expect(report.commands[0]).toMatchObject({ skipped: 'needs_confirmation' });
    expect(await readFile(join(project, 'greet.js'), 'utf8')).toContain('name + "!"');
  });
});
