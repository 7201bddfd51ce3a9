import { useRef, useState } from 'react';
import { Box, Text, useFocus, useInput } from 'ink';

/** Props of the task input; `history` is oldest first (as kept on disk). */
export interface InputPromptProps {
  onSubmit: (value: string) => void;
  history: readonly string[];
  /** While a task runs the input shows a hint and ignores typing. */
  disabled?: boolean;
  placeholder?: string;
}

/**
 * A one-line text input: type, Backspace, Ctrl-U to clear, Enter to submit, ↑/↓ to walk the history.
 * It takes focus first; Tab moves focus to the DiffView.
 */
export function InputPrompt({ onSubmit, history, disabled = false, placeholder = 'describe a task' }: InputPromptProps) {
  const { isFocused } = useFocus({ id: 'input', autoFocus: true });
  // Keys can arrive faster than React re-renders (a paste, a test, a slow machine), so the handler reads
  // and writes refs and only uses state to trigger a render.
  const state = useRef({ value: '', back: -1 });
  const [value, setShown] = useState('');
  // Same reason: the handler stays subscribed and reads what the last render showed.
  const live = useRef({ active: false, history, onSubmit });
  live.current = { active: isFocused && !disabled, history, onSubmit };
  const set = (next: string, back = state.current.back) => {
    state.current = { value: next, back };
    setShown(next);
  };

  useInput(
    (input, key) => {
      const { active, history, onSubmit } = live.current;
      if (!active) return;
      const { value: current, back } = state.current;
      if (key.return) {
        const task = current.trim();
        if (!task) return;
        set('', -1);
        onSubmit(task);
        return;
      }
      // -1 = editing a new line; otherwise how far back in history, 0 = newest.
      if (key.upArrow) {
        const next = Math.min(back + 1, history.length - 1);
        if (next >= 0) set(history[history.length - 1 - next] ?? '', next);
        return;
      }
      if (key.downArrow) {
        const next = Math.max(-1, back - 1);
        set(next >= 0 ? (history[history.length - 1 - next] ?? '') : '', next);
        return;
      }
      if (key.backspace || key.delete) {
        set(current.slice(0, -1));
        return;
      }
      if (key.ctrl && input === 'u') {
        set('');
        return;
      }
      if (key.ctrl || key.meta || key.tab || key.escape || key.pageUp || key.pageDown || key.leftArrow || key.rightArrow) {
        return;
      }
      // Pasted text arrives as one chunk; keep it on one line.
      if (input) set(current + input.replace(/[\r\n]+/g, ' '));
    },
  );

  return (
    <Box borderStyle="round" borderColor={isFocused && !disabled ? 'cyan' : 'gray'} paddingX={1}>
      <Text color="cyan">❯ </Text>
      {disabled ? (
        <Text dimColor>running… (Esc or Ctrl-C to cancel)</Text>
      ) : !isFocused ? (
        <Text dimColor>(Tab to type a task)</Text>
      ) : value ? (
        <Text wrap="truncate-start">
          {value}
          <Text inverse> </Text>
        </Text>
      ) : (
        <Text dimColor>
          <Text inverse> </Text>
          {placeholder}
        </Text>
      )}
    </Box>
  );
}
