/**
 * The start of a task, for the places that show or remember it rather than send it (the summary box, history,
 * undo, session memory): at most `maxLines` lines and `maxChars` characters, ending with how much was left
 * out (`… (1,347 more lines)`). A task that fits is returned as is, trailing blank lines aside.
 *
 * @param task     the task as given (any length)
 * @param maxLines lines kept, >= 1
 * @param maxChars characters kept, >= 1 (a cut line ends with `…`)
 */
export function taskHeadline(task: string, maxLines = 3, maxChars = 300): string {
  const lines = task.replace(/\s+$/, '').split('\n');
  let kept = lines.slice(0, maxLines).join('\n');
  const cutChars = kept.length > maxChars;
  if (cutChars) kept = `${kept.slice(0, maxChars).trimEnd()}…`;
  const more = lines.length - maxLines;
  if (more > 0) return `${kept}\n… (${more.toLocaleString('en-US')} more line${more === 1 ? '' : 's'})`;
  return cutChars ? `${kept} (${(task.trimEnd().length - maxChars).toLocaleString('en-US')} more characters)` : kept;
}
