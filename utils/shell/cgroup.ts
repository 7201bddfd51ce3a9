import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Caps for sandboxed commands where rlimits cannot give them. RLIMIT_NPROC is not enforced for processes whose
 * real user is root on the host (the kernel exempts it), and a command started by root keeps that user inside
 * its user namespace; no rlimit bounds a command's memory without breaking programs that reserve address space
 * (RLIMIT_AS: node, the JVM, go). A child group of clawcode's own cgroup caps both instead: under the `pids`
 * controller (`pids.max`) and the `memory` controller (`memory.max` in v2, `memory.limit_in_bytes` in v1, which
 * also counts what the command writes to its private `/tmp`), where each controller is available to a child group.
 */

/** The groups made for one command. */
export interface CommandGroup {
  /** absolute paths of the group folders (write a pid to each `cgroup.procs` to move a process in) */
  paths: string[];
  /** remove the groups once their processes are gone; never throws */
  remove(): void;
}

let seq = 0;

/** This process's own folder under a controller, or null (v1 `N:name,…:/p`, v2 `0::/p` when it offers the controller). */
function ownFolder(controller: 'pids' | 'memory'): string | null {
  let lines: string[];
  try {
    lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  } catch {
    return null;
  }
  const v1 = lines.map((l) => /^\d+:([^:]*):(.*)$/.exec(l)).find((m) => m?.[1]?.split(',').includes(controller));
  if (v1 && existsSync(join('/sys/fs/cgroup', controller))) return join('/sys/fs/cgroup', controller, v1[2]!);
  const v2 = lines.map((l) => /^0::(.*)$/.exec(l)).find(Boolean);
  if (v2 && existsSync('/sys/fs/cgroup/cgroup.controllers')) return join('/sys/fs/cgroup', v2[1]!);
  return null;
}

/** Remove empty groups left by clawcode processes that are gone (killed before they could remove their own). */
function clearStale(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = /^clawcode-(\d+)-\d+$/.exec(name)?.[1];
    if (!pid || Number(pid) === process.pid || existsSync(`/proc/${pid}`)) continue;
    try {
      rmdirSync(join(parent, name)); // only an empty group goes
    } catch {
      // still has processes, or gone meanwhile
    }
  }
}

/**
 * Make one child group under `parent` with its limit files written (an `optional` one only where the child
 * has it: in v2 a controller the parent does not hand down has no file); null when a required one fails.
 */
function childGroup(
  parent: string,
  limits: [file: string, value: number][],
  optional: [file: string, value: number][] = [],
): string | null {
  clearStale(parent);
  const path = join(parent, `clawcode-${process.pid}-${++seq}`);
  try {
    mkdirSync(path);
  } catch {
    return null;
  }
  try {
    for (const [file, value] of limits) writeFileSync(join(path, file), String(value));
    for (const [file, value] of optional)
      if (existsSync(join(path, file))) writeFileSync(join(path, file), String(value));
    return path;
  } catch {
    try {
      rmdirSync(path);
    } catch {
      // nothing to undo
    }
    return null;
  }
}

/**
 * Make the groups that cap one command at `maxProcesses` tasks (threads count) and `maxMemoryBytes` of memory.
 * Only tried as root, who may write cgroups here; elsewhere, or where no controller is available to a child
 * group, null. In v2 one group carries both limits; in v1 each controller has its own.
 */
export function makeCommandGroup(maxProcesses: number, maxMemoryBytes: number): CommandGroup | null {
  if (process.getuid?.() !== 0) return null;
  const paths: string[] = [];
  const pids = ownFolder('pids');
  const memory = ownFolder('memory');
  if (pids && pids === memory) {
    // v2: one folder; the memory limit where the parent hands the controller down
    const group = childGroup(pids, [['pids.max', maxProcesses]], [['memory.max', maxMemoryBytes]]);
    if (group) paths.push(group);
  } else {
    const p = pids ? childGroup(pids, [['pids.max', maxProcesses]]) : null;
    const m = memory ? childGroup(memory, [['memory.limit_in_bytes', maxMemoryBytes]]) : null;
    for (const g of [p, m]) if (g) paths.push(g);
  }
  if (paths.length === 0) return null;
  return { paths, remove: () => removeSoon(paths, 40) };
}

/**
 * Remove the groups; one whose last processes are still being torn down (the pid namespace's, just after
 * bubblewrap exits) is tried again every 50 ms, `tries` times, on timers that keep nothing alive.
 */
function removeSoon(paths: string[], tries: number): void {
  const left = paths.filter((path) => {
    try {
      rmdirSync(path);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EBUSY';
    }
  });
  if (left.length > 0 && tries > 0) setTimeout(() => removeSoon(left, tries - 1), 50).unref();
}
