import { escapeTerminal } from '../utils/terminal-text.js';
import type { FeedKind } from './ActivityFeed.js';
import type { FileDiff } from './DiffView.js';

/** One answer of a TUI question: the key that gives it and what it means. */
export interface TuiChoice {
  key: string;
  label: string;
}

/** One entry of a TUI list: `name` is shown (with `description` dimmed beside it), `value` returned. */
export interface TuiPickChoice {
  name: string;
  value: string;
  description?: string;
}

/** What the header shows: the session's provider entry, model and project (and its git branch). */
export interface TuiHeader {
  provider: string;
  model: string;
  rootDir: string;
  branch?: string;
}

/**
 * What the TUI offers a running task or command: questions answered with one key, lists to pick from,
 * the diff pane, the feed, the header, and the terminal itself for an editor.
 * `confirm` is a yes/no question (y or Enter = yes, n or Esc = no); `choose` offers `choices` (the
 * first is the Enter default; Esc picks `n` when offered); `details` are lines shown under the
 * question (the commands a "Run this command?" is about).
 */
export interface TuiTaskHooks {
  confirm(message: string, details?: readonly string[]): Promise<boolean>;
  choose(message: string, choices: readonly TuiChoice[], details?: readonly string[]): Promise<string>;
  /** Offer a list (type to narrow it, ↑/↓, Enter); resolves to the value picked, or undefined on Esc. */
  pick(message: string, choices: readonly TuiPickChoice[]): Promise<string | undefined>;
  /** Show these diffs (or one hunk, as a diff) in the diff pane; none clears it. */
  showDiff(diffs: readonly FileDiff[]): void;
  /** Add a line to the activity feed (`kind` picks its icon; default a step). */
  print(line: string, kind?: FeedKind): void;
  /** Show a new provider, model or project in the header. */
  setHeader(header: TuiHeader): void;
  /**
   * Hand the terminal to `run` (a program such as the person's editor, run synchronously with the
   * terminal inherited): keys are not read and nothing is drawn until it returns; then the screen is redrawn.
   */
  handOver<T>(run: () => T): T;
}

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
