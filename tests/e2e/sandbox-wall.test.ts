import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox, SANDBOX_MAX_FILE_BYTES } from '../../utils/shell/sandbox.js';
import { chownTree, identities, runAs } from '../support/as-user.js';
import { CLI_PATH, cleanEnv, fingerprintTree, GIT_TEST_ENV, gitIn, writeFiles } from '../support/fixture.js';

// The sandbox is a wall for root and for an unprivileged user alike, through the built CLI: an allow-listed
// `npm test` (run with --yes --run-commands and no terminal) tries to remount, unmount, mount and unshare its
// way out, to rewrite every control path, to read the keys in its environment, the home folder and clawcode's
// home, to start 3,000 processes and write a file over the cap. As root this runs as root and again as the
// unprivileged `nobody` (setpriv); as anyone else, as that user. The CLI is started in a session keyring of its
// own holding a key (perl's syscall, where perl and the machine's numbers are known), which the script tries to
// read: the kernel keyring is not namespaced; and with the sentinel folder open on descriptor 200, as a careless
// parent process could leave it; and a Unix socket anyone may write beside the project in /var/tmp.

const sandbox = await detectSandbox();
const MARKERS = {
  provider: 'sk-proj-PROVIDERMARKER0123456789abcdef',
  aws: 'AWSSECRETMARKER/abcdefghij0123456789ABCD',
  github: 'ghp_GHTOKENMARKER0123456789abcdefghijkl',
  service: 'SERVICESECRETMARKER',
  ssh: 'SSH-KEY-MARKER-77aa',
  clawHome: 'CLAWHOME-MARKER-99bb',
  keyring: 'KEYRING-MARKER-55cc',
};

/** add_key, request_key and keyctl on this machine, where the test knows them. */
const KEY_CALLS: Partial<Record<NodeJS.Architecture, [number, number, number]>> = {
  x64: [248, 249, 250],
  arm64: [217, 218, 219],
};
const keyCalls = spawnSync('perl', ['-e', '1']).status === 0 ? KEY_CALLS[process.arch] : undefined;

/**
 * argv that starts `argv` the way a careless parent could: in a new session keyring holding a "user" key
 * `clawcode-marker` = the marker, and with `folder` open on descriptor 200 without close-on-exec.
 */
function careless(argv: string[], folder: string): string[] {
  if (!keyCalls) return argv;
  const [addKey, , keyctl] = keyCalls;
  const perl = [
    'use POSIX;',
    `my ($n, $t, $d, $p) = ("clawcode-test", "user", "clawcode-marker", "${MARKERS.keyring}");`,
    `syscall(${keyctl}, 1, $n) > 0 or die "join: $!";`,
    `syscall(${addKey}, $t, $d, $p, length($p), -3) > 0 or die "add_key: $!";`,
    'sysopen(my $h, shift, O_RDONLY) or die "open: $!"; POSIX::dup2(fileno($h), 200) or die "dup2: $!";',
    'exec @ARGV or die "exec: $!";',
  ].join(' ');
  return ['perl', '-e', perl, folder, ...argv];
}

/** A shell line that prints the payload of the key `clawcode-marker` it finds, if any. */
function readKeyring(): string {
  if (!keyCalls) return 'true';
  const [, requestKey, keyctl] = keyCalls;
  return `perl -e 'my ($t, $d) = ("user", "clawcode-marker"); my $id = syscall(${requestKey}, $t, $d, 0, 0); if ($id > 0) { my $b = "\\0" x 64; my $n = syscall(${keyctl}, 11, $id, $b, 64); print substr($b, 0, $n) if $n > 0 }' > seen-keyring.txt 2>&1`;
}

