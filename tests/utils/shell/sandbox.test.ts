import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCommand } from '../../../utils/shell/run.js';
import { detectSandbox, sandboxArgs, type SandboxReady } from '../../../utils/shell/sandbox.js';

const status = await detectSandbox();

let root: string;
let outside: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'clawcode-sandbox-root-'));
  outside = await mkdtemp('/var/tmp/clawcode-sandbox-outside-');
  await mkdir(join(root, '.git'));
  await writeFile(join(root, '.git', 'config'), '[core]\n');
  await writeFile(join(outside, 'keep.txt'), 'keep\n');
});

const ready: SandboxReady = status.available
  ? status
  : {
      available: true,
      kind: 'bubblewrap',
      bwrapPath: 'bwrap',
      prlimitPath: '/usr/bin/prlimit',
      disableUserns: true,
      tmpfsSize: true,
    };

describe('sandboxArgs', () => {
  it('binds the root writable, keeps control folders read-only, and cuts the network unless allowed', async () => {
    const { args, cleanup } = await sandboxArgs('npm test', { rootDir: root, allowNetwork: false }, ready);
    const joined = args.join(' ');
    expect(joined).toContain(`--ro-bind / /`);
    expect(joined).toContain(`--bind ${root} ${root}`);
    expect(joined).toContain(`--ro-bind ${join(root, '.git')} ${join(root, '.git')}`);
    expect(joined).toContain(`--tmpfs ${join(root, '.clawcode')} --remount-ro ${join(root, '.clawcode')}`);
    expect(args).toContain('--unshare-net');
    if (existsSync('/run')) expect(joined).toContain('--tmpfs /run'); // Unix sockets of host services
    expect(joined).toContain('--setenv XDG_CACHE_HOME /tmp/.cache');
    expect(args.slice(-4)).toEqual(['--', '/bin/sh', '-c', 'npm test']);
    cleanup();
    expect((await sandboxArgs('x', { rootDir: root, allowNetwork: true }, ready)).args).not.toContain('--unshare-net');
  });

  it('CLAWCODE_SANDBOX=off turns it off with a reason', async () => {
    expect(await detectSandbox({ ...process.env, CLAWCODE_SANDBOX: 'off' })).toEqual({
      available: false,
      reason: 'turned off by CLAWCODE_SANDBOX=off',
    });
    await detectSandbox(process.env); // leave the cached status as the other tests found it
  });
});

