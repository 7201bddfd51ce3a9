import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (where package.json and dist/ live). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The built CLI entry that end-to-end tests run. */
export const CLI_PATH = join(REPO_ROOT, 'dist', 'cli.js');

/**
 * Copy the source of an installed npm package (from this repo's node_modules) into a fresh temp
 * folder, without its own node_modules: a real project tree for end-to-end tests.
 *
 * @returns the absolute path of the copy
 */
export async function copyPackageFixture(name: string): Promise<string> {
  const dest = await mkdtemp(join(tmpdir(), `clawcode-fixture-${name.replace(/\W/g, '_')}-`));
  const src = join(REPO_ROOT, 'node_modules', name);
  await cp(src, dest, {
    recursive: true,
    filter: (from) => !relative(src, from).split(/[\\/]/).includes('node_modules'),
  });
  return dest;
}

/** Every file of a tree as path → bytes, for exact before/after comparisons. */
export async function snapshotTree(root: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  async function walk(dir: string): Promise<void> {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const abs = join(dir, entry.name);
      if (entry.isDirectory()) await walk(abs);
      else if (entry.isFile()) out.set(relative(root, abs).split('\\').join('/'), await readFile(abs));
    }
  }
  await walk(root);
  return out;
}

/**
 * Every entry under a folder as path → fingerprint, for before/after comparisons of a tree and its `.git`:
 * a regular file's SHA-256, a symlink's target, `dir` for a folder, `special` for anything else.
 */
export function fingerprintTree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const abs = join(dir, name);
      const info = lstatSync(abs);
      const rel = relative(root, abs);
      if (info.isSymbolicLink()) out.set(rel, `link ${readlinkSync(abs)}`);
      else if (info.isDirectory()) {
        out.set(rel, 'dir');
        walk(abs);
      } else if (info.isFile()) out.set(rel, createHash('sha256').update(readFileSync(abs)).digest('hex'));
      else out.set(rel, 'special');
    }
  };
  walk(root);
  return out;
}

/** Write text files under `dir` (path → text), making folders on the way. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
}

/** Environment for a child CLI: no provider variables from the developer's shell, a temp home, no colour. */
export function cleanEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(OPENAI|AZURE_OPENAI|GROQ|GEMINI|GOOGLE|ANTHROPIC|OPENROUTER|DEEPSEEK|MISTRAL|CLAWCODE)_/.test(key)) continue;
    env[key] = value;
  }
  env.NO_COLOR = '1';
  delete env.FORCE_COLOR;
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/**
 * Environment for git in tests: a fixed author and committer, and no system or user config (so a
 * developer's hooks, signing or autocrlf settings cannot change what a test sees, and CI needs no
 * identity configured).
 */
export const GIT_TEST_ENV: Record<string, string> = {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.invalid',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/** Run git in `dir` with GIT_TEST_ENV; returns its stdout. @throws when git exits non-zero */
export function gitIn(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], { env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' });
}

/** Result of one CLI run. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run the built CLI as a child process (no TTY), feeding `input` on stdin when given.
 * @param timeoutMs  kill the child after this many ms (the test then fails on its exit code)
 */
export function runCli(
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string; input?: string; timeoutMs?: number },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], {
      env: options.env,
      cwd: options.cwd ?? REPO_ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/**
 * A plan of find/replace patches on one file, as a model answers for a small edit: `analysis`, the file to
 * edit, one `replace` patch per `{ find, replace }` (in order), no commands, no notes.
 */
export function replacePlan(file: string, patches: readonly { find: string; replace: string }[], analysis = 'Edit.') {
  return {
    analysis,
    files_to_edit: [{ path: file, reason: 'the text to change is here' }],
    patches: patches.map((p) => ({ file, operation: 'replace', ...p, replace_all: null, occurrence: null })),
    commands: [] as string[],
    agent_notes: [] as string[],
  };
}
