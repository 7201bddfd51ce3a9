import { UsageError } from '../utils/errors.js';

/**
 * The most of the context budget a task may take: the task goes out with the context, so it is counted in the
 * budget, and half is kept for the files, the project map and the instructions it is about.
 */
const TASK_MAX_SHARE = 0.5;

/** The task is longer than its share of the budget. Exit 2, before anything is read or sent. */
export class TaskTooLongError extends UsageError {
  constructor(taskChars: number, budgetChars: number, maxChars: number) {
    const n = (x: number): string => x.toLocaleString('en-US');
    super(
      `The task is ${n(taskChars)} characters; a task may take at most half of the ${n(budgetChars)}-character budget (${n(maxChars)}).`,
      { code: 'task_too_long', hint: 'Shorten it to what must change, or raise --budget.' },
    );
  }
}

/**
 * What is left of the budget once the task is counted in it.
 *
 * @param task         the task as sent
 * @param budgetChars  the context budget in characters
 * @returns the characters left for files, project map and instructions
 * @throws TaskTooLongError when the task takes more than {@link TASK_MAX_SHARE} of the budget
 */
export function budgetAfterTask(task: string, budgetChars: number): number {
  const maxChars = Math.floor(budgetChars * TASK_MAX_SHARE);
  if (task.length > maxChars) throw new TaskTooLongError(task.length, budgetChars, maxChars);
  return budgetChars - task.length;
}
