import { useEffect, useState } from 'react';
import { Box, Text } from 'ink';

/** The TUI's state: waiting for a task, running one, or cancelling it. */
export type UiMode = 'ready' | 'running' | 'cancelling';

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

const MODE_COLOR: Record<UiMode, string> = { ready: 'green', running: 'yellow', cancelling: 'red' };

/** One line: mode (with a spinner while busy), activity, model, token totals, memory, and the keys for this mode. */
export function StatusBar({ mode, model, inputTokens, outputTokens, memory, activity }: StatusBarProps) {
  const spinner = useSpinner(mode !== 'ready');
  const keys = mode === 'ready' ? 'Enter run · Tab diff · Ctrl-C quit' : 'Esc/Ctrl-C cancel';
  return (
    <Box>
      <Text wrap="truncate-end">
        <Text color={MODE_COLOR[mode]} bold>
          {spinner}
          {mode}
        </Text>
        {activity && mode !== 'ready' ? <Text dimColor> {activity}</Text> : null}
        <Text dimColor> │ </Text>
        <Text>{model}</Text>
        <Text dimColor> │ </Text>
        <Text>
          tokens {inputTokens}↑ {outputTokens}↓
        </Text>
        {memory ? <Text dimColor> │ {memory}</Text> : null}
        <Text dimColor> │ {keys}</Text>
      </Text>
    </Box>
  );
}
