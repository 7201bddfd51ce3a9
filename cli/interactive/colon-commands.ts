import { resolve } from 'node:path';
import { ClawcodeError } from '../../utils/errors.js';
import { escapeTerminal } from '../../utils/terminal-text.js';
import { isPromptExit } from '../console/interrupt.js';
import { validateProjectPath } from './projects.js';
import { clearCarriedFiles, carriedFilesCommand, type CarriedFiles } from '../../agent/context/carried-files.js';

/**
 * The `:commands` every interactive surface takes — the shell (`--shell`), the "What next?" loop and the
 * TUI — from one list and one dispatcher, so a line starting with `:` is never sent to the model and `:help`
 * names the same commands everywhere. Each surface passes its own handlers (what a command does there)
 * and its own I/O (how it shows a line or offers a list).
 */

/** One command of the list `:help` shows. */
export interface ColonCommand {
  name: string;
  usage: string;
  help: string;
}

/** Every `:command`, in the order `:help` lists them; `:quit` and `:q` are `:exit` too. */
export const COLON_COMMANDS: readonly ColonCommand[] = [
  { name: ':help', usage: ':help', help: 'this list' },
  { name: ':project', usage: ':project [path]', help: 'switch the project folder' },
  { name: ':provider', usage: ':provider [name]', help: 'switch the provider' },
  { name: ':model', usage: ':model [id]', help: "switch the model (from the server's list)" },
  { name: ':undo', usage: ':undo', help: 'undo the last run' },
  { name: ':add', usage: ':add <path>', help: "pin a file into the next tasks' context" },
  { name: ':drop', usage: ':drop <path>', help: 'unpin a file, or forget one kept from the last task' },
  { name: ':files', usage: ':files', help: 'list pinned files and files kept from the last task' },
  { name: ':clear', usage: ':clear', help: 'clear the screen; the next task starts with no files' },
  { name: ':exit', usage: ':exit', help: 'leave' },
];

const EXIT_COMMANDS = new Set([':exit', ':quit', ':q']);

/** Whether `line` (trimmed) is one of the commands that leave: `:exit`, `:quit`, `:q`. */
export function isExitCommand(line: string): boolean {
  return EXIT_COMMANDS.has(line.trim().split(/\s+/)[0] ?? '');
}

/** The lines `:help` shows: one per command, each under 72 characters so it fits an 80-column feed. */
export function colonHelpLines(): string[] {
  const width = Math.max(...COLON_COMMANDS.map((c) => c.usage.length)) + 2;
  return COLON_COMMANDS.map((c) => `${c.usage.padEnd(width)}${c.help}`);
}

/** One entry of a list to choose from: `value` is what is returned, `name` what is shown. */
export interface PickChoice {
  name: string;
  value: string;
  /** Shown beside or under the entry, e.g. "opened 3 hours ago". */
  description?: string;
}

/** How a surface shows a command's outcome and offers a list. */
export interface ColonIo {
  /** One line (or a few) for the person. */
  say(text: string): void;
  /** One line saying what went wrong. */
  error(text: string): void;
  /**
   * Offer `choices` and resolve to the value picked, or undefined when the person backs out.
   * Absent where nobody can be asked (piped input): commands then want their argument typed.
   */
  pick?(message: string, choices: readonly PickChoice[]): Promise<string | undefined>;
  /** `:clear`'s screen part, where there is a screen to clear. */
  clearScreen?(): void;
}

/** What the commands act on; each is optional, and a command whose handler is absent says it is not available. */
export interface ColonHandlers {
  /** Files carried between tasks (`:add`, `:drop`, `:files`; `:clear` empties it). */
  files?: CarriedFiles;
  /** `:provider [name]`: switch provider (no name: the default); resolves to a label, e.g. "openai · gpt-4o-mini". */
  switchProvider?: (name: string | undefined) => Promise<string | void>;
  /** `:provider` with a list to pick from: the configured providers. */
  providerChoices?: () => Promise<PickChoice[]>;
  /** `:model <id>`: use this model from now on; resolves to a label. */
  switchModel?: (id: string) => Promise<string | void>;
  /** `:model`: the models the provider lists, or undefined when it has no list to offer. */
  modelChoices?: () => Promise<string[] | undefined>;
  /** `:project`: move to this (checked, absolute) folder: its settings, its history. */
  switchProject?: (rootDir: string) => Promise<void>;
  /** `:project` with a list to pick from: the folders to offer from `rootDir`. */
  projectChoices?: (rootDir: string) => Promise<PickChoice[]>;
  /** `:undo`: undo the last run in `rootDir` (printing its own outcome, or resolving to a line to show). */
  undo?: (rootDir: string) => Promise<string | void>;
}

/** The project the commands run in; `:project` changes `rootDir`. */
export interface ColonState {
  rootDir: string;
}

/** True for the errors a cancelled action ends with: our InterruptedError, AbortError, inquirer's exit. */
export function isCancel(error: unknown): boolean {
  if (error instanceof ClawcodeError) return error.exitCode === 130;
  return (error as { name?: string } | null)?.name === 'AbortError' || isPromptExit(error);
}

