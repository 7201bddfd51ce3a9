import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../../utils/shell/sandbox.js';
import { cleanEnv, fingerprintTree, GIT_TEST_ENV, gitIn, runCli, writeFiles } from '../support/fixture.js';

// A hostile repository (and a person's own symlinks) against the sandbox's binds and hiding, through the built CLI
// with --yes --run-commands and no terminal, an allow-listed `npm test` running attack.sh:
// - the sandbox binds every folder on the way to a control path onto itself, writable, so it cannot be renamed; a
//   control path named through a committed symlink (a `commondir` file, `core.hooksPath`) put a folder outside the
//   root on that way: bound writable, and made by clawcode itself when missing;
// - a root, a home or a CLAWCODE_HOME named through a symlink; files and folders a credential or XDG variable names;
// - a project with a file named HEAD made into a git directory.
// The sentinel must be visible inside the sandbox (not under /tmp, /var/tmp, /run or a home), so the base is made
// under /var/lib.

const sandbox = await detectSandbox();
const VISIBLE = ['/var/lib', '/opt', '/srv'].find((dir) => {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
});
const skip = !sandbox.available ? sandbox.reason : VISIBLE ? undefined : 'no writable folder the sandbox shows';

type Command = { command: string; ran: boolean; exitCode: number | null; stdout: string; controlChanged?: string };
const PACKAGE = JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'sh ./attack.sh' } });

