import { execFileSync } from 'node:child_process';
import { cpSync } from 'node:fs';

/**
 * A copy of a materialised tree at `dir`, committed as one git commit (so every file is tracked, as in
 * the project it came from), for benchmarks that run the built CLI on a real project.
 * @returns `dir`
 */
export function committedCopy(tree: string, dir: string): string {
  // The marker of a finished tree (bench/context-data.ts) is not part of the project.
  cpSync(tree, dir, { recursive: true, filter: (src) => !/[\\/]\.complete-\d+$/.test(src) });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', '-c', 'commit.gpgsign=false', ...args], {
      cwd: dir,
      stdio: 'ignore',
    });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'tree');
  return dir;
}