/**
 * Run one `:command` line. Failures of the handlers are shown through `raw.error` (with the error's hint),
 * never thrown; a cancelled pick or prompt says "Cancelled.". Every line shown through `raw` is escaped first.
 *
 * @param line  the whole typed line, starting with `:`
 * @returns 'exit' for `:exit`, `:quit` and `:q`; else 'done'
 */
export async function runColonCommand(
  line: string,
  state: ColonState,
  handlers: ColonHandlers,
  raw: ColonIo,
): Promise<'exit' | 'done'> {
  const [command = '', ...rest] = line.trim().split(/\s+/);
  const arg = rest.join(' ') || undefined;
  if (EXIT_COMMANDS.has(command)) return 'exit';
  // What the commands show quotes paths a plan named (`:files` lists the files kept from the last task), typed
  // arguments and error messages: controls are shown, never obeyed, on every surface that runs them.
  const io: ColonIo = {
    ...raw,
    say: (text) => raw.say(escapeTerminal(text)),
    error: (text) => raw.error(escapeTerminal(text)),
  };
  try {
    await dispatch(command, rest, arg, state, handlers, io);
  } catch (error) {
    if (isCancel(error)) io.say('Cancelled.');
    else showError(io, error);
  }
  return 'done';
}

/** An error as one line, and its hint under it. */
function showError(io: ColonIo, error: unknown): void {
  io.error(error instanceof Error ? error.message : String(error));
  const hint = error instanceof ClawcodeError ? error.hint : undefined;
  if (hint) io.say(`  ${hint}`);
}

async function dispatch(
  command: string,
  rest: readonly string[],
  arg: string | undefined,
  state: ColonState,
  handlers: ColonHandlers,
  io: ColonIo,
): Promise<void> {
  switch (command) {
    case ':help':
      io.say(['Type a task and press Enter to run it. Commands:', ...colonHelpLines().map((l) => `  ${l}`)].join('\n'));
      return;
    case ':clear':
      io.clearScreen?.();
      if (handlers.files) clearCarriedFiles(handlers.files);
      io.say('Cleared: the next task starts clean.');
      return;
    case ':add':
    case ':drop':
    case ':files':
      if (!handlers.files) return io.say('Pinning files is not available here.');
      for (const shown of carriedFilesCommand(handlers.files, [command, ...rest].join(' ')) ?? []) io.say(shown);
      return;
    case ':provider':
      return switchProvider(arg, handlers, io);
    case ':model':
      return switchModel(arg, handlers, io);
    case ':undo': {
      if (!handlers.undo) return io.say('Undo is not available here.');
      const shown = await handlers.undo(state.rootDir);
      if (shown) io.say(shown);
      return;
    }
    case ':project':
      return switchProject(arg, state, handlers, io);
    default:
      io.error(`Unknown command ${command} (not sent to the model). Type :help for the list.`);
  }
}

async function switchProvider(arg: string | undefined, handlers: ColonHandlers, io: ColonIo): Promise<void> {
  if (!handlers.switchProvider) return io.say('Switching providers is not available here.');
  let name = arg;
  if (!name && io.pick && handlers.providerChoices) {
    const choices = await handlers.providerChoices();
    if (choices.length > 1) {
      name = await io.pick('Which provider?', choices);
      if (!name) return io.say('Provider unchanged.');
    }
  }
  const label = await handlers.switchProvider(name);
  io.say(`Provider: ${label ?? name ?? 'changed'}`);
}

async function switchModel(arg: string | undefined, handlers: ColonHandlers, io: ColonIo): Promise<void> {
  if (!handlers.switchModel) return io.say('Switching models is not available here.');
  let id = arg;
  if (!id) {
    const ids = io.pick ? await handlers.modelChoices?.() : undefined;
    if (!ids || ids.length === 0 || !io.pick)
      return io.say('Usage: :model <id>' + (io.pick ? ' (this provider lists no models)' : ''));
    id = await io.pick(
      'Which model?',
      ids.map((m) => ({ name: m, value: m })),
    );
    if (!id) return io.say('Model unchanged.');
  }
  const label = await handlers.switchModel(id);
  io.say(`Model: ${escapeTerminal(label ?? id, 'line')}`);
}

/** `:project [path]`: move to the folder at `arg` (checked first), or to the one picked from the list. */
async function switchProject(
  arg: string | undefined,
  state: ColonState,
  handlers: ColonHandlers,
  io: ColonIo,
): Promise<void> {
  let next: string;
  if (arg) {
    const verdict = await validateProjectPath(arg, state.rootDir);
    if (verdict !== true) return io.error(verdict);
    next = resolve(state.rootDir, arg);
  } else if (io.pick && handlers.projectChoices) {
    const picked = await io.pick('Which project?', await handlers.projectChoices(state.rootDir));
    if (!picked) return io.say('Project unchanged.');
    next = picked;
  } else {
    return io.say('Usage: :project <path>');
  }
  await handlers.switchProject?.(next);
  state.rootDir = next;
  io.say(`Project: ${escapeTerminal(next, 'line')}`);
}
