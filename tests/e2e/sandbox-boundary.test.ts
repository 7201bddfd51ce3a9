import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../../utils/shell/sandbox.js';
import { chownTree, identities, runCliAs } from '../support/as-user.js';
import { CLI_PATH, cleanEnv, fingerprintTree, GIT_TEST_ENV, gitIn, writeFiles } from '../support/fixture.js';

// The sandbox's boundaries that a command attacks through the tree, through the built CLI, as root and as
// `nobody`: folders above a control path renamed so a new one stands in its place, a control path created by
// the command, a sysctl written (root on the host), bwrap planted in node_modules/.bin for the next run to
// start, a configured hooks folder that does not exist yet, a root that is a home folder, a token as URL
// userinfo in the environment. A sentinel folder outside the root proves what ran.

const sandbox = await detectSandbox();

interface Base {
  base: string;
  root: string;
  sentinel: string;
  env: NodeJS.ProcessEnv;
}

function makeBase(files: Record<string, string>, script: string | ((sentinel: string) => string)): Base {
  const base = mkdtempSync('/var/tmp/clawcode-boundary-');
  chmodSync(base, 0o755);
  const root = join(base, 'root');
  const sentinel = join(base, 'sentinel');
  mkdirSync(sentinel);
  const text = typeof script === 'string' ? script : script(sentinel);
  writeFiles(root, {
    'package.json': JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'sh ./attack.sh' } }),
    'attack.sh': `${text}\nexit 0\n`,
    ...files,
  });
  writeFiles(join(base, 'home'), { '.gitconfig': '[user]\n\tname = t\n' });
  const env = cleanEnv({ HOME: join(base, 'home'), CLAWCODE_HOME: join(base, 'clawhome'), ...GIT_TEST_ENV });
  return { base, root, sentinel, env };
}

function planFile(b: Base, uid: number | undefined): string {
  const file = join(b.base, 'plan.json');
  const plan = { analysis: 'Run the tests.', files_to_edit: [], patches: [], commands: ['npm test'], agent_notes: [] };
  writeFileSync(file, JSON.stringify(plan));
  if (uid !== undefined) chownTree(b.base, uid);
  return file;
}

type Report = { error?: string; commands: { ran: boolean; stdout: string; stderr: string; exitCode: number }[] };

