import { useRef, useState } from 'react';
import { Box, Text, useFocus, useInput } from 'ink';
import { escapeTerminal } from '../utils/terminal-text.js';

/** One file's unified diff text, as in the agent's `diffs` event. */
export interface FileDiff {
  file: string;
  diff: string;
}

/**
 * Flatten diffs to display lines, dropping the `===`/`Index:` preamble lines of the diff package;
 * control characters from the model or the files are shown escaped.
 */
export function diffLines(diffs: readonly FileDiff[]): string[] {
  return diffs.flatMap((d) =>
    d.diff
      .replace(/\r/g, '')
      .split('\n')
      .filter((l, i, all) => !(l === '' && i === all.length - 1))
      .filter((l) => !l.startsWith('Index: ') && !/^=+$/.test(l))
      .map((line) => escapeTerminal(line)),
  );
}

function lineColor(line: string): string | undefined {
  if (line.startsWith('+++') || line.startsWith('---')) return 'white';
  if (line.startsWith('+')) return 'green';
  if (line.startsWith('-')) return 'red';
  if (line.startsWith('@@')) return 'cyan';
  return undefined;
}

/**
 * A coloured unified diff in a window of `height` rows. When focused (Tab), ↑/↓ scroll by a line and
 * PageUp/PageDown by a window; PageUp/PageDown scroll even without focus (the input keeps ↑/↓ for history).
 */
export function DiffView({ diffs, height }: { diffs: readonly FileDiff[]; height: number }) {
  const { isFocused } = useFocus({ id: 'diff' });
  const lines = diffLines(diffs);
  const rows = Math.max(3, height);
  const maxTop = Math.max(0, lines.length - rows);
  const [top, setTop] = useState(0);
  const clampedTop = Math.min(top, maxTop);
  // The input handler stays subscribed and reads the last render's values (keys can outrun re-renders).
  const live = useRef({ isFocused, rows, maxTop });
  live.current = { isFocused, rows, maxTop };

  useInput((_input, key) => {
    const { isFocused: focused, rows: page, maxTop: max } = live.current;
    const scroll = (by: number) => setTop((t) => Math.max(0, Math.min(max, Math.min(t, max) + by)));
    if (key.pageDown) scroll(page);
    else if (key.pageUp) scroll(-page);
    else if (focused && key.downArrow) scroll(1);
    else if (focused && key.upArrow) scroll(-1);
  });

  if (lines.length === 0) return null;
  const end = Math.min(lines.length, clampedTop + rows);
  return (
    <Box flexDirection="column" borderStyle="single" borderColor={isFocused ? 'cyan' : 'gray'} paddingX={1}>
      {lines.slice(clampedTop, end).map((line, i) => (
        <Text key={clampedTop + i} color={lineColor(line)} wrap="truncate-end">
          {line === '' ? ' ' : line}
        </Text>
      ))}
      <Text dimColor wrap="truncate-end">
        lines {clampedTop + 1}–{end} of {lines.length}
        {isFocused ? ' · ↑↓ PgUp PgDn · Tab back' : ' · Tab to scroll'}
      </Text>
    </Box>
  );
}
