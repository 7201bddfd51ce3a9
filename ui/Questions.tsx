import { useRef, useState } from 'react';
import { Box, Text, useInput } from 'ink';
import type { TuiPickChoice } from '../cli/interactive/tui-hooks.js';
import type { Pick, Question } from './task-hooks.js';

/** Rows of a list shown at once: a model list can hold a hundred entries, an 80x24 screen cannot. */
export const PICK_ROWS = 8;

/** The open question: its message and keys, its detail lines, and a legend when it offers more than y/n. */
export function QuestionBox({ question }: { question: Question }) {
  return (
    <Box borderStyle="round" borderColor="yellow" paddingX={1} flexDirection="column">
      <Text wrap="truncate-end">
        <Text color="yellow">? </Text>
        <Text bold>{question.message}</Text>
        <Text dimColor> ({question.choices.map((c) => c.key).join('/')})</Text>
      </Text>
      {question.details.map((line, i) => (
        <Text key={i} wrap="truncate-end">
          {line}
        </Text>
      ))}
      {question.choices.length > 2 ? (
        <Text dimColor wrap="truncate-end">
          {question.choices.map((c) => `${c.key} ${c.label}`).join(' · ')}
        </Text>
      ) : null}
    </Box>
  );
}

/** The entries whose name holds every word of `filter` (any case), in their order. */
function filterChoices(choices: readonly TuiPickChoice[], filter: string): TuiPickChoice[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  return choices.filter((c) => words.every((w) => c.name.toLowerCase().includes(w)));
}

/**
 * An open list: typing narrows it (Backspace widens it again), ↑/↓ move, Enter picks the highlighted
 * entry, Esc (or Ctrl-C) closes it with nothing picked. At most {@link PICK_ROWS} rows show, scrolled
 * to keep the highlighted one in view.
 */
export function PickBox({ pick, onDone }: { pick: Pick; onDone: (value: string | undefined) => void }) {
  const [filter, setFilter] = useState('');
  const [index, setIndex] = useState(0);
  const shown = filterChoices(pick.choices, filter);
  const at = Math.min(index, Math.max(0, shown.length - 1));
  // Keys can outrun renders: the handler reads the last render's list.
  const live = useRef({ shown, at });
  live.current = { shown, at };

  useInput((input, key) => {
    const { shown: list, at: current } = live.current;
    if (key.escape || (key.ctrl && input === 'c')) return onDone(undefined);
    if (key.return) return onDone(list[current]?.value);
    if (key.upArrow) return setIndex(Math.max(0, current - 1));
    if (key.downArrow) return setIndex(Math.min(list.length - 1, current + 1));
    if (key.backspace || key.delete) {
      setFilter((f) => f.slice(0, -1));
      return setIndex(0);
    }
    if (!key.ctrl && !key.meta && input && !/\p{Cc}/u.test(input)) {
      setFilter((f) => f + input);
      setIndex(0);
    }
  });

  const top = Math.max(0, Math.min(at - Math.floor(PICK_ROWS / 2), shown.length - PICK_ROWS));
  const rows = shown.slice(top, top + PICK_ROWS);
  return (
    <Box borderStyle="round" borderColor="cyan" paddingX={1} flexDirection="column">
      <Text wrap="truncate-end">
        <Text color="cyan">? </Text>
        <Text bold>{pick.message}</Text>
        <Text> {filter}</Text>
        <Text dimColor>{filter ? '' : ' type to narrow the list'}</Text>
      </Text>
      {rows.length === 0 ? <Text dimColor>(nothing matches)</Text> : null}
      {rows.map((c, i) => (
        <Text key={c.value} wrap="truncate-end" color={top + i === at ? 'cyan' : undefined}>
          {top + i === at ? '❯ ' : '  '}
          {c.name}
          {c.description ? <Text dimColor> {c.description}</Text> : null}
        </Text>
      ))}
      <Text dimColor wrap="truncate-end">
        {shown.length > 0 ? `${at + 1} of ${shown.length} · ` : ''}↑↓ move · Enter pick · Esc cancel
      </Text>
    </Box>
  );
}
