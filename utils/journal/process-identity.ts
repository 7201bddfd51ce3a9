import { readFileSync } from 'node:fs';

/**
 * Whether a process id names a live process, and which process it is. A pid alone is not an identity: pids are
 * reused, and a lock left by a process that died can name a live, unrelated one (pid 1 in a container restarted
 * with the same home). The start time tells them apart.
 */

/** True when a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let bootId: string | undefined;

/**
 * When a process started, as `<boot id>:<clock ticks since boot>` from `/proc` (Linux); undefined where that
 * cannot be read (other systems, a hidden /proc, a process that is gone). Two readings are equal exactly when
 * they name the same process.
 */
export function processStartTime(pid: number): string | undefined {
  try {
    bootId ??= readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its last `)`.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = fields[19]; // field 22 of proc(5), `starttime`
    return ticks && /^\d+$/.test(ticks) ? `${bootId}:${ticks}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the process that wrote a lock (its pid and the start time it recorded) is still running. Where start
 * times can be read, a lock without one (an older clawcode's, or a hand-made one naming pid 1) counts as left
 * behind: the live process with that pid cannot be shown to be its owner. Where they cannot, the pid decides.
 */
export function lockOwnerAlive(pid: number, start: string | undefined): boolean {
  if (!isProcessAlive(pid)) return false;
  const now = processStartTime(pid);
  if (now === undefined) return true; // cannot tell: assume it is the owner
  // Written without a start time, or by a process that has since died and whose pid was reused.
  return start !== undefined && start === now;
}
