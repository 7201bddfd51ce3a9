/**
 * Whether a find/replace patch already stands in `content`: the replacement is there and the find is
 * gone, or what is left of the find lies only inside the replacement (a replacement that keeps its
 * find and adds to it, where applying again would duplicate the addition). Line endings (CRLF vs LF)
 * and the indentation of each line are ignored, because the patch engine's indentation pass may have
 * re-indented the replacement when it was applied.
 *
 * @param content  the file's current text
 * @param find     the patch's find; `''` (create the file) counts as applied when the file is exactly `replace`
 * @param replace  the patch's replacement
 * @returns true when re-applying would repeat a change already made
 */
export function isAlreadyApplied(content: string, find: string, replace: string): boolean {
  if (replace.trim() === '' || find === replace) return false;
  // An empty find creates the file: applied when the file holds exactly the new text.
  if (find === '') return normalize(content) === normalize(replace);
  const text = normalize(content);
  const rep = normalize(replace);
  const fnd = normalize(find);
  const spans = occurrences(text, rep).map((start) => [start, start + rep.length] as const);
  if (spans.length === 0) return false;
  // Every remaining find must sit inside one of the replacements.
  return occurrences(text, fnd).every((start) => spans.some(([from, to]) => start >= from && start + fnd.length <= to));
}

/** LF line ends, each line without leading whitespace (indentation may differ after applying). */
function normalize(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => line.trimStart())
    .join('\n');
}

function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) found.push(at);
  return found;
}
