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

/** What the TUI offers a running task: a yes/no question answered with y/n (Enter = yes, Esc = no). */
export interface TuiTaskHooks {
  confirm(message: string): Promise<boolean>;
}

/** Props of the TUI root; `runTask` is the lead's flow, run with an AbortSignal the TUI controls. */
export interface AppProps {
  rootDir: string;
  provider: string;
  model: string;
  branch?: string;
  emitter: AgentEmitter;
  runTask: (task: string, signal: AbortSignal, hooks: TuiTaskHooks) => Promise<void>;
  /** Earlier inputs of this project, oldest first. */
  history?: readonly string[];
  /** Called with each submitted task, e.g. to persist history. */
  onSubmitted?: (task: string) => void;
  /** A short memory label for the status bar. */
  memory?: string;
}

const EXIT_WORDS = new Set([':exit', ':quit', ':q', 'exit', 'quit']);

/** True for errors that mean "cancelled": InterruptedError (exit 130), AbortError, inquirer's exit. */
function isCancel(error: unknown): boolean {
  const e = error as { exitCode?: number; name?: string } | null;
  return e?.exitCode === 130 || e?.name === 'AbortError' || e?.name === 'ExitPromptError';
}

/**
 * The TUI (reference §3.6): Logo → Header → ActivityFeed → DiffView (when a plan has diffs) → StatusBar →
 * InputPrompt. Agent events feed the activity list; Enter runs a task; Esc or Ctrl-C cancels a running
 * task; Ctrl-C when idle (or `:exit`) leaves.
 */
export function App(props: AppProps) {
  const { exit } = useApp();
  const { focus } = useFocusManager();
  const { stdout } = useStdout();
  const columns = stdout.columns || 80;
  const rows = stdout.rows || 24;
  const [items, setItems] = useState<FeedItem[]>([]);
  const [diffs, setDiffs] = useState<FileDiff[]>([]);
  const [mode, setMode] = useState<UiMode>('ready');
  const [tokens, setTokens] = useState({ input: 0, output: 0 });
  const [activity, setActivity] = useState<string | undefined>(undefined);
  const [history, setHistory] = useState<string[]>([...(props.history ?? [])]);
  const nextId = useRef(0);
  const controller = useRef<AbortController | null>(null);
  const [question, setQuestion] = useState<string | null>(null);
  const answerRef = useRef<((yes: boolean) => void) | null>(null);

  const answer = useCallback((yes: boolean) => {
    const resolve = answerRef.current;
    answerRef.current = null;
    setQuestion(null);
    resolve?.(yes);
  }, []);

  const push = useCallback((kind: FeedKind, text: string) => {
    const id = nextId.current++;
    // Feed text quotes tasks, paths, commands and errors from the model or files: show controls, never obey them.
    setItems((list) => [...list, { id, kind, text: escapeControls(text) }].slice(-200));
  }, []);

  useEffect(
    () =>
      props.emitter.onAny((name, payload) => {
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
    [props.emitter, push],
  );

  const cancel = useCallback(() => {
    if (!controller.current || controller.current.signal.aborted) return;
    setMode('cancelling');
    controller.current.abort();
  }, []);

  useInput((input, key) => {
    if (answerRef.current) {
      if (input === 'y' || input === 'Y' || key.return) answer(true);
      else if (input === 'n' || input === 'N' || key.escape) answer(false);
      else if (key.ctrl && input === 'c') {
        answer(false);
        cancel();
      }
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

  const submit = useCallback(
    (task: string) => {
      if (controller.current) return;
      if (EXIT_WORDS.has(task)) {
        exit();
        return;
      }
      setHistory((h) => (h.at(-1) === task ? h : [...h, task]));
      props.onSubmitted?.(task);
      push('task', task);
      setDiffs([]);
      const ac = new AbortController();
      controller.current = ac;
      setMode('running');
      props
        .runTask(task, ac.signal, {
          confirm: (message) =>
            new Promise<boolean>((resolve) => {
              if (ac.signal.aborted) return resolve(false);
              // Deferred: the Enter that submitted the task is still being dispatched to the other
              // input handlers, and must not answer the question as well.
              queueMicrotask(() => {
                answerRef.current = resolve;
                setQuestion(escapeControlsKeepColor(message));
              });
            }),
        })
        .then(
          () => {
            if (ac.signal.aborted) push('error', 'Task cancelled.');
          },
          (error: unknown) => {
            if (ac.signal.aborted || isCancel(error)) push('error', 'Task cancelled.');
            else push('error', error instanceof Error ? error.message : String(error));
          },
        )
        .finally(() => {
          if (answerRef.current) answer(false);
          controller.current = null;
          setMode('ready');
          focus('input');
        });
    },
    [answer, exit, focus, props, push],
  );

  // The logo is a splash: once work shows, its 5 rows go to the feed and the diff (unless the terminal is tall).
  const showLogo = rows >= 36 || (rows >= 16 && items.length === 0);
  // Rows left for the feed and the diff once the fixed parts (logo, header, status, input box) are drawn.
  const free = Math.max(4, rows - (showLogo ? 5 : 0) - 1 - 1 - 3 - 1);
  // The diff box adds 3 rows (two borders and its footer) to its window.
  const diffHeight = diffs.length > 0 ? Math.max(3, Math.floor(free * 0.6) - 3) : 0;
  const feedRows = Math.max(2, free - (diffs.length > 0 ? diffHeight + 3 : 0));

  return (
    <Box flexDirection="column" width={columns}>
      {showLogo ? <Logo columns={columns} /> : null}
      <Header provider={props.provider} model={props.model} rootDir={props.rootDir} branch={props.branch} />
      <ActivityFeed items={items} maxItems={feedRows} />
      {diffs.length > 0 ? <DiffView diffs={diffs} height={diffHeight} /> : null}
      <StatusBar
        mode={mode}
        model={props.model}
        inputTokens={tokens.input}
        outputTokens={tokens.output}
        activity={activity}
        memory={props.memory}
      />
      {question ? (
        <Box borderStyle="round" borderColor="yellow" paddingX={1}>
          <Text wrap="truncate-end">
            <Text color="yellow">? </Text>
            <Text bold>{question}</Text>
            <Text dimColor> (y/n)</Text>
          </Text>
        </Box>
      ) : (
        <InputPrompt onSubmit={submit} history={history} disabled={mode !== 'ready'} />
      )}
      {columns < 40 ? <Text dimColor>(narrow terminal)</Text> : null}
    </Box>
  );
}
