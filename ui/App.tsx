import { useCallback, useEffect, useRef, useState } from 'react';
import { Box, Text, useApp, useFocusManager, useInput, useStdout } from 'ink';
import type { AgentEmitter } from '../agent/events.js';
import { escapeControls, escapeControlsKeepColor } from '../utils/terminal-text.js';
import { ActivityFeed, describeEvent, type FeedItem, type FeedKind } from './ActivityFeed.js';
import { DiffView, type FileDiff } from './DiffView.js';
import { Header } from './Header.js';
import { InputPrompt } from './InputPrompt.js';
import { Logo } from './Logo.js';
import { StatusBar, type UiMode } from './StatusBar.js';

/** One answer of a TUI question: the key that gives it and what it means. */
export interface TuiChoice {
  key: string;
  label: string;
}

/**
 * What the TUI offers a running task: questions answered with one key, the diff pane, and the feed.
 * `confirm` is a yes/no question (y or Enter = yes, n or Esc = no); `choose` offers `choices` (the
 * first is the Enter default; Esc picks `n` when offered); `details` are lines shown under the
 * question (the commands a "Run this command?" is about).
 */
export interface TuiTaskHooks {
  confirm(message: string, details?: readonly string[]): Promise<boolean>;
  choose(message: string, choices: readonly TuiChoice[], details?: readonly string[]): Promise<string>;
  /** Show these diffs (or one hunk, as a diff) in the diff pane. */
  showDiff(diffs: readonly FileDiff[]): void;
  /** Add a line to the activity feed. */
  print(line: string): void;
}

/** A question waiting for its one-key answer. */
interface Question {
  message: string;
  choices: readonly TuiChoice[];
  details: readonly string[];
}

const YES_NO: readonly TuiChoice[] = [
  { key: 'y', label: 'yes' },
  { key: 'n', label: 'no' },
];

/** Props of the TUI root; `runTask` is the lead's flow, run with an AbortSignal the TUI controls. */
export interface AppProps {
  rootDir: string;
  provider: string;
  model: string;
  branch?: string;
  emitter: AgentEmitter;
  runTask: (task: string, signal: AbortSignal, hooks: TuiTaskHooks) => Promise<void>;
  /** `:undo`: undo the last run of this project (asks through `hooks`); absent = not offered. */
  undo?: (signal: AbortSignal, hooks: TuiTaskHooks) => Promise<void>;
  /** Earlier inputs of this project, oldest first. */
  history?: readonly string[];
  /** Called with each submitted task, e.g. to persist history. */
  onSubmitted?: (task: string) => void;
  /** A short memory label for the status bar. */
  memory?: string;
  /** Text typed before the TUI started (while the project picker was on screen): the input starts with it. */
  initialInput?: string;
  /**
   * `:add`, `:drop`, `:files`, `:clear`: change or show the files the next task keeps. Returns the
   * lines to show, or undefined when the line is not such a command; absent = not offered.
   */
  filesCommand?: (line: string) => string[] | undefined;
}

const EXIT_WORDS = new Set([':exit', ':quit', ':q', 'exit', 'quit']);
const HELP = ':undo undo the last run · :exit leave · Esc cancel a running task · Tab scroll the diff';
const FILES_HELP = ':add/:drop <path> pin or unpin a file · :files list kept files · :clear start clean';

/** True for errors that mean "cancelled": InterruptedError (exit 130), AbortError, inquirer's exit. */
function isCancel(error: unknown): boolean {
  const e = error as { exitCode?: number; name?: string } | null;
  return e?.exitCode === 130 || e?.name === 'AbortError' || e?.name === 'ExitPromptError';
}

/** The answer that means "no": `n`, else `q`, else the last choice. */
function noAnswer(q: Question): string {
  return (
    q.choices.find((c) => c.key === 'n')?.key ?? q.choices.find((c) => c.key === 'q')?.key ?? q.choices.at(-1)!.key
  );
}

/**
 * The activity feed, the diff pane, the token totals and the activity line, fed by the agent's events.
 * @returns them, with `push` (add a feed line, controls shown as text) and `setDiffs` for the task hooks
 */
