import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox, SANDBOX_MAX_FILE_BYTES } from '../../utils/shell/sandbox.js';
import { REPO_ROOT, runCli } from '../support/fixture.js';
import { useLoopbackProject } from '../support/loopback-project.js';
import { planOf } from '../support/plans.js';
import { replies } from '../support/provider-server.js';

// The sandbox caps a file at 512 MiB (RLIMIT_FSIZE), which the kernel checks where a write grows a file's size.
// fallocate with FALLOC_FL_KEEP_SIZE (`fallocate -n`) allocates blocks past the size instead: an allow-listed
// `npm test` held 1 GiB of the disk in a 0-byte file on main, and would hold the whole disk the same way; and
// fallocate refused as a system call was still there as an io_uring operation (a small C program, where cc is).

const sandbox = await detectSandbox();

const project = useLoopbackProject({
  prefix: 'clawcode-attack-disk-',
  files: {
    'package.json': JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'sh ./attack.sh' } }),
    'attack.sh': [
      'touch big.bin',
      `fallocate -n -l ${SANDBOX_MAX_FILE_BYTES * 2} big.bin 2>/dev/null && echo allocated`,
      'echo "kib=$(du -k big.bin | cut -f1)"',
      'rm -f big.bin',
      // the same through io_uring, whose operations run past the seccomp filter
      `[ -x ./uring ] && ./uring ring.bin ${SANDBOX_MAX_FILE_BYTES * 2} && echo "ring-kib=$(du -k ring.bin | cut -f1)"`,
      'rm -f ring.bin',
    ].join('\n'),
  },
});

type Report = { commands: { ran: boolean; exitCode: number | null; stdout: string }[] };

describe(`the file-size cap${sandbox.available ? '' : ` (skipped: ${sandbox.reason})`}`, () => {
  it.skipIf(!sandbox.available || process.platform !== 'linux')(
    'holds for blocks allocated past a file’s size (fallocate --keep-size) (fails on main)',
    { timeout: 60_000 },
    async () => {
      const cc = spawnSync('cc', [
        '-O1',
        '-o',
        join(project.project, 'uring'),
        join(REPO_ROOT, 'tests/support/uring-fallocate.c'),
      ]);
      project.server.reply(replies.plan(planOf([], { commands: ['npm test'] })));
      const result = await runCli(['run the tests', '--dir', project.project, '--yes', '--run-commands', '--json'], {
        env: project.env,
        timeoutMs: 45_000,
      });
      const out = (JSON.parse(result.stdout) as Report).commands[0]!;
      expect(out.ran, result.stderr).toBe(true);
      expect(out.stdout).not.toContain('allocated');
      expect(Number(/\bkib=(\d+)/.exec(out.stdout)?.[1]) * 1024).toBeLessThanOrEqual(SANDBOX_MAX_FILE_BYTES);
      // Where a C compiler built the ring program: no ring, or none that allocates past the cap.
      if (cc.status === 0) expect(out.stdout).toMatch(/ring-setup-failed|ring-kib=0\b/);
    },
  );
});
