import { useCallback, useEffect, useRef, useState } from 'react';
import type { AgentEmitter } from '../agent/events.js';
import { escapeTerminal } from '../utils/terminal-text.js';
import { describeEvent, formatCount, type FeedItem, type FeedKind } from './ActivityFeed.js';
import type { FileDiff } from './DiffView.js';

/** Feed lines kept; older ones scroll away. */
const MAX_FEED_ITEMS = 200;

/**
 * The activity feed, the diff pane, the token totals and the activity line, fed by the agent's events.
 * Tokens add up every request the provider reported: each plan (`model_reply`) and each repair (`repair_reply`).
 * @returns them, with `push` (add feed lines; controls shown as text, one item per line) and `setDiffs`
 */
export function useAgentFeed(emitter: AgentEmitter) {
  const [items, setItems] = useState<FeedItem[]>([]);
  const [diffs, setDiffs] = useState<FileDiff[]>([]);
  const [tokens, setTokens] = useState({ input: 0, output: 0 });
  const [activity, setActivity] = useState<string | undefined>(undefined);
  const nextId = useRef(0);

  const push = useCallback((kind: FeedKind, text: string) => {
    // Feed text quotes tasks, paths, commands and errors from the model or files: show controls, never obey them.
    const lines = text.split('\n').map((line) => ({ id: nextId.current++, kind, text: escapeTerminal(line) }));
    setItems((list) => [...list, ...lines].slice(-MAX_FEED_ITEMS));
  }, []);

  useEffect(
    () =>
      emitter.onAny((name, payload) => {
        if (name === 'diffs') setDiffs([...(payload as { diffs: FileDiff[] }).diffs]);
        if (name === 'model_progress')
          setActivity(`${formatCount((payload as { chars: number }).chars)} chars received`);
        else if (name === 'model_request') setActivity('waiting for the provider');
        else if (name !== 'read_file') setActivity(undefined);
        if (name === 'model_reply' || name === 'repair_reply') {
          const r = payload as { inputTokens?: number; outputTokens?: number };
          setTokens((t) => ({ input: t.input + (r.inputTokens ?? 0), output: t.output + (r.outputTokens ?? 0) }));
        }
        const line = describeEvent(name, payload);
        if (line) push(line.kind, line.text);
      }),
    [emitter, push],
  );
  const clearFeed = useCallback(() => setItems([]), []);
  return { items, diffs, setDiffs, tokens, activity, push, clearFeed };
}
