import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeCommandGroup } from '../../../utils/shell/cgroup.js';
import { runCommand, sandboxFor } from '../../../utils/shell/run.js';
import { detectSandbox, SANDBOX_MAX_PROCESSES } from '../../../utils/shell/sandbox.js';

// As root no rlimit caps a sandboxed command's memory: 200 MiB written to its private /tmp (a tmpfs, so memory)
// or allocated by a loop held on main, and a few such commands or a larger one took the machine's memory.
// The memory cgroup holds it to its cap (a small one here). Where clawcode cannot make the group, skipped.

const sandbox = await detectSandbox();
const MiB = 1024 * 1024;
const probe = makeCommandGroup(SANDBOX_MAX_PROCESSES, 64 * MiB);
const hasMemory = probe?.paths.some((p) => /memory/.test(p) || readdirSync(p).includes('memory.max')) ?? false;
probe?.remove();
const skip = !sandbox.available ? sandbox.reason : hasMemory ? undefined : 'no memory cgroup can be made here';

describe(`a sandboxed command's memory${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let root: string;
  let home: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'clawcode-memory-'));
    home = mkdtempSync(join(tmpdir(), 'clawcode-memory-home-'));
    vi.stubEnv('CLAWCODE_HOME', home);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    rmSync(root, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  it.skipIf(skip !== undefined)(
    'is capped: 200 MiB written to its private /tmp do not fit in 64 MiB (held on main)',
    async () => {
      const result = await runCommand(
        'head -c 209715200 /dev/zero > /tmp/big; echo "rc=$?"; echo "kib=$(du -k /tmp/big | cut -f1)"',
        { cwd: root, timeoutMs: 30_000, maxMemoryBytes: 64 * MiB, ...sandboxFor(sandbox, root) },
      );
      expect(result.stdout).not.toMatch(/rc=0\b/);
      expect(Number(/kib=(\d+)/.exec(result.stdout)?.[1] ?? 0) * 1024).toBeLessThan(200 * MiB);
    },
  );

  it.skipIf(skip !== undefined)(
    'leaves no group behind, and clears those of clawcode processes that are gone',
    async () => {
      const group = makeCommandGroup(SANDBOX_MAX_PROCESSES, 64 * MiB)!;
      const parent = join(group.paths[0]!, '..');
      group.remove();
      expect(group.paths.filter((p) => existsSync(p))).toEqual([]);
      // A group a killed clawcode left: a pid that is not running (above pid_max is never one).
      const stale = join(parent, 'clawcode-99999999-1');
      mkdirSync(stale);
      makeCommandGroup(SANDBOX_MAX_PROCESSES, 64 * MiB)?.remove();
      expect(existsSync(stale)).toBe(false);
    },
  );
});
