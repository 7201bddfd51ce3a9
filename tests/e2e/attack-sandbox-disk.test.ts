import { describe, expect, it } from 'vitest';
import { detectSandbox, SANDBOX_MAX_FILE_BYTES } from '../../utils/shell/sandbox.js';
import { runCli } from '../support/fixture.js';
import { useLoopbackProject } from '../support/loopback-project.js';
import { planOf } from '../support/plans.js';
import { replies } from '../support/provider-server.js';

// The sandbox caps a file at 512 MiB (RLIMIT_FSIZE), which the kernel checks where a write grows a file's size.
// fallocate with FALLOC_FL_KEEP_SIZE (`fallocate -n`) allocates blocks past the size instead: an allow-listed
// `npm test` held 1 GiB of the disk in a 0-byte file on main, and would hold the whole disk the same way.

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
    ].join('\n'),
  },
});

type Report = { commands: { ran: boolean; exitCode: number | null; stdout: string }[] };

describe(`the file-size cap${sandbox.available ? '' : ` (skipped: ${sandbox.reason})`}`, () => {
  it.skipIf(!sandbox.available || process.platform !== 'linux')(
    'holds for blocks allocated past a file’s size (fallocate --keep-size) (fails on main)',
    { timeout: 60_000 },
    async () => {
      project.server.reply(replies.plan(planOf([], { commands: ['npm test'] })));
      const result = await runCli(['run the tests', '--dir', project.project, '--yes', '--run-commands', '--json'], {
        env: project.env,
        timeoutMs: 45_000,
      });
      const out = (JSON.parse(result.stdout) as Report).commands[0]!;
      expect(out.ran, result.stderr).toBe(true);
      expect(out.stdout).not.toContain('allocated');
      expect(Number(/kib=(\d+)/.exec(out.stdout)?.[1]) * 1024).toBeLessThanOrEqual(SANDBOX_MAX_FILE_BYTES);
    },
  );
});