describe.skipIf(!sandbox.available)(
  `the sandbox's boundaries against the tree${sandbox.available ? '' : ` (skipped: ${sandbox.reason})`}`,
  () => {
    for (const { name, uid, skip } of identities) {
      const why = skip ? ` (skipped: ${skip})` : '';
      it.skipIf(skip !== undefined)(
        `${name}: no folder above a control path moves, no submodule's .git is made, no sysctl is written, a control path made by the command fails the step (fails on main)${why}`,
        async () => {
          const b = makeBase(
            { 'vendor/lib/i.js': '1\n', 'tools/.husky/pre-commit': '#!/bin/sh\necho ok\n', 'src/a.js': 'a\n' },
            [
              'mv vendor/lib vendor/lib.orig 2>/dev/null && echo GOT-nested-repo-moved',
              'mv tools tools.orig 2>/dev/null && echo GOT-hooks-parent-moved',
              'mv libs/foo libs/foo.orig 2>/dev/null && echo GOT-submodule-moved',
              'mkdir -p libs/bar/.git/objects 2>/dev/null && echo GOT-uninitialised-submodule-git-made',
              'v=$(cat /proc/sys/kernel/printk_ratelimit); (echo $v > /proc/sys/kernel/printk_ratelimit) 2>/dev/null && echo GOT-sysctl-written',
              "mkdir -p pkg/.git/objects pkg/.git/refs && printf 'ref: refs/heads/main\\n' > pkg/.git/HEAD",
            ].join('\n'),
          );
          try {
            gitIn(join(b.root, 'vendor/lib'), 'init', '-q');
            gitIn(b.root, 'init', '-q');
            gitIn(b.root, 'config', 'core.hooksPath', 'tools/.husky');
            writeFiles(b.root, { 'libs/foo/.git': 'gitdir: ../../.git/modules/foo\n' });
            // An uninitialised submodule: a gitlink in the index, an empty folder in the tree.
            mkdirSync(join(b.root, 'libs/bar'));
            gitIn(b.root, 'update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},libs/bar`);
            const before = fingerprintTree(join(b.root, 'vendor'));
            const result = await runCliAs(
              uid,
              ['apply', planFile(b, uid), '--yes', '--run-commands', '--json', '--dir', b.root],
              b.env,
            );
            const report = JSON.parse(result.stdout) as Report;
            expect(report.commands[0]?.ran, result.stderr).toBe(true);
            expect(report.commands[0]!.stdout.match(/GOT-[\w-]+/g) ?? []).toEqual([]);
            expect(fingerprintTree(join(b.root, 'vendor'))).toEqual(before);
            expect(existsSync(join(b.root, 'tools/.husky/pre-commit'))).toBe(true);
            expect(result.code).toBe(4);
            expect(report.error).toBe(
              'command failed: npm test: the command changed a control path: pkg/.git appeared; check it before you run git or a hook there',
            );
          } finally {
            rmSync(b.base, { recursive: true, force: true });
          }
        },
        150_000,
      );

      it.skipIf(skip !== undefined)(
        `${name}: a bwrap or prlimit planted in node_modules/.bin on PATH (npx) is never started (fails on main)${why}`,
        async () => {
          const b = makeBase({ '.gitignore': 'node_modules\n' }, (sentinel) =>
            [
              'mkdir -p node_modules/.bin',
              'for t in bwrap prlimit; do',
              `  printf '#!/bin/sh\\ntouch ${sentinel}/planted-%s\\nexec /usr/bin/%s "$@"\\n' $t $t > node_modules/.bin/$t`,
              '  chmod +x node_modules/.bin/$t',
              'done',
            ].join('\n'),
          );
          try {
            const env = { ...b.env, PATH: `${join(b.root, 'node_modules/.bin')}:${process.env.PATH}` };
            const plan = planFile(b, uid);
            for (let i = 0; i < 2; i++) {
              const result = await runCliAs(
                uid,
                ['apply', plan, '--yes', '--run-commands', '--json', '--dir', b.root],
                env,
              );
              expect(result.code, result.stderr).toBe(0);
            }
            expect(existsSync(join(b.root, 'node_modules/.bin/bwrap'))).toBe(true);
            expect(readdirSync(b.sentinel)).toEqual([]);
          } finally {
            rmSync(b.base, { recursive: true, force: true });
          }
        },
        150_000,
      );

      it.skipIf(skip !== undefined)(
        `${name}: a configured hooks folder that does not exist yet: the command runs, cannot make it, leaves nothing (fails on main)${why}`,
        async () => {
          const b = makeBase({}, 'echo TEST-RAN\nmkdir .githooks 2>/dev/null && echo GOT-hooks-made');
          try {
            gitIn(b.root, 'init', '-q');
            gitIn(b.root, 'config', 'core.hooksPath', '.githooks');
            const result = await runCliAs(
              uid,
              ['apply', planFile(b, uid), '--yes', '--run-commands', '--json', '--dir', b.root],
              b.env,
            );
            expect(result.code, result.stdout + result.stderr).toBe(0);
            const report = JSON.parse(result.stdout) as Report;
            expect(report.commands[0]!.stdout).toContain('TEST-RAN');
            expect(report.commands[0]!.stdout).not.toContain('GOT-');
            expect(existsSync(join(b.root, '.githooks'))).toBe(false);
          } finally {
            rmSync(b.base, { recursive: true, force: true });
          }
        },
        150_000,
      );

      it.skipIf(skip !== undefined)(
        `${name}: a root that is a home folder: apply asks (exit 2 without a terminal), and no command runs there (fails on main)${why}`,
        async () => {
          const b = makeBase({ '.ssh/id_ed25519': 'SSH-KEY-MARKER\n' }, 'cat .ssh/id_ed25519; echo x >> .bashrc');
          try {
            const env = { ...b.env, HOME: b.root };
            const plan = planFile(b, uid);
            const before = fingerprintTree(b.root);
            const refused = await runCliAs(uid, ['apply', plan, '--yes', '--run-commands', '--dir', b.root], env);
            expect(refused.code).toBe(2);
            expect(refused.stderr).toMatch(/is your home folder/);
            const forced = await runCliAs(
              uid,
              ['apply', plan, '--yes', '--run-commands', '--any-folder', '--dir', b.root],
              env,
            );
            expect(forced.code).toBe(2);
            expect(forced.stderr).toMatch(/a home folder .*no command runs there/);
            expect(forced.stdout + forced.stderr).not.toContain('SSH-KEY-MARKER');
            expect(fingerprintTree(b.root)).toEqual(before);
          } finally {
            rmSync(b.base, { recursive: true, force: true });
          }
        },
        150_000,
      );
    }

    it('a token as URL userinfo in GOPROXY or a registry setting never reaches the command (fails on main)', async () => {
      const b = makeBase({}, 'echo "GOPROXY=$GOPROXY"; echo "REG=$npm_config_registry"; echo "CI=$CI"');
      try {
        const env = {
          ...b.env,
          CI: '1',
          GOPROXY: 'https://ghp_TOKENMARKER0123456789abcdefghijklmn@goproxy.example,direct',
          npm_config_registry: 'https://npm_TOKENMARKER0123456789abcdefghijklmnopqrst@registry.example/',
        };
        const plan = planFile(b, undefined);
        const result = spawnSync(
          process.execPath,
          [CLI_PATH, 'apply', plan, '--yes', '--run-commands', '--json', '--dir', b.root],
          { env, encoding: 'utf8' },
        );
        const report = JSON.parse(result.stdout) as Report;
        expect(report.commands[0]!.stdout).toContain('CI=1');
        expect(report.commands[0]!.stdout).not.toContain('TOKENMARKER');
      } finally {
        rmSync(b.base, { recursive: true, force: true });
      }
    });
  },
);