/** The hostile test script: every line reports what it managed. */
function attack(sentinel: string, home: string, clawHome: string, socket: string): string {
  return [
    'echo "uid=$(id -u) $(grep CapEff /proc/self/status)"',
    `mount -o remount,rw,bind / / 2>/dev/null; mount -o remount,rw / 2>/dev/null; touch ${sentinel}/remount 2>/dev/null && echo ESCAPED-remount`,
    'umount .git 2>/dev/null; echo x > .git/hooks/pre-commit 2>/dev/null && echo ESCAPED-umount',
    `mkdir -p m && mount --bind ${sentinel} m 2>/dev/null && mount -o remount,rw,bind m 2>/dev/null; rm m/keep.txt 2>/dev/null && echo ESCAPED-mount; umount m 2>/dev/null; rmdir m`,
    'unshare -Ur true 2>/dev/null && echo ESCAPED-userns',
    // fd 200: the sentinel folder, opened by whoever started clawcode and inherited without close-on-exec
    'echo x > /proc/self/fd/200/inherited 2>/dev/null && echo ESCAPED-inherited-fd',
    // a Unix socket anyone may write, in /var/tmp beside the project: a host service
    `perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Peer => shift) and print "ESCAPED-socket\\n"' ${socket} 2>/dev/null`,
    'echo x >> vendor/lib/.git/config 2>/dev/null && echo ESCAPED-nested-git',
    'echo x > sub/.git 2>/dev/null && echo ESCAPED-submodule-gitfile',
    'echo x >> .husky/pre-commit 2>/dev/null && echo ESCAPED-husky',
    'echo x >> .pre-commit-config.yaml 2>/dev/null && echo ESCAPED-pre-commit',
    "printf 'ref: refs/heads/main\\n' > HEAD 2>/dev/null && echo ESCAPED-HEAD",
    'env > seen-env.txt',
    readKeyring(),
    `cat "$HOME/.ssh/id_ed25519" ${home}/.ssh/id_ed25519 ${clawHome}/config.json > seen-files.txt 2>/dev/null; ls -a ${home} >> seen-files.txt 2>&1`,
    `head -c ${SANDBOX_MAX_FILE_BYTES + 4096} /dev/zero > big.bin 2>/dev/null; echo "big=$(wc -c < big.bin)"; rm -f big.bin`,
    // dash exits when it cannot fork, so the count goes to a file as it grows (builtins only).
    `setsid -w sh -c 'n=0; while [ $n -lt 3000 ]; do sleep 60 & n=$((n+1)); echo $n > /tmp/flood; done' 2>/dev/null; read n < /tmp/flood; echo "started=$n"`,
    'exit 0',
  ].join('\n');
}

interface Setup {
  base: string;
  root: string;
  sentinel: string;
  home: string;
  clawHome: string;
}

function setup(owner: number | undefined): Setup {
  const base = mkdtempSync('/var/tmp/clawcode-wall-');
  const s: Setup = {
    base,
    root: join(base, 'root'),
    sentinel: join(base, 'sentinel'),
    home: join(base, 'home'),
    clawHome: join(base, 'clawhome'),
  };
  writeFiles(s.sentinel, { 'keep.txt': 'keep\n' });
  writeFiles(s.home, { '.ssh/id_ed25519': `${MARKERS.ssh}\n`, '.gitconfig': '[user]\n\tname = t\n' });
  writeFiles(s.clawHome, { 'config.json': JSON.stringify({ marker: MARKERS.clawHome }) });
  chmodSync(join(s.clawHome, 'config.json'), 0o600);
  writeFiles(s.root, {
    'src/a.js': 'a\n',
    'package.json': JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'sh ./attack.sh' } }),
    'attack.sh': attack(s.sentinel, s.home, s.clawHome, join(base, 'svc.sock')),
    '.husky/pre-commit': '#!/bin/sh\necho lint\n',
    '.pre-commit-config.yaml': 'repos: []\n',
    'vendor/lib/index.js': '1\n',
  });
  gitIn(join(s.root, 'vendor/lib'), 'init', '-q');
  gitIn(s.root, 'init', '-q');
  gitIn(s.root, 'add', 'src', 'package.json', 'attack.sh', '.husky', '.pre-commit-config.yaml');
  gitIn(s.root, 'commit', '-qm', 'init');
  // A submodule checkout's `.git` is a file pointing into the superproject's git directory.
  writeFiles(s.root, { 'sub/.git': 'gitdir: ../.git/modules/sub\n' });
  if (owner !== undefined) chownTree(base, owner);
  return s;
}

