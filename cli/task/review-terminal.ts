import { createConsoleReviewIo, reviewChanges } from './review.js';

/** What the flow hands to the review: each changed file's previous text (null = new) and new text. */
export interface ReviewableChange {
  path: string;
  beforeText: string | null;
  after: string;
}

/**
 * The confirmation step in a terminal: apply everything, review hunk by hunk (like `git add -p`,
 * cli/task/review.ts), or write nothing.
 *
 * @param rootDir  the project root (the editor of the `e` key is never found inside it)
 * @returns the files to write with their (possibly partial) new content, or null to write nothing
 */
export async function reviewInTerminal(
  changes: readonly ReviewableChange[],
  rootDir: string,
): Promise<{ path: string; after: string }[] | null> {
  const { expand } = await import('@inquirer/prompts');
  const count = changes.length;
  const answer = await expand<'y' | 'r' | 'n'>({
    message: `Apply these changes to ${count} file${count === 1 ? '' : 's'}?`,
    default: 'y',
    choices: [
      { key: 'y', name: 'yes, write all of them', value: 'y' },
      { key: 'r', name: 'review hunk by hunk', value: 'r' },
      { key: 'n', name: 'no, write nothing', value: 'n' },
    ],
  });
  if (answer === 'n') return null;
  if (answer === 'y') return changes.map((c) => ({ path: c.path, after: c.after }));
  const result = await reviewChanges(
    changes.map((c) => ({ path: c.path, before: c.beforeText ?? '', after: c.after })),
    createConsoleReviewIo(process.env, rootDir),
  );
  return result.quit ? null : result.accepted;
}
