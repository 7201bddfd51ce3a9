import { commitFiles } from '../../utils/git/ops.js';
import { findRepository, runInRepo } from '../../utils/git/repo.js';

/** What `clawcode undo` did about a run that `--commit` had committed. */
export type CommittedRunOutcome =
  | { kind: 'not_committed' }
  | { kind: 'reverted'; commit: string; revert: string }
  | { kind: 'left'; commit: string; why: string };

/**
 * The commit `--commit` made for a run, found among the last 200 commits of HEAD: the newest whose
 * message is the run's task and whose changed files are exactly the run's files.
 *
 * @param files  the run's project-relative paths
 * @returns the full commit hash, or undefined (no git, not a repository, not committed)
 */
async function findRunCommit(rootDir: string, task: string, files: readonly string[]): Promise<string | undefined> {
  const repo = await findRepository(rootDir);
  if (!repo) return undefined;
  const prefix = repo.prefix;
  // NUL-separated records: hash, full message, then the changed files (relative to the repository root).
  const run = await runInRepo(repo, ['log', '-n', '200', '-z', '--format=%x01%H%x00%B', '--name-only', 'HEAD'], {
    maxBytes: 8 << 20,
  });
  const log = run.ok ? run.stdout.toString('utf8') : '';
  if (!log) return undefined;
  const wanted = [...files]
    .map((f) => `${prefix}${f}`)
    .sort()
    .join('\n');
  for (const record of log.split('\u0001').slice(1)) {
    const [hash, message, ...rest] = record.split('\u0000');
    const changed = rest
      .map((f) => f.trim())
      .filter(Boolean)
      .sort()
      .join('\n');
    if (hash && message?.trim() === task.trim() && changed === wanted) return hash;
  }
  return undefined;
}

/**
 * After `clawcode undo` restored a run's files: when `--commit` had committed that run, record the
 * undo as a revert commit of exactly those files (what `git revert` would make for them), so history
 * and the working tree agree. When some files were left alone (`--force`), nothing is committed and
 * the outcome says why, so the caller can print what to run.
 *
 * @param run       the run's task and its files' paths
 * @param complete  every file of the run was restored or deleted
 * @param hooks     let git run the repository's commit hooks and sign (`--commit-hooks`); default neither
 * @throws GitError when the revert commit fails (the files stay restored)
 */
export async function revertCommittedRun(
  rootDir: string,
  run: { task: string; files: readonly string[] },
  complete: boolean,
  hooks = false,
): Promise<CommittedRunOutcome> {
  const commit = await findRunCommit(rootDir, run.task, run.files);
  if (!commit) return { kind: 'not_committed' };
  if (!complete) return { kind: 'left', commit, why: 'some files were left alone' };
  const subject = run.task.trim().split('\n')[0] ?? '';
  const { commit: revert } = await commitFiles(
    rootDir,
    run.files,
    `Revert "${subject}"\n\nThis reverts commit ${commit}.`,
    { hooks },
  );
  return { kind: 'reverted', commit, revert };
}