describe.skipIf(!sandbox.available)(
  `an allow-listed npm test in the sandbox${sandbox.available ? '' : ` (skipped: ${sandbox.reason})`}`,
  () => {
    for (const { name, uid, skip } of identities)
      it.skipIf(skip !== undefined)(
        `${name}: holds no capability, changes nothing outside the root or in a control path, sees no key, is capped${skip ? ` (skipped: ${skip})` : ''}`,
        async () => {
          const s = setup(uid);
          const service = createServer((c) => c.end('hello\n'));
          await new Promise<void>((done) => service.listen(join(s.base, 'svc.sock'), done));
          chmodSync(join(s.base, 'svc.sock'), 0o777);
          const planFile = join(s.base, 'plan.json');
          writeFileSync(
            planFile,
            JSON.stringify({
              analysis: 'Run the tests.',
              files_to_edit: [],
              patches: [],
              commands: ['npm test'],
              agent_notes: [],
            }),
          );
          if (uid !== undefined) chownSync(planFile, uid, uid);
          const before = { root: fingerprintTree(s.root), sentinel: fingerprintTree(s.sentinel) };
          const env = cleanEnv({
            HOME: s.home,
            CLAWCODE_HOME: s.clawHome,
            OPENAI_API_KEY: MARKERS.provider,
            AWS_SECRET_ACCESS_KEY: MARKERS.aws,
            GITHUB_TOKEN: MARKERS.github,
            MY_SERVICE_SECRET: MARKERS.service,
            ...GIT_TEST_ENV,
          });
          try {
            const result = await runAs(
              uid,
              careless(
                [
                  process.execPath,
                  CLI_PATH,
                  ...['apply', planFile, '--yes', '--run-commands', '--json', '--dir', s.root],
                ],
                s.sentinel,
              ),
              env,
            );
            expect(result.code, result.stderr).toBe(0);
            const report = JSON.parse(result.stdout) as {
              commands: { ran: boolean; sandboxed: boolean; stdout: string }[];
            };
            const out = report.commands[0]!;
            expect(out).toMatchObject({ ran: true, sandboxed: true });
            expect(out.stdout).toMatch(/uid=\d+ CapEff:\s+0000000000000000/);
            expect(out.stdout).not.toMatch(/uid=0 /);
            expect(out.stdout.match(/ESCAPED-[\w-]+/g) ?? []).toEqual([]);
            const started = Number(/started=(\d+)/.exec(out.stdout)?.[1]);
            expect(started).toBeLessThan(3000);
            expect(Number(/big=(\d+)/.exec(out.stdout)?.[1])).toBeLessThanOrEqual(SANDBOX_MAX_FILE_BYTES);

            const seen = ['seen-env.txt', 'seen-files.txt', ...(keyCalls ? ['seen-keyring.txt'] : [])]
              .map((f) => readFileSync(join(s.root, f), 'utf8'))
              .join('\n');
            expect(Object.values(MARKERS).filter((m) => seen.includes(m))).toEqual([]);
            expect(seen).not.toMatch(/\.ssh|\.gitconfig/);
            expect(fingerprintTree(s.sentinel)).toEqual(before.sentinel);
            const after = fingerprintTree(s.root);
            for (const f of ['seen-env.txt', 'seen-files.txt', 'seen-keyring.txt']) after.delete(f);
            expect(after).toEqual(before.root);
            expect(existsSync(join(s.root, 'HEAD'))).toBe(false);
            expect(statSync(join(s.root, '.git')).isDirectory()).toBe(true);
          } finally {
            service.close();
            rmSync(s.base, { recursive: true, force: true });
          }
        },
        150_000,
      );
  },
);