describe.skipIf(!status.available)(
  `inside bubblewrap${status.available ? '' : ` (skipped: ${status.available === false ? status.reason : ''})`}`,
  () => {
    const run = (command: string, allowNetwork = false) =>
      runCommand(command, {
        cwd: root,
        sandbox: { status: ready, policy: { rootDir: root, allowNetwork } },
      });

    it('writes inside the root, but not outside it, not in .git, and not a new .clawcode', async () => {
      const result = await run(
        `echo ok > inside.txt; rm -rf ${outside}; echo x > ${outside}/new; echo bad > .git/config; mkdir -p .clawcode/x`,
      );
      expect(result.exitCode).not.toBe(0);
      expect(await readFile(join(root, 'inside.txt'), 'utf8')).toBe('ok\n');
      expect(await readFile(join(outside, 'keep.txt'), 'utf8')).toBe('keep\n');
      expect(existsSync(join(outside, 'new'))).toBe(false);
      expect(await readFile(join(root, '.git', 'config'), 'utf8')).toBe('[core]\n');
      expect(existsSync(join(root, '.clawcode'))).toBe(false); // the read-only stand-in is removed afterwards
      expect(result.stderr).toMatch(/Read-only file system/);
    });

    it('has a private /tmp and no network', async () => {
      const other = await mkdtemp(join(tmpdir(), 'clawcode-sandbox-hidden-'));
      await writeFile(join(other, 'secret.txt'), 'x');
      const server = createServer((socket) => socket.end());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      const connect = `node -e "require('net').connect(${port}, '127.0.0.1').on('connect', () => console.log('CONNECTED')).on('error', (e) => console.log(e.code))"`;
      try {
        const result = await run(`test -e ${other}/secret.txt && echo SEEN || echo HIDDEN; ${connect}`);
        expect(result.stdout).toBe('HIDDEN\nECONNREFUSED\n'); // loopback of an empty network namespace
        expect((await run(connect, true)).stdout).toBe('CONNECTED\n');
      } finally {
        server.close();
      }
    });

    it('hides the home folders and keeps their tool folders readable; never as root, never with a capability', async () => {
      const home = await mkdtemp('/var/tmp/clawcode-sandbox-home-');
      const claw = await mkdtemp('/var/tmp/clawcode-sandbox-claw-');
      await mkdir(join(home, '.ssh'));
      await writeFile(join(home, '.ssh', 'id_ed25519'), 'KEY-MARKER\n');
      await mkdir(join(home, '.nvm'));
      await writeFile(join(home, '.nvm', 'nvm.sh'), 'NVM-MARKER\n');
      await mkdir(join(home, 'bin'));
      await writeFile(join(home, 'bin', 'tool'), '#!/bin/sh\necho TOOL-RAN\n', { mode: 0o755 });
      await writeFile(join(claw, 'config.json'), 'CLAW-MARKER\n');
      const env = { PATH: `${join(home, 'bin')}:${process.env.PATH}`, HOME: home, CLAWCODE_HOME: claw };
      const result = await runCommand(
        `cat ${home}/.ssh/id_ed25519 ${claw}/config.json; cat ${home}/.nvm/nvm.sh; tool; echo x > ${home}/.nvm/new; id -u; grep CapEff /proc/self/status; git status --short >/dev/null 2>&1; test -e HEAD && echo HEAD-SEEN`,
        { cwd: root, env, sandbox: { status: ready, policy: { rootDir: root, allowNetwork: false } } },
      );
      expect(result.stdout).not.toMatch(/KEY-MARKER|CLAW-MARKER/);
      expect(result.stdout).toMatch(/NVM-MARKER\nTOOL-RAN\n/);
      expect(result.stderr).toMatch(/Read-only file system/);
      expect(result.stdout).not.toMatch(/^0$/m);
      expect(result.stdout).toMatch(/CapEff:\s+0000000000000000/);
      expect(result.stdout).toContain('HEAD-SEEN'); // the empty read-only stand-in, during the run only
      expect(existsSync(join(root, 'HEAD'))).toBe(false);
      await Promise.all([home, claw].map((d) => rm(d, { recursive: true, force: true })));
    });

    it('binds every control path read-only: nested .git, a .git file, .husky, hook tool configs', async () => {
      await mkdir(join(root, 'vendor/lib/.git'), { recursive: true });
      await writeFile(join(root, 'vendor/lib/.git/config'), '[core]\n');
      await mkdir(join(root, 'sub'));
      await writeFile(join(root, 'sub/.git'), 'gitdir: ../.git/modules/sub\n');
      await mkdir(join(root, '.husky'));
      await writeFile(join(root, '.husky/pre-commit'), 'lint\n');
      await writeFile(join(root, '.lintstagedrc.json'), '{}\n');
      const result = await run(
        'echo x >> vendor/lib/.git/config; echo x > sub/.git; rm -f sub/.git; echo x >> .husky/pre-commit; echo x > .lintstagedrc.json; echo x > .husky/new',
      );
      expect(result.stderr.match(/Read-only file system|Device or resource busy/g)?.length).toBeGreaterThanOrEqual(6);
      expect(await readFile(join(root, 'vendor/lib/.git/config'), 'utf8')).toBe('[core]\n');
      expect(await readFile(join(root, 'sub/.git'), 'utf8')).toBe('gitdir: ../.git/modules/sub\n');
      expect(await readFile(join(root, '.husky/pre-commit'), 'utf8')).toBe('lint\n');
      expect(await readFile(join(root, '.lintstagedrc.json'), 'utf8')).toBe('{}\n');
    });
  },
);
