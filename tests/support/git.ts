import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Run git in `cwd` with a fixed identity and no signing (a developer's global config must not change
 * what a test commits); returns its stdout, trimmed. Throws when git exits non-zero.
 */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
  })
    .toString('utf8')
    .trim();
}

/** Temp folders made by `tempDir`, removed by `removeTempDirs` (call it in `afterEach`). */
const made: string[] = [];

/** A fresh temp folder whose name starts with `prefix`. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Remove every folder `tempDir` made so far. */
export function removeTempDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}
