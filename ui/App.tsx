import { useCallback, useRef, useState } from 'react';
import { Box, Text, useApp, useFocusManager, useInput, useStdin, useStdout } from 'ink';
import type { AgentEmitter } from '../agent/events.js';
import { ActivityFeed, type FeedKind } from './ActivityFeed.js';
import { useAgentFeed } from './agent-feed.js';
import { DiffView } from './DiffView.js';
import { Header } from './Header.js';
import { InputPrompt } from './InputPrompt.js';
import { Logo } from './Logo.js';
import { PICK_ROWS, PickBox, QuestionBox } from './Questions.js';
import { StatusBar, type UiMode } from './StatusBar.js';
import type { TuiHeader, TuiTaskHooks } from '../cli/interactive/tui-hooks.js';
import { noAnswer, taskHooks, type Pick, type Question } from './task-hooks.js';

/** Props of the TUI root; `runTask` is the lead's flow, run with an AbortSignal the TUI controls. */
export interface AppProps {
  rootDir: string;
  provider: string;
  model: string;
  branch?: string;
  emitter: AgentEmitter;
  runTask: (task: string, signal: AbortSignal, hooks: TuiTaskHooks) => Promise<void>;
  /**
   * A line starting with `:` (`:undo`, `:model`, `:project`, …): run like a task, with the same hooks;
   * resolves to 'exit' when the command leaves. Absent: only `:help` and `:exit` are known.
   */
  command?: (line: string, signal: AbortSignal, hooks: TuiTaskHooks) => Promise<'exit' | 'done'>;
  /** Earlier inputs of this project, oldest first. */
  history?: readonly string[];
  /** Called with each submitted line and the project it was typed in (`:project` moves it), e.g. to persist history. */
  onSubmitted?: (task: string, rootDir: string) => void;
  /** A short memory label for the status bar. */
  memory?: string;
  /** Text typed before the TUI started (while the project picker was on screen): the input starts with it. */
  initialInput?: string;
}

const EXIT_WORDS = new Set([':exit', ':quit', ':q', 'exit', 'quit']);
/** The TUI's own keys, shown under the commands `:help` lists. */
const KEYS_HELP = 'Keys: Esc cancels a running task · Tab scrolls the diff · Ctrl-C leaves';

/** True for errors that mean "cancelled": InterruptedError (exit 130), AbortError, inquirer's exit. */
function isCancel(error: unknown): boolean {
  const e = error as { exitCode?: number; name?: string } | null;
  return e?.exitCode === 130 || e?.name === 'AbortError' || e?.name === 'ExitPromptError';
}

/** The open question and its pending answer; `answer(key)` closes it with `key`. */
function useQuestion() {
  const [question, setQuestion] = useState<Question | null>(null);
  const answerRef = useRef<{ resolve: (key: string) => void; question: Question } | null>(null);
  const answer = useCallback((key: string) => {
    const open = answerRef.current;
    answerRef.current = null;
    setQuestion(null);
    open?.resolve(key);
  }, []);
  return { question, setQuestion, answerRef, answer };
}

/**
 * The keys of the TUI: an open list takes every key; an open question takes its answer keys (Enter: the first choice; Esc: no; Ctrl-C:
 * no, and cancel the task); otherwise Esc cancels a running task and Ctrl-C cancels it or, when idle, leaves.
 */
function useTuiKeys(options: {
  answerRef: ReturnType<typeof useQuestion>['answerRef'];
  answer: (key: string) => void;
  controller: { current: AbortController | null };
  cancel: () => void;
  /** A list is open: its own keys (ui/Questions.tsx PickBox) answer it. */
  picking: boolean;
}): void {
  const { answerRef, answer, controller, cancel } = options;
  const { exit } = useApp();
  const { focus } = useFocusManager();
  useInput((input, key) => {
    if (options.picking) return;
    if (answerRef.current) {
      const q = answerRef.current.question;
      // Keys typed quickly can arrive together ("xy"): the first one that is an answer counts.
      const typed = [...input.toLowerCase()].map((ch) => q.choices.find((c) => c.key === ch)).find(Boolean);
      if (key.ctrl && input === 'c') {
        answer(noAnswer(q));
        cancel();
      } else if (typed) answer(typed.key);
      else if (key.return) answer(q.choices[0]!.key);
      else if (key.escape) answer(noAnswer(q));
      // Any other key is not an answer: the question stays open.
      if (key.escape) focus('input');
      return;
    }
    if (key.ctrl && input === 'c') {
      // A second Ctrl-C while cancelling leaves, as in the shell.
      if (controller.current && !controller.current.signal.aborted) cancel();
      else exit();
    } else if (key.escape) {
      // Ink clears focus on Esc before this handler runs; Esc here means "cancel / back to the input".
      if (controller.current) cancel();
      focus('input');
    }
  });
}

