import { Box, Text } from 'ink';
import type { AgentEventMap, AgentEventName } from '../agent/events.js';
import { escapeTerminal } from '../utils/terminal-text.js';

/** Kinds of feed lines; they pick the icon and colour. */
export type FeedKind = 'step' | 'file' | 'command' | 'error' | 'success' | 'task';

/** One line of the activity feed. `id` is unique within a session. */
export interface FeedItem {
  id: number;
  kind: FeedKind;
  text: string;
}

/** A count as the console writes it: `60,000` (en-US grouping). */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** `1 file`, `3 files`: a count with its noun, grouped as the console writes it. */
function counted(n: number, noun: string): string {
  return `${formatCount(n)} ${noun}${n === 1 ? '' : 's'}`;
}

/**
 * Turn one agent event into a feed line (kind and text), or null for events the feed does not show
 * (`model_progress` updates the running line instead; `diffs` goes to the DiffView).
 */
export function describeEvent<K extends AgentEventName>(
  name: K,
  payload: AgentEventMap[K],
): { kind: FeedKind; text: string } | null {
  const p = payload as AgentEventMap[AgentEventName];
  switch (name) {
    case 'planning':
      return { kind: 'step', text: `Planning: ${(p as AgentEventMap['planning']).task}` };
    case 'scan': {
      const e = p as AgentEventMap['scan'];
      return { kind: 'step', text: `Scanned ${counted(e.files, 'file')} in ${formatCount(e.ms)} ms` };
    }
    case 'context': {
      const e = p as AgentEventMap['context'];
      return {
        kind: 'step',
        text: `Context: ${counted(e.files.length, 'file')}, ${formatCount(e.totalChars)}/${formatCount(e.budgetChars)} chars`,
      };
    }
    case 'model_request': {
      const e = p as AgentEventMap['model_request'];
      return { kind: 'step', text: `Asking ${e.provider} (${e.model})…` };
    }
    case 'model_retry':
      return { kind: 'step', text: `Provider ${(p as AgentEventMap['model_retry']).message}` };
    case 'model_reply':
      return { kind: 'step', text: `Plan received in ${formatCount((p as AgentEventMap['model_reply']).ms)} ms` };
    case 'repair_request': {
      const e = p as AgentEventMap['repair_request'];
      const which = e.patches.map((n) => `#${n}`).join(', ');
      return {
        kind: 'step',
        text: `Asking once more for patch${e.patches.length === 1 ? '' : 'es'} ${which}: ${e.firstError}`,
      };
    }
    case 'repair_reply': {
      const e = p as AgentEventMap['repair_reply'];
      return {
        kind: e.applied ? 'step' : 'error',
        text: `Repair received in ${formatCount(e.ms)} ms: ${e.applied ? 'the plan applies' : 'the plan still does not apply'}`,
      };
    }
    case 'read_file':
      return { kind: 'file', text: `Read ${escapeTerminal((p as AgentEventMap['read_file']).path, 'line')}` };
    case 'rewrite_done': {
      const e = p as AgentEventMap['rewrite_done'];
      return { kind: 'step', text: `Rule #${e.index + 1}: ${e.matches} matches in ${e.files} files` };
    }
    case 'diffs': {
      const n = (p as AgentEventMap['diffs']).diffs.length;
      return { kind: 'step', text: `${counted(n, 'file')} changed (Tab to scroll the diff)` };
    }
    case 'write_file':
      return { kind: 'file', text: `Wrote ${escapeTerminal((p as AgentEventMap['write_file']).path, 'line')}` };
    case 'run_tests':
      return { kind: 'command', text: `Running ${(p as AgentEventMap['run_tests']).command}` };
    case 'command_done': {
      const e = p as AgentEventMap['command_done'];
      return { kind: e.exitCode === 0 ? 'command' : 'error', text: `${e.command} exited ${e.exitCode ?? 'by signal'}` };
    }
    case 'error':
      return { kind: 'error', text: (p as AgentEventMap['error']).message };
    case 'success': {
      const e = p as AgentEventMap['success'];
      const n = e.filesWritten.length;
      return { kind: 'success', text: n > 0 ? `${e.message} · wrote ${counted(n, 'file')}` : e.message };
    }
    default:
      return null;
  }
}

const ICON: Record<FeedKind, { icon: string; color: string }> = {
  task: { icon: '❯', color: 'cyan' },
  step: { icon: '•', color: 'blue' },
  file: { icon: '▸', color: 'white' },
  command: { icon: '$', color: 'yellow' },
  error: { icon: '✖', color: 'red' },
  success: { icon: '✔', color: 'green' },
};

/** The last `maxItems` feed lines, oldest at the top, each truncated to one terminal row. */
export function ActivityFeed({ items, maxItems }: { items: readonly FeedItem[]; maxItems: number }) {
  const shown = items.slice(-Math.max(1, maxItems));
  if (shown.length === 0) {
    return <Text dimColor>Type a task below and press Enter.</Text>;
  }
  return (
    <Box flexDirection="column">
      {shown.map((item) => (
        <Text key={item.id} wrap="truncate-end">
          <Text color={ICON[item.kind].color}>{ICON[item.kind].icon} </Text>
          <Text color={item.kind === 'error' ? 'red' : undefined}>{item.text}</Text>
        </Text>
      ))}
    </Box>
  );
}
