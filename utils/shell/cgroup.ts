import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A process cap for sandboxed commands where the rlimit cannot give one. RLIMIT_NPROC is not enforced
 * for processes whose real user is root on the host (the kernel exempts it), and a command started by
 * root keeps that user inside its user namespace; a child group of clawcode's own cgroup under the
 * `pids` controller (v1, or v2 where the controller is enabled for children) caps its processes instead.
 */

/** A pids cgroup made for one command. */
export interface PidsGroup {
  /** absolute path of the group folder (write a pid to `cgroup.procs` to move a process in) */
  path: string;
  /** remove the group once its processes are gone; never throws */
  remove(): void;
}

let seq = 0;

/** The pids controller folder of this process's own cgroup, or null (v1 `N:pids:/p`, v2 `0::/p`). */
function ownPidsFolder(): string | null {
  let lines: string[];
  try {
    lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  } catch {
    return null;
  }
  const v1 = lines.map((l) => /^\d+:([^:]*):(.*)$/.exec(l)).find((m) => m?.[1]?.split(',').includes('pids'));
  if (v1 && existsSync('/sys/fs/cgroup/pids')) return join('/sys/fs/cgroup/pids', v1[2]!);
  const v2 = lines.map((l) => /^0::(.*)$/.exec(l)).find(Boolean);
  if (v2 && existsSync('/sys/fs/cgroup/cgroup.controllers')) return join('/sys/fs/cgroup', v2[1]!);
  return null;
}

/**
 * Make a child group capped at `maxProcesses` tasks (threads count). Only tried as root, who may write
 * cgroups here; elsewhere, or where the controller is not available to a child group, null.
 *
 * @param maxProcesses  the `pids.max` of the group
 */
export function makePidsGroup(maxProcesses: number): PidsGroup | null {
  if (process.getuid?.() !== 0) return null;
  const parent = ownPidsFolder();
  if (!parent) return null;
  const path = join(parent, `clawcode-${process.pid}-${++seq}`);
  try {
    mkdirSync(path);
  } catch {
    return null;
  }
  const remove = (): void => {
    try {
      rmdirSync(path);
    } catch {
      // still has processes, or gone: the kernel frees an empty group's folder on rmdir only
    }
  };
  try {
    writeFileSync(join(path, 'pids.max'), String(maxProcesses));
    return { path, remove };
  } catch {
    remove();
    return null;
  }
}