/**
 * Rows for the parts of the screen: whether the logo shows, the feed's rows and the diff window's height.
 * @param rows  the terminal's height; `items` and `diffs` the feed and diff lengths; `question` the open one
 */
function screenLayout(rows: number, items: number, diffs: number, question: Question | null, pick: Pick | null) {
  // The logo is a splash: once work shows, its 5 rows go to the feed and the diff (unless the terminal is tall).
  const showLogo = rows >= 36 || (rows >= 16 && items === 0);
  // Rows left for the feed and the diff once the fixed parts (logo, header, status, input box) are drawn.
  const free = Math.max(4, rows - (showLogo ? 5 : 0) - 1 - 1 - 3 - 1);
  // The question box grows by its detail lines (and a legend line when it offers more than y/n).
  // A list box is taller still: its rows and a footer line, in place of the input's one line.
  const questionExtra = pick
    ? Math.min(PICK_ROWS, Math.max(1, pick.choices.length)) + 1
    : question
      ? question.details.length + (question.choices.length > 2 ? 1 : 0)
      : 0;
  const room = Math.max(4, free - questionExtra);
  // With a diff, the feed keeps its last lines (at most 40% of the room) and the diff box takes the
  // rest of the screen; its box adds 3 rows (two borders and its footer) to its window.
  const feedRows = diffs > 0 ? Math.max(2, Math.min(items || 1, Math.floor(room * 0.4))) : room;
  const diffHeight = diffs > 0 ? Math.max(3, room - feedRows - 3) : 0;
  return { showLogo, feedRows, diffHeight };
}

/** Show in the feed how a run ended: "Task cancelled." when it was, its error when it failed; never rejects. */
function feedOutcome(run: Promise<void>, signal: AbortSignal, push: (kind: FeedKind, text: string) => void) {
  return run.then(
    () => {
      if (signal.aborted) push('error', 'Task cancelled.');
    },
    (error: unknown) => {
      if (signal.aborted || isCancel(error)) push('error', 'Task cancelled.');
      else push('error', error instanceof Error ? error.message : String(error));
    },
  );
}

/** The open list and its pending pick; `done(value)` closes it with `value` (undefined: backed out). */
function usePick() {
  const [pick, setPick] = useState<Pick | null>(null);
  const pending = useRef<((value: string | undefined) => void) | null>(null);
  const done = useCallback((value: string | undefined) => {
    const resolve = pending.current;
    pending.current = null;
    setPick(null);
    resolve?.(value);
  }, []);
  return { pick, setPick, pending, done };
}

/**
 * `handOver` for the hooks: the terminal goes to `run` (an editor) in cooked mode, then comes back in raw
 * mode and the whole screen is drawn again, since the program may have drawn over it.
 */
function useHandOver() {
  const { stdin } = useStdin();
  const { write } = useStdout();
  return useCallback(
    <T,>(run: () => T): T => {
      const raw = stdin.isTTY && stdin.isRaw;
      if (raw) stdin.setRawMode(false);
      try {
        return run();
      } finally {
        if (raw) stdin.setRawMode(true);
        // Ink's write clears its frame, writes this (clear the screen, cursor home) and draws the frame anew.
        write('\u001b[2J\u001b[3J\u001b[H');
      }
    },
    [stdin, write],
  );
}

/**
 * The TUI: Logo → Header → ActivityFeed → DiffView (when a plan has diffs) → StatusBar →
 * InputPrompt (or the open question or list). Agent events feed the activity list; Enter runs a task or
 * a `:command`; Esc or Ctrl-C cancels a running task; Ctrl-C when idle (or `:exit`) leaves.
 */
