import { createTwoFilesPatch } from 'diff';

/**
 * A unified diff of one file change (git style `a/` and `b/` headers, 3 lines of context),
 * made with the `diff` package. A created file diffs against `/dev/null`.
 *
 * @param path    project-relative path
 * @param before  previous content, or null when the file is new
 * @param after   new content
 * @returns the unified diff text; `""` when nothing changed
 */
export function makeUnifiedDiff(path: string, before: string | null, after: string): string {
  if (before === after) return '';
  const patch = createTwoFilesPatch(
    before === null ? '/dev/null' : `a/${path}`,
    `b/${path}`,
    before ?? '',
    after,
    '',
    '',
    { context: 3 },
  );
  // Drop the "Index:"/"====" preamble the package writes; keep from the "---" header on.
  const start = patch.indexOf('--- ');
  return start > 0 ? patch.slice(start) : patch;
}

/** Lines added and removed in a unified diff (header lines excluded). */
export function diffStats(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++') || line.startsWith('---')) continue;
    if (line.startsWith('+')) added++;
    else if (line.startsWith('-')) removed++;
  }
  return { added, removed };
}
