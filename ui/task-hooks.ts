import { escapeTerminal } from '../utils/terminal-text.js';
import type { TuiChoice, TuiHeader, TuiPickChoice, TuiTaskHooks } from '../cli/interactive/tui-hooks.js';
import type { FeedKind } from './ActivityFeed.js';
import type { FileDiff } from './DiffView.js';

/** A question waiting for its one-key answer. */
export interface Question {
  message: string;
  choices: readonly TuiChoice[];
  details: readonly string[];
}

/** A list waiting for a pick. */
export interface Pick {
  message: string;
  choices: readonly TuiPickChoice[];
}

const YES_NO: readonly TuiChoice[] = [
  { key: 'y', label: 'yes' },
  { key: 'n', label: 'no' },
];

/** The answer that means "no": `n`, else `q`, else the last choice. */
export function noAnswer(q: Question): string {
  return (
    q.choices.find((c) => c.key === 'n')?.key ?? q.choices.find((c) => c.key === 'q')?.key ?? q.choices.at(-1)!.key
  );
}

/**
 * The hooks one run gets: a question or a list opens through `ask` / `offer` (at once answered "no" /
 * nothing once `signal` aborted) and puts the mode back to running when answered; diffs go to the pane,
 * lines to the feed.
 */
export function taskHooks(options: {
  signal: AbortSignal;
  ask: (question: Question, resolve: (key: string) => void) => void;
  offer: (pick: Pick, resolve: (value: string | undefined) => void) => void;
  resume: () => void;
  setDiffs: (diffs: FileDiff[]) => void;
  push: (kind: FeedKind, text: string) => void;
  setHeader: (header: TuiHeader) => void;
  handOver: <T>(run: () => T) => T;
}): TuiTaskHooks {
  const { signal, ask, offer, resume } = options;
  // Deferred: the Enter that submitted the line is still being dispatched to the other input handlers,
  // and must not answer the question as well.
  const open = <T>(start: (resolve: (value: T) => void) => void, aborted: T) =>
    new Promise<T>((resolve) => {
      if (signal.aborted) return resolve(aborted);
      queueMicrotask(() => start(resolve));
    }).finally(() => {
      if (!signal.aborted) resume();
    });
  const choose = (message: string, choices: readonly TuiChoice[], details: readonly string[] = []) => {
    const q: Question = {
      message: escapeTerminal(message, 'colored'),
      choices,
      details: details.map((line) => escapeTerminal(line)),
    };
    return open<string>((resolve) => ask(q, resolve), noAnswer(q));
  };
  return {
    choose,
    confirm: async (message, details) => (await choose(message, YES_NO, details)) === 'y',
    pick: (message, choices) => {
      const shown: Pick = {
        message: escapeTerminal(message),
        choices: choices.map((c) => ({
          ...c,
          name: escapeTerminal(c.name),
          ...(c.description ? { description: escapeTerminal(c.description) } : {}),
        })),
      };
      return open<string | undefined>((resolve) => offer(shown, resolve), undefined);
    },
    showDiff: (next) => options.setDiffs([...next]),
    print: (line, kind = 'step') => options.push(kind, line),
    setHeader: options.setHeader,
    handOver: options.handOver,
  };
}