export function App(props: AppProps) {
  const { exit } = useApp();
  const typedAhead = useRef(props.initialInput ?? '');
  const { focus } = useFocusManager();
  const { stdout } = useStdout();
  const columns = stdout.columns || 80;
  const rows = stdout.rows || 24;
  const { items, diffs, setDiffs, tokens, activity, push, clearFeed } = useAgentFeed(props.emitter);
  const [mode, setMode] = useState<UiMode>('ready');
  const [header, setHeader] = useState<TuiHeader>({
    provider: props.provider,
    model: props.model,
    rootDir: props.rootDir,
    branch: props.branch,
  });
  const [history, setHistory] = useState<string[]>([...(props.history ?? [])]);
  const controller = useRef<AbortController | null>(null);
  const { question, setQuestion, answerRef, answer } = useQuestion();
  const { pick, setPick, pending, done } = usePick();
  const handOver = useHandOver();

  const cancel = useCallback(() => {
    if (!controller.current || controller.current.signal.aborted) return;
    setMode('cancelling');
    controller.current.abort();
  }, []);
  useTuiKeys({ answerRef, answer, controller, cancel, picking: pick !== null });

  /** Run a task or a command with the hooks, then show how it ended and get ready for the next line. */
  const start = useCallback(
    (run: (signal: AbortSignal, hooks: TuiTaskHooks) => Promise<void>) => {
      const ac = new AbortController();
      controller.current = ac;
      setMode('running');
      const hooks = taskHooks({
        signal: ac.signal,
        ask: (q, resolve) => {
          answerRef.current = { resolve, question: q };
          setQuestion(q);
          setMode('asking');
        },
        offer: (list, resolve) => {
          pending.current = resolve;
          setPick(list);
          setMode('picking');
        },
        resume: () => setMode('running'),
        setDiffs,
        push,
        setHeader,
        handOver,
      });
      void feedOutcome(run(ac.signal, hooks), ac.signal, push).finally(() => {
        if (answerRef.current) answer(noAnswer(answerRef.current.question));
        if (pending.current) done(undefined);
        controller.current = null;
        setMode('ready');
        focus('input');
      });
    },
    [answer, answerRef, done, focus, handOver, pending, push, setDiffs, setPick, setQuestion],
  );

  const submit = useCallback(
    (line: string) => {
      if (controller.current) return;
      // The typed-ahead text is used once: a later input (after a question) starts empty.
      typedAhead.current = '';
      if (EXIT_WORDS.has(line)) {
        exit();
        return;
      }
      setHistory((h) => (h.at(-1) === line ? h : [...h, line]));
      props.onSubmitted?.(line, header.rootDir);
      push('task', line);
      if (!line.startsWith(':')) {
        setDiffs([]);
        start((signal, hooks) => props.runTask(line, signal, hooks));
        return;
      }
      // `:` starts a command, never a task: nothing typed as `:undo` (or a typo of it) reaches the model.
      const command = props.command;
      if (!command) {
        if (line === ':help') push('step', KEYS_HELP);
        else push('error', `Unknown command ${line} (not sent to the model).`);
        return;
      }
      // `:clear` starts the screen afresh: its own answer is the first line of the new feed.
      if (line === ':clear') {
        clearFeed();
        setDiffs([]);
      }
      start(async (signal, hooks) => {
        if ((await command(line, signal, hooks)) === 'exit') return exit();
        if (line === ':help') push('step', KEYS_HELP);
      });
    },
    [clearFeed, exit, header.rootDir, props, push, setDiffs, start],
  );

  const layout = screenLayout(rows, items.length, diffs.length, question, pick);
  return (
    <Box flexDirection="column" width={columns}>
      {layout.showLogo ? <Logo columns={columns} /> : null}
      <Header provider={header.provider} model={header.model} rootDir={header.rootDir} branch={header.branch} />
      <ActivityFeed items={items} maxItems={layout.feedRows} />
      {diffs.length > 0 ? <DiffView diffs={diffs} height={layout.diffHeight} /> : null}
      <StatusBar
        mode={mode}
        answerKeys={question ? question.choices.map((c) => c.key).join('/') : undefined}
        model={header.model}
        inputTokens={tokens.input}
        outputTokens={tokens.output}
        activity={activity}
        memory={props.memory}
      />
      {pick ? (
        <PickBox pick={pick} onDone={done} />
      ) : question ? (
        <QuestionBox question={question} />
      ) : (
        <InputPrompt
          onSubmit={submit}
          history={history}
          disabled={mode !== 'ready'}
          initialValue={typedAhead.current}
        />
      )}
      {columns < 40 ? <Text dimColor>(narrow terminal)</Text> : null}
    </Box>
  );
}
