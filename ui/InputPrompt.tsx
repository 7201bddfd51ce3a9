import { useRef, useState } from 'react';
import { Box, Text, useFocus, useInput, useStdout, type Key } from 'ink';

/** Props of the task input; `history` is oldest first (as kept on disk). */
export interface InputPromptProps {
  onSubmit: (value: string) => void;
  history: readonly string[];
  /** While a task runs the input shows a hint and ignores typing. */
  disabled?: boolean;
  placeholder?: string;
  /** Text already typed, e.g. while the project picker was on screen; the cursor starts at its end. */
  initialValue?: string;
}

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** The cursor position one character left of `at`: an emoji (a surrogate pair) is one character. */
function before(text: string, at: number): number {
  if (at <= 0) return 0;
  return at >= 2 && isLow(text.charCodeAt(at - 1)) && isHigh(text.charCodeAt(at - 2)) ? at - 2 : at - 1;
}

/** The cursor position one character right of `at`. */
function after(text: string, at: number): number {
  if (at >= text.length) return text.length;
  return isHigh(text.charCodeAt(at)) && isLow(text.charCodeAt(at + 1)) ? at + 2 : at + 1;
}

/** Where the previous word starts, from `at` going left (readline's Ctrl-W / Alt-B rule). */
function wordStart(text: string, at: number): number {
  let i = at;
  while (i > 0 && text[i - 1] === ' ') i--;
  while (i > 0 && text[i - 1] !== ' ') i--;
  return i;
}

/** A line of the input and its cursor (an index into the line). */
interface Line {
  value: string;
  cursor: number;
}

/**
 * The line after an editing key: cursor moves, deletions, typed or pasted text.
 * @returns the new line, or undefined when the key is not an editing key or changes nothing
 */
function editLine({ value: current, cursor }: Line, input: string, key: Key): Line | undefined {
  const at = (value: string, to = value.length): Line => ({ value, cursor: to });
  if (key.leftArrow || (key.ctrl && input === 'b')) return at(current, before(current, cursor));
  if (key.rightArrow || (key.ctrl && input === 'f')) return at(current, after(current, cursor));
  if (key.home || (key.ctrl && input === 'a')) return at(current, 0);
  if (key.end || (key.ctrl && input === 'e')) return at(current, current.length);
  if (key.meta && input === 'b') return at(current, wordStart(current, cursor));
  if (key.backspace || key.delete) {
    // Terminals send DEL (0x7f) for Backspace, and Ink 6 reports it and the Delete key alike, so
    // both erase leftwards (Ctrl-K erases to the right).
    const from = before(current, cursor);
    return from < cursor ? at(current.slice(0, from) + current.slice(cursor), from) : undefined;
  }
  if (key.ctrl && input === 'u') return at(current.slice(cursor), 0);
  if (key.ctrl && input === 'k') return at(current.slice(0, cursor), cursor);
  if (key.ctrl && input === 'w') {
    const from = wordStart(current, cursor);
    return at(current.slice(0, from) + current.slice(cursor), from);
  }
  if (key.ctrl || key.meta || key.tab || key.escape || key.pageUp || key.pageDown) return undefined;
  // Pasted text arrives as one chunk; keep it on one line.
  if (!input) return undefined;
  // Control characters (a pasted escape sequence, a raw Ctrl key) never belong in a task line.
  const text = input.replace(/[\r\n]+/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '');
  if (!text) return undefined;
  return at(current.slice(0, cursor) + text + current.slice(cursor), cursor + text.length);
}

/** The line with its cursor shown inverse; a line longer than the box scrolls to keep the cursor in view. */
function CursorLine({ value, cursor }: Line) {
  // Border, padding and "❯ " take 6 columns; a long line scrolls so the cursor stays in view.
  const { stdout } = useStdout();
  const room = Math.max(8, (stdout.columns || 80) - 6);
  const start = cursor + 1 > room ? cursor + 1 - room : 0;
  const at = after(value, cursor);
  return (
    <Text wrap="truncate-end">
      {value.slice(start, cursor)}
      <Text inverse>{at > cursor ? value.slice(cursor, at) : ' '}</Text>
      {value.slice(at, start + room)}
    </Text>
  );
}

/**
 * A one-line text input with a cursor, readline-style: type or paste at the cursor, ←/→ (Ctrl-B/F)
 * move, Home/End (Ctrl-A/E) jump, Backspace deletes before the cursor, Ctrl-W the word before it,
 * Ctrl-U everything before it, Ctrl-K everything after it; Enter submits, ↑/↓ walk the history.
 * An emoji counts as one character; a line longer than the box scrolls to keep the cursor visible.
 * It takes focus first; Tab moves focus to the DiffView.
 */
export function InputPrompt({
  onSubmit,
  history,
  disabled = false,
  placeholder = 'describe a task',
  initialValue = '',
}: InputPromptProps) {
  const { isFocused } = useFocus({ id: 'input', autoFocus: true });
  // Keys can arrive faster than React re-renders (a paste, a test, a slow machine), so the handler reads
  // and writes refs and only uses state to trigger a render.
  const state = useRef({ value: initialValue, cursor: initialValue.length, back: -1 });
  const [shown, setShown] = useState({ value: initialValue, cursor: initialValue.length });
  // Same reason: the handler stays subscribed and reads what the last render showed.
  const live = useRef({ active: false, history, onSubmit });
  live.current = { active: isFocused && !disabled, history, onSubmit };
  /** Show `next` with the cursor at `cursor` (default: its end). */
  const set = (next: string, cursor = next.length, back = state.current.back) => {
    state.current = { value: next, cursor, back };
    setShown({ value: next, cursor });
  };

  useInput((input, key) => {
    const { active, history, onSubmit } = live.current;
    if (!active) return;
    const { value: current, back } = state.current;
    if (key.return) {
      const task = current.trim();
      if (!task) return;
      set('', 0, -1);
      onSubmit(task);
      return;
    }
    // -1 = editing a new line; otherwise how far back in history, 0 = newest.
    if (key.upArrow) {
      const next = Math.min(back + 1, history.length - 1);
      if (next >= 0) {
        const line = history[history.length - 1 - next] ?? '';
        set(line, line.length, next);
      }
      return;
    }
    if (key.downArrow) {
      const next = Math.max(-1, back - 1);
      const line = next >= 0 ? (history[history.length - 1 - next] ?? '') : '';
      set(line, line.length, next);
      return;
    }
    const edited = editLine(state.current, input, key);
    if (edited) set(edited.value, edited.cursor);
  });

  const { value, cursor } = shown;
  return (
    <Box borderStyle="round" borderColor={isFocused && !disabled ? 'cyan' : 'gray'} paddingX={1}>
      <Text color="cyan">❯ </Text>
      {disabled ? (
        <Text dimColor>running… (Esc or Ctrl-C to cancel)</Text>
      ) : !isFocused ? (
        <Text dimColor>(Tab to type a task)</Text>
      ) : value ? (
        <CursorLine value={value} cursor={cursor} />
      ) : (
        <Text dimColor>
          <Text inverse> </Text>
          {placeholder}
        </Text>
      )}
    </Box>
  );
}
