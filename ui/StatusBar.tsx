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
}

const MODE_COLOR: Record<UiMode, string> = { ready: 'green', running: 'yellow', cancelling: 'red' };

/** One line: mode, model, token totals, memory, and the keys that matter in this mode. */
export function StatusBar({ mode, model, inputTokens, outputTokens, memory }: StatusBarProps) {
  const keys = mode === 'ready' ? 'Enter run · Tab diff · Ctrl-C quit' : 'Esc/Ctrl-C cancel';
  return (
    <Box>
      <Text wrap="truncate-end">
        <Text color={MODE_COLOR[mode]} bold>
          {mode}
        </Text>
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