function useAgentFeed(emitter: AgentEmitter) {
  const [items, setItems] = useState<FeedItem[]>([]);
  const [diffs, setDiffs] = useState<FileDiff[]>([]);
  const [tokens, setTokens] = useState({ input: 0, output: 0 });
  const [activity, setActivity] = useState<string | undefined>(undefined);
  const nextId = useRef(0);

  const push = useCallback((kind: FeedKind, text: string) => {
    const id = nextId.current++;
    // Feed text quotes tasks, paths, commands and errors from the model or files: show controls, never obey them.
    setItems((list) => [...list, { id, kind, text: escapeControls(text) }].slice(-200));
  }, []);

  useEffect(
    () =>
      emitter.onAny((name, payload) => {
        if (name === 'diffs') setDiffs([...(payload as { diffs: FileDiff[] }).diffs]);
        if (name === 'model_progress') setActivity(`${(payload as { chars: number }).chars} chars received`);
        else if (name === 'model_request') setActivity('waiting for the provider');
        else if (name !== 'read_file') setActivity(undefined);
        if (name === 'model_reply') {
          const r = payload as { inputTokens?: number; outputTokens?: number };
          setTokens((t) => ({ input: t.input + (r.inputTokens ?? 0), output: t.output + (r.outputTokens ?? 0) }));
        }
        const line = describeEvent(name, payload);
        if (line) push(line.kind, line.text);
      }),
    [emitter, push],
  );
  return { items, diffs, setDiffs, tokens, activity, push };
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
 * The keys of the TUI: an open question takes its answer keys (Enter: the first choice; Esc: no; Ctrl-C:
 * no, and cancel the task); otherwise Esc cancels a running task and Ctrl-C cancels it or, when idle, leaves.
 */
function useTuiKeys(options: {
  answerRef: ReturnType<typeof useQuestion>['answerRef'];
  answer: (key: string) => void;
  controller: { current: AbortController | null };
  cancel: () => void;
}): void {
  const { answerRef, answer, controller, cancel } = options;
  const { exit } = useApp();
  const { focus } = useFocusManager();
  useInput((input, key) => {
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
function screenLayout(rows: number, items: number, diffs: number, question: Question | null) {
  // The logo is a splash: once work shows, its 5 rows go to the feed and the diff (unless the terminal is tall).
  const showLogo = rows >= 36 || (rows >= 16 && items === 0);
  // Rows left for the feed and the diff once the fixed parts (logo, header, status, input box) are drawn.
  const free = Math.max(4, rows - (showLogo ? 5 : 0) - 1 - 1 - 3 - 1);
  // The question box grows by its detail lines (and a legend line when it offers more than y/n).
  const questionExtra = question ? question.details.length + (question.choices.length > 2 ? 1 : 0) : 0;
  const room = Math.max(4, free - questionExtra);
  // With a diff, the feed keeps its last lines (at most 40% of the room) and the diff box takes the
  // rest of the screen; its box adds 3 rows (two borders and its footer) to its window.
  const feedRows = diffs > 0 ? Math.max(2, Math.min(items || 1, Math.floor(room * 0.4))) : room;
  const diffHeight = diffs > 0 ? Math.max(3, room - feedRows - 3) : 0;
  return { showLogo, feedRows, diffHeight };
}

/**
 * What a `:` line shows instead of running: the help for `:help`, an error for any command but a
 * runnable `:undo` (so a typo never reaches the model).
 * @returns the feed line, or undefined to run the line (a task, or `:undo` when offered)
 */
function commandNotice(task: string, canUndo: boolean): { kind: FeedKind; text: string } | undefined {
  // `:` starts a TUI command, never a task: nothing typed as `:undo` (or a typo of it) reaches the model.
  if (!task.startsWith(':')) return undefined;
  if (task === ':help') return { kind: 'step', text: HELP };
  if (task !== ':undo' || !canUndo)
    return { kind: 'error', text: `Unknown command ${task} (not sent to the model). ${HELP}` };
  return undefined;
}

/**
 * The hooks one run gets: a question opens through `open` (at once answered "no" once `signal` aborted)
 * and puts the mode back to running when answered; diffs go to the pane, lines to the feed.
 */
function taskHooks(options: {
  signal: AbortSignal;
  open: (question: Question, resolve: (key: string) => void) => void;
  setMode: (mode: UiMode) => void;
  setDiffs: (diffs: FileDiff[]) => void;
  push: (kind: FeedKind, text: string) => void;
}): TuiTaskHooks {
  const { signal, open, setMode, setDiffs, push } = options;
  const choose = (message: string, choices: readonly TuiChoice[], details: readonly string[] = []) =>
    new Promise<string>((resolve) => {
      const q: Question = {
        message: escapeControlsKeepColor(message),
        choices,
        details: details.map(escapeControls),
      };
      if (signal.aborted) return resolve(noAnswer(q));
      // Deferred: the Enter that submitted the task is still being dispatched to the other
      // input handlers, and must not answer the question as well.
      queueMicrotask(() => open(q, resolve));
    }).finally(() => {
      if (!signal.aborted) setMode('running');
    });
  return {
    choose,
    confirm: async (message, details) => (await choose(message, YES_NO, details)) === 'y',
    showDiff: (next) => setDiffs([...next]),
    print: (line) => push('step', line),
  };
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

/** The open question: its message and keys, its detail lines, and a legend when it offers more than y/n. */
function QuestionBox({ question }: { question: Question }) {
  return (
    <Box borderStyle="round" borderColor="yellow" paddingX={1} flexDirection="column">
      <Text wrap="truncate-end">
        <Text color="yellow">? </Text>
        <Text bold>{question.message}</Text>
        <Text dimColor> ({question.choices.map((c) => c.key).join('/')})</Text>
      </Text>
      {question.details.map((line, i) => (
        <Text key={i} wrap="truncate-end">
          {line}
        </Text>
      ))}
      {question.choices.length > 2 ? (
        <Text dimColor wrap="truncate-end">
          {question.choices.map((c) => `${c.key} ${c.label}`).join(' · ')}
        </Text>
      ) : null}
    </Box>
  );
}

/**
 * The TUI: Logo → Header → ActivityFeed → DiffView (when a plan has diffs) → StatusBar →
 * InputPrompt. Agent events feed the activity list; Enter runs a task; Esc or Ctrl-C cancels a running
 * task; Ctrl-C when idle (or `:exit`) leaves.
 */
export function App(props: AppProps) {
  const { exit } = useApp();
  const typedAhead = useRef(props.initialInput ?? '');
  const { focus } = useFocusManager();
  const { stdout } = useStdout();
  const columns = stdout.columns || 80;
  const rows = stdout.rows || 24;
  const { items, diffs, setDiffs, tokens, activity, push } = useAgentFeed(props.emitter);
  const [mode, setMode] = useState<UiMode>('ready');
  const [history, setHistory] = useState<string[]>([...(props.history ?? [])]);
  const controller = useRef<AbortController | null>(null);
  const { question, setQuestion, answerRef, answer } = useQuestion();

  const cancel = useCallback(() => {
    if (!controller.current || controller.current.signal.aborted) return;
    setMode('cancelling');
    controller.current.abort();
  }, []);
  useTuiKeys({ answerRef, answer, controller, cancel });

  const submit = useCallback(
    (task: string) => {
      if (controller.current) return;
      // The typed-ahead text is used once: a later input (after a question) starts empty.
      typedAhead.current = '';
      if (EXIT_WORDS.has(task)) {
        exit();
        return;
      }
      setHistory((h) => (h.at(-1) === task ? h : [...h, task]));
      props.onSubmitted?.(task);
      push('task', task);
      const shown = task.startsWith(':') ? props.filesCommand?.(task) : undefined;
      if (shown) {
        for (const line of shown) push('step', line);
        return;
      }
      // The feed truncates long lines: the file commands get a help line of their own.
      if (task === ':help' && props.filesCommand) push('step', FILES_HELP);
      const notice = commandNotice(task, Boolean(props.undo));
      if (notice) {
        push(notice.kind, notice.text);
        return;
      }
      const ac = new AbortController();
      controller.current = ac;
      setMode('running');
      const open = (q: Question, resolve: (key: string) => void) => {
        answerRef.current = { resolve, question: q };
        setQuestion(q);
        setMode('asking');
      };
      const hooks = taskHooks({ signal: ac.signal, open, setMode, setDiffs, push });
      setDiffs([]);
      const run = task === ':undo' && props.undo ? props.undo(ac.signal, hooks) : props.runTask(task, ac.signal, hooks);
      void feedOutcome(run, ac.signal, push).finally(() => {
        if (answerRef.current) answer(noAnswer(answerRef.current.question));
        controller.current = null;
        setMode('ready');
        focus('input');
      });
    },
    [answer, exit, focus, props, push],
  );

  const { showLogo, feedRows, diffHeight } = screenLayout(rows, items.length, diffs.length, question);
  return (
    <Box flexDirection="column" width={columns}>
      {showLogo ? <Logo columns={columns} /> : null}
      <Header provider={props.provider} model={props.model} rootDir={props.rootDir} branch={props.branch} />
      <ActivityFeed items={items} maxItems={feedRows} />
      {diffs.length > 0 ? <DiffView diffs={diffs} height={diffHeight} /> : null}
      <StatusBar
        mode={mode}
        answerKeys={question ? question.choices.map((c) => c.key).join('/') : undefined}
        model={props.model}
        inputTokens={tokens.input}
        outputTokens={tokens.output}
        activity={activity}
        memory={props.memory}
      />
      {question ? (
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