/** Run `body` with a fresh base folder the sandbox shows; the folder is removed after. */
async function inBase(body: (base: string) => Promise<void>): Promise<void> {
  const base = mkdtempSync(join(VISIBLE!, 'clawcode-links-'));
  try {
    await body(base);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/**
 * `clawcode apply` of a plan running `npm test` in `dir`, with HOME `base/home` and CLAWCODE_HOME `base/clawhome`
 * unless `env` says otherwise; the command must have run.
 */
async function npmTest(
  base: string,
  dir: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: Command }> {
  const file = join(base, 'plan.json');
  const plan = { analysis: 'Run.', files_to_edit: [], patches: [], commands: ['npm test'], agent_notes: [] };
  writeFileSync(file, JSON.stringify(plan));
  const result = await runCli(['apply', file, '--yes', '--run-commands', '--json', '--dir', dir], {
    env: cleanEnv({ HOME: join(base, 'home'), CLAWCODE_HOME: join(base, 'clawhome'), ...GIT_TEST_ENV, ...env }),
    timeoutMs: 45_000,
  });
  const out = (JSON.parse(result.stdout) as { commands: Command[] }).commands[0]!;
  expect(out.ran, result.stderr).toBe(true);
  return { code: result.code, out };
}

describe(`the sandbox against symlinks and named secrets${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it.skipIf(skip !== undefined)(
    'control paths named through a symlink: no folder outside the root bound writable or made (fails on main)',
    { timeout: 60_000 },
    () =>
      inBase(async (base) => {
        const root = join(base, 'root');
        const sentinel = join(base, 'sentinel');
        writeFiles(sentinel, { 'a/keep.txt': 'keep\n', 'keep.txt': 'keep\n' });
        writeFiles(root, {
          'package.json': PACKAGE,
          'attack.sh': [
            'touch link/a/pwned 2>/dev/null && echo GOT-a',
            'touch link/made/pwned 2>/dev/null && echo GOT-made',
            'touch link/hooks-way/pwned 2>/dev/null && echo GOT-hooks',
            'exit 0',
          ].join('\n'),
          // Folders with the shape of a git directory whose commondir leads through the link.
          'fake/HEAD': 'ref: refs/heads/main\n',
          'fake/commondir': '../link/a/b\n',
          'fake2/HEAD': 'ref: refs/heads/main\n',
          'fake2/commondir': '../link/made/b\n',
        });
        symlinkSync('../sentinel', join(root, 'link'));
        gitIn(root, 'init', '-q');
        gitIn(root, 'config', 'core.hooksPath', 'link/hooks-way/hooks');
        gitIn(root, 'add', '-A');
        gitIn(root, 'commit', '-qm', 'hostile');
        const before = fingerprintTree(sentinel);
        mkdirSync(join(base, 'home'));
        const { out } = await npmTest(base, root);
        expect(out.stdout.match(/GOT-[\w-]+/g) ?? []).toEqual([]);
        expect(fingerprintTree(sentinel)).toEqual(before);
      }),
  );

  it.skipIf(skip !== undefined)(
    'a root named through a relative symlink keeps its nested control paths read-only (fails on main)',
    { timeout: 60_000 },
    () =>
      inBase(async (base) => {
        const root = join(base, 'root');
        writeFiles(root, {
          'package.json': PACKAGE,
          'attack.sh': 'echo x >> vendor/lib/.git/config 2>/dev/null && echo GOT-nested-git\nexit 0\n',
          'vendor/lib/i.js': '1\n',
        });
        gitIn(join(root, 'vendor/lib'), 'init', '-q');
        gitIn(root, 'init', '-q');
        // The person's way to the project: a relative symlink beside it (as a home or workspace link may be).
        symlinkSync('root', join(base, 'link'));
        const before = fingerprintTree(join(root, 'vendor'));
        mkdirSync(join(base, 'home'));
        const { out } = await npmTest(base, join(base, 'link'));
        expect(out.stdout.match(/GOT-[\w-]+/g) ?? []).toEqual([]);
        expect(fingerprintTree(join(root, 'vendor'))).toEqual(before);
      }),
  );

  it.skipIf(skip !== undefined)(
    'a home and a clawcode home named through symlinks stay hidden (fails on main)',
    { timeout: 60_000 },
    () =>
      inBase(async (base) => {
        const root = join(base, 'root');
        writeFiles(join(base, 'real-home'), { '.ssh/id_ed25519': 'SSH-MARKER-31\n' });
        writeFiles(join(base, 'real-clawhome'), { 'config.json': '{"apiKey":"CLAWHOME-MARKER-31"}\n' });
        // A home on another disk behind a link (/home/u -> /data/u), a CLAWCODE_HOME kept the same way.
        symlinkSync('real-home', join(base, 'home'));
        symlinkSync(join(base, 'real-clawhome'), join(base, 'clawhome'));
        const files = ['home/.ssh/id_ed25519', 'real-home/.ssh/id_ed25519', 'clawhome/config.json'];
        writeFiles(root, {
          'package.json': PACKAGE,
          'attack.sh': `cat ${files.map((f) => join(base, f)).join(' ')} ${base}/real-clawhome/config.json 2>/dev/null\nexit 0\n`,
        });
        gitIn(root, 'init', '-q');
        const { out } = await npmTest(base, root);
        expect(out.stdout).not.toMatch(/MARKER/);
      }),
  );

  it.skipIf(skip !== undefined)(
    'files and folders that credential and XDG variables name outside the home stay hidden (fails on main)',
    { timeout: 60_000 },
    () =>
      inBase(async (base) => {
        const root = join(base, 'root');
        writeFiles(base, {
          'secrets/sa.json': '{"private_key":"GCP-MARKER-41"}\n',
          'xdg/gh/hosts.yml': 'oauth_token: XDG-MARKER-41\n',
          'home/.gitconfig': '[user]\n\tname = t\n',
        });
        writeFiles(root, {
          'package.json': PACKAGE,
          'attack.sh': `cat ${base}/secrets/sa.json ${base}/xdg/gh/hosts.yml 2>/dev/null\nexit 0\n`,
        });
        gitIn(root, 'init', '-q');
        const { out } = await npmTest(base, root, {
          GOOGLE_APPLICATION_CREDENTIALS: join(base, 'secrets/sa.json'),
          XDG_CONFIG_HOME: join(base, 'xdg'),
        });
        expect(out.stdout).not.toMatch(/MARKER/);
      }),
  );

  it.skipIf(skip !== undefined)(
    'a command that makes the root a git directory beside its HEAD fails the step (fails on main)',
    { timeout: 60_000 },
    () =>
      inBase(async (base) => {
        const root = join(base, 'root');
        // A project (no repository) with a file named HEAD: objects/, refs/ and a config beside it make the root a
        // git directory whose configured programs (core.pager for `git log` in a terminal) the person's git runs.
        writeFiles(root, {
          HEAD: 'ref: refs/heads/main\n',
          'package.json': PACKAGE,
          'attack.sh': ['mkdir -p objects refs/heads', "printf '[core]\\n\\tpager = touch pwned\\n' > config"].join(
            '\n',
          ),
        });
        mkdirSync(join(base, 'home'));
        const { code, out } = await npmTest(base, root);
        expect(out.controlChanged).toMatch(/control path: (objects|refs) appeared/);
        expect(code).toBe(4);
      }),
  );
});
