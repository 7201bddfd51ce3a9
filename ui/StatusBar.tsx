import { useEffect, useState } from 'react';
import { Box, Text } from 'ink';
import { escapeTerminal } from '../utils/terminal-text.js';
import { formatCount } from './ActivityFeed.js';

/**
 * The TUI's state: waiting for a task, running one, waiting for an answer to its question or for a pick
 * from its list, or cancelling it.
 */
export type UiMode = 'ready' | 'running' | 'asking' | 'picking' | 'cancelling';

/** Status bar data; tokens are provider-reported totals for this session (not characters). */
export interface StatusBarProps {
  mode: UiMode;
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** A short memory label, e.g. "memory: 4 notes"; omitted when undefined. */
  memory?: string;
  /** What the running task is doing, e.g. "1,234 chars received"; shown while running. */
  activity?: string;
  /** While asking: the answer keys, e.g. "y/n". */
  answerKeys?: string;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** A braille spinner frame that advances every 100 ms while `active` (the TUI only runs on a TTY). */
function useSpinner(active: boolean): string {
  const [frame, setFrame] = useState(0);
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setFrame((f) => (f + 1) % SPINNER.length), 100);
    return () => clearInterval(timer);
  }, [active]);
  return active ? `${SPINNER[frame]} ` : '';
}

const MODE_COLOR: Record<UiMode, string> = {
  ready: 'green',
  running: 'yellow',
  asking: 'cyan',
  picking: 'cyan',
  cancelling: 'red',
};
const MODE_LABEL: Record<Exclude<UiMode, 'asking'>, string> = {
  ready: 'ready',
  running: 'running',
  picking: 'pick one',
  cancelling: 'cancelling',
};
const MODE_KEYS: Record<Exclude<UiMode, 'asking'>, string> = {
  ready: 'Enter run · Tab diff · Ctrl-C quit',
  running: 'Esc/Ctrl-C cancel',
  picking: 'type to narrow · Enter pick · Esc cancel',
  cancelling: 'Esc/Ctrl-C cancel',
};

/** One line: mode (with a spinner while busy), activity, model, token totals, memory, and the keys for this mode. */
export function StatusBar({ mode, model, inputTokens, outputTokens, memory, activity, answerKeys }: StatusBarProps) {
  const spinner = useSpinner(mode === 'running' || mode === 'cancelling');
  const keys = mode === 'asking' ? `Enter ${answerKeys?.[0] ?? 'y'} · Esc no · Tab diff` : MODE_KEYS[mode];
  return (
    <Box>
      <Text wrap="truncate-end">
        <Text color={MODE_COLOR[mode]} bold>
          {spinner}
          {mode === 'asking' ? `answer ${answerKeys ?? 'y/n'}` : MODE_LABEL[mode]}
        </Text>
        {activity && mode === 'running' ? <Text dimColor> {activity}</Text> : null}
        <Text dimColor> │ </Text>
        <Text>{escapeTerminal(model, 'line')}</Text>
        <Text dimColor> │ </Text>
        <Text>
          tokens {formatCount(inputTokens)}↑ {formatCount(outputTokens)}↓
        </Text>
        {memory ? <Text dimColor> │ {memory}</Text> : null}
        <Text dimColor> │ {keys}</Text>
      </Text>
    </Box>
  );
}
