import { spawn, spawnSync } from 'node:child_process';
import { chownSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_PATH, REPO_ROOT, type CliResult } from './fixture.js';

// Running the built CLI as root and as the unprivileged `nobody` (setpriv), for the sandbox tests: as root both
// identities run; as anyone else, that user alone.

export const isRoot = process.getuid?.() === 0;
export const NOBODY = 65534;

/** As root: setpriv exists and `nobody` can read this checkout (not one under /root). */
export const asNobody =
  isRoot &&
  spawnSync('setpriv', [
    '--reuid',
    `${NOBODY}`,
    '--regid',
    `${NOBODY}`,
    '--clear-groups',
    '--',
    process.execPath,
    CLI_PATH,
    '--version',
  ]).status === 0;

/** The identities a sandbox test runs as: `uid` undefined is the current user. */
export const identities: { name: string; uid: number | undefined; skip?: string }[] = [
  { name: 'as root', uid: undefined, skip: isRoot ? undefined : 'not running as root' },
  {
    name: 'as an unprivileged user',
    uid: isRoot ? NOBODY : undefined,
    skip: !isRoot || asNobody ? undefined : 'setpriv missing, or the checkout is not readable by nobody',
  },
];

/** Give a whole tree to `id` (owner and group), symlinks included. */
export function chownTree(dir: string, id: number): void {
  chownSync(dir, id, id);
  for (const name of readdirSync(dir)) {
    const abs = join(dir, name);
    if (lstatSync(abs).isDirectory()) chownTree(abs, id);
    else chownSync(abs, id, id);
  }
}

/** Run `argv` (a program and its arguments) as the current user, or as `uid` through setpriv. */
export function runAs(
  uid: number | undefined,
  argv: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 120_000,
): Promise<CliResult> {
  const [file, args] =
    uid === undefined
      ? [argv[0]!, argv.slice(1)]
      : ['setpriv', ['--reuid', String(uid), '--regid', String(uid), '--clear-groups', '--', ...argv]];
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Run the built CLI as the current user, or as `uid` through setpriv. */
export function runCliAs(uid: number | undefined, args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return runAs(uid, [process.execPath, CLI_PATH, ...args], env);
}
