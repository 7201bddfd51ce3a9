import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCommand, sandboxFor } from '../../../utils/shell/run.js';
import { detectSandbox } from '../../../utils/shell/sandbox.js';

// A sandboxed command that writes file after file, each under the 512 MiB file cap, filled the disk: nothing
// bounded the sum. The watch stops it once it has taken more than its cap of the root's file system (a small cap
// here; the default is SANDBOX_MAX_DISK_BYTES), by bytes or by files made.

const sandbox = await detectSandbox();
const MiB = 1024 * 1024;

describe.skipIf(!sandbox.available)(
  `a sandboxed command's share of the disk${sandbox.available ? '' : ` (skipped: ${sandbox.reason})`}`,
  () => {
    let root: string;
    beforeEach(async () => {
      root = await mkdtemp(join(tmpdir(), 'clawcode-disk-'));
      vi.stubEnv('CLAWCODE_HOME', join(root, 'home'));
    });
    afterEach(async () => {
      vi.unstubAllEnvs();
      await rm(root, { recursive: true, force: true });
    });

    it('is capped in bytes: file after file under the file cap is stopped past the cap (runs 20 s on main)', async () => {
      const result = await runCommand('i=0; while :; do head -c 8388608 /dev/zero > f$i; i=$((i+1)); done', {
        cwd: root,
        timeoutMs: 20_000,
        diskCap: { bytes: 64 * MiB, inodes: 1_000_000 },
        ...sandboxFor(sandbox, root),
      });
      expect(result.timedOut).toBe(false);
      expect(result.exitCode).not.toBe(0);
      expect(result.diskExceeded).toMatch(/took more than 64 MiB of the disk/);
      let total = 0;
      for (const name of await readdir(root)) if (name.startsWith('f')) total += (await stat(join(root, name))).size;
      // What other processes write to the same file system counts too (tests running beside this one), so the
      // stop may come before the command alone reached the cap: no lower bound on what it wrote.
      expect(total).toBeLessThan(2048 * MiB);
    });

    it('is capped in files made', async () => {
      const result = await runCommand('i=0; while :; do : > f$i; i=$((i+1)); done', {
        cwd: root,
        timeoutMs: 20_000,
        diskCap: { bytes: 1024 * MiB, inodes: 2000 },
        ...sandboxFor(sandbox, root),
      });
      expect(result.timedOut).toBe(false);
      expect(result.diskExceeded).toMatch(/made more than 2000 files and folders/);
    });
  },
);
