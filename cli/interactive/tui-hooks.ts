import { Writable } from 'node:stream';
import type { TaskFlags } from '../flags.js';
import type { TaskReport } from '../task/flow.js';
import type { ReviewableChange } from '../task/review-terminal.js';
import type { ReviewAnswer } from '../task/review.js';
import { makeUnifiedDiff } from '../../utils/diff.js';
import { getGitInfo } from '../../utils/git/ops.js';
import { runColonCommand } from './colon-commands.js';
import { sessionHandlers, type LiveSession } from './session.js';

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
 * What the TUI offers a running task or command (declared here, on the cli floor, and implemented by
 * ui/task-hooks.ts): questions answered with one key, lists to pick from,
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
  showDiff(diffs: readonly { file: string; diff: string }[]): void;
  /** Add a line to the activity feed (`kind` picks its icon; default a step). */
  print(line: string, kind?: 'step' | 'file' | 'command' | 'error' | 'success' | 'task'): void;
  /** Show a new provider, model or project in the header. */
  setHeader(header: TuiHeader): void;
  /**
   * Hand the terminal to `run` (a program such as the person's editor, run synchronously with the
   * terminal inherited): keys are not read and nothing is drawn until it returns; then the screen is redrawn.
   */
  handOver<T>(run: () => T): T;
}

/** A stream that hands each complete line written to it (colours removed) to `onLine`. */
export function lines(onLine: (line: string) => void): NodeJS.WritableStream {
  let pending = '';
  return new Writable({
    write(chunk: Buffer | string, _enc, done) {
      pending += chunk.toString().replace(/\u001b\[[0-9;]*m/g, '');
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      for (const line of parts) if (line.trim()) onLine(line);
      done();
    },
  });
}

/** Collects the `  $ command` lines the flow prints; `take()` returns those since the last take. */
export function commandLines(): { stream: NodeJS.WritableStream; take(): string[] } {
  let seen: string[] = [];
  const stream = lines((line) => {
    if (/^\s+\$ /.test(line)) seen.push(line.trim());
  });
  return {
    stream,
    take() {
      const out = seen;
      seen = [];
      return out;
    },
  };
}

/**
 * How a task ended, in the feed: a declined plan says so and leaves the diff pane (it was never
 * written), a written one names its run for `:undo`.
 */
export function showTaskOutcome(report: Pick<TaskReport, 'status' | 'runId'>, hooks: TuiTaskHooks): void {
  if (report.status === 'declined' || report.status === 'not_confirmed') {
    hooks.showDiff([]);
    hooks.print('Declined: nothing written.', 'error');
  } else if (report.status === 'applied' && report.runId) {
    hooks.print(`:undo takes it back (run ${report.runId})`);
  }
}

/**
 * One `:command` in the TUI, through the shared dispatcher (cli/interactive/colon-commands.ts): lines go to
 * the feed, lists to the TUI's list box, and the header follows `:project`, `:provider` and `:model`.
 *
 * @param undo  `:undo` with the TUI's confirmation
 * @returns 'exit' for `:exit`, else 'done'
 */
export async function runTuiCommand(options: {
  line: string;
  live: LiveSession;
  flags: TaskFlags;
  hooks: TuiTaskHooks;
  undo: (rootDir: string) => Promise<void>;
}): Promise<'exit' | 'done'> {
  const { line, live, flags, hooks } = options;
  const handlers = sessionHandlers(live, flags, { ask: false, stderr: lines((text) => hooks.print(text, 'error')) });
  const shown = () => `${live.rootDir}\n${live.provider.name}\n${live.provider.model}`;
  const before = shown();
  const outcome = await runColonCommand(
    line,
    live,
    { ...handlers, undo: options.undo },
    {
      say: (text) => hooks.print(text),
      error: (text) => hooks.print(text, 'error'),
      pick: (message, choices) => hooks.pick(message, choices),
    },
  );
  // Only a switch redraws the header: at once, then with the git branch (`:add` and the like answer at once).
  if (shown() !== before) {
    const header = { provider: live.provider.name, model: live.provider.model, rootDir: live.rootDir };
    hooks.setHeader(header);
    const git = await getGitInfo(live.rootDir);
    if (git.branch) hooks.setHeader({ ...header, branch: git.branch });
  }
  return outcome;
}

/**
 * The flow's confirmation in the TUI: y writes all, n nothing, r reviews hunk by hunk (cli/task/review.ts)
 * with each hunk in the diff pane and y/n/a/s/e/q keys; `e` hands the terminal to the person's editor
 * (cli/task/editor.ts: `$VISUAL`, `$EDITOR`, git's editor, `vi`) for the hunk's new text.
 *
 * @param rootDir  the project, where git looks for `core.editor`
 */
export async function reviewInTui(
  changes: readonly (ReviewableChange & { diff?: string })[],
  hooks: TuiTaskHooks,
  rootDir: string,
): Promise<{ path: string; after: string }[] | null> {
  const count = changes.length;
  const answer = await hooks.choose(`Apply these changes to ${count} file${count === 1 ? '' : 's'}?`, [
    { key: 'y', label: 'yes, write all' },
    { key: 'n', label: 'no, write nothing' },
    { key: 'r', label: 'review hunk by hunk' },
  ]);
  if (answer === 'n') return null;
  if (answer === 'y') return changes.map((c) => ({ path: c.path, after: c.after }));
  const { reviewChanges } = await import('../task/review.js');
  const { chooseEditor, editInEditor } = await import('../task/editor.js');
  const labels: Record<string, string> = {
    y: 'yes',
    n: 'no',
    a: 'rest of file',
    s: 'skip file',
    e: 'edit',
    q: 'quit, write nothing',
  };
  let shown = '';
  // Chosen on the first `e` only: finding git's editor asks git, which a review without edits never needs.
  let editor: Awaited<ReturnType<typeof chooseEditor>> | undefined;
  const result = await reviewChanges(
    changes.map((c) => ({ path: c.path, before: c.beforeText ?? '', after: c.after })),
    {
      ask: async (question, choices) => {
        hooks.showDiff([{ file: question, diff: shown }]);
        return (await hooks.choose(
          question,
          choices.map((key) => ({ key, label: labels[key] ?? key })),
        )) as ReviewAnswer;
      },
      print: (text) => {
        shown = text.replace(/^\n/, '');
      },
      edit: async (text, path) => {
        const chosen = (editor ??= await chooseEditor(process.env, rootDir));
        const edited = hooks.handOver(() => editInEditor(chosen.command, text, path, rootDir));
        if (edited === null)
          hooks.print(`Edit cancelled (${chosen.command}, from ${chosen.source}, exited with an error).`, 'error');
        return edited;
      },
    },
    { color: false },
  );
  // Once every hunk is answered, the pane shows what will be written: the hunks taken, as edited.
  const before = new Map(changes.map((c) => [c.path, c.beforeText]));
  hooks.showDiff(
    result.quit
      ? []
      : result.accepted.map((a) => ({
          file: a.path,
          diff: makeUnifiedDiff(a.path, before.get(a.path) ?? null, a.after),
        })),
  );
  return result.quit ? null : result.accepted;
}
