import defaultChalk, { Chalk, type ChalkInstance } from 'chalk';
import { applyAcceptedHunks, splitHunks, type Hunk } from '../../utils/hunks.js';
import { escapeTerminal } from '../../utils/terminal-text.js';
import { chooseEditor, editInEditor, type EditorChoice } from './editor.js';

/** One file change offered for review; `before` is `''` for a new file. */
export interface ReviewChange {
  path: string;
  before: string;
  after: string;
}

/**
 * An answer at a hunk, as in `git add -p`: y yes, n no, a this and the rest of the file, s skip the rest
 * of the file (keeps hunks already accepted in it), q quit and write nothing, e edit the hunk's new text.
 */
export type ReviewAnswer = 'y' | 'n' | 'a' | 's' | 'q' | 'e';

/** The person, as the review sees them; injected so tests drive it without a terminal. */
export interface ReviewIo {
  /** Ask for one of `choices` (always includes y n a s q, and e when `edit` is set). */
  ask(question: string, choices: readonly ReviewAnswer[]): Promise<ReviewAnswer>;
  /** Show text (a hunk, a file header); no trailing newline expected. */
  print(text: string): void;
  /** Let the person edit `text` (the hunk's new side); resolves to the new text, or null to cancel. */
  edit?(text: string, path: string): Promise<string | null>;
}

/** What the review decided: only files with at least one accepted hunk, with their rebuilt content. */
export interface ReviewResult {
  accepted: { path: string; after: string }[];
  /** True when the person pressed q; `accepted` is then empty and nothing may be written. */
  quit: boolean;
}

/** Options for {@link reviewChanges}. */
export interface ReviewOptions {
  /** Colour the hunks. Default: when stdout supports colour and `NO_COLOR` is unset or empty (no-color.org). */
  color?: boolean;
  /** Environment read for NO_COLOR (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/**
 * Render one hunk for the terminal: a header naming the file and position, then the `@@` line and the
 * `-`/`+`/context lines (red/green/dim when `chalk.level > 0`). Carriage returns are not shown.
 */
function formatHunk(hunk: Hunk, total: number, chalk: ChalkInstance): string {
  const header = chalk.bold(`${escapeTerminal(hunk.path, 'line')} `) + chalk.dim(`(hunk ${hunk.index + 1}/${total})`);
  const range = chalk.cyan(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
  const body = hunk.lines.map((raw) => {
    const line = escapeTerminal(raw.replace(/\r$/, ''));
    if (line.startsWith('+')) return chalk.green(line);
    if (line.startsWith('-')) return chalk.red(line);
    if (line.startsWith('\\')) return chalk.dim(line);
    return chalk.dim(line);
  });
  return [header, range, ...body].join('\n');
}

/**
 * Per-hunk review of a set of file changes, like `git add -p`. For each file, each hunk is shown and the
 * person answers y / n / a / s / q (and e when `io.edit` exists). The accepted subset of each file is
 * rebuilt with `applyAcceptedHunks`, so the caller must re-check the result with the patch engine
 * before writing (the review itself never writes).
 *
 * @param changes  file changes; unchanged files are skipped without a question
 * @param io       prompt, print and optional editor
 * @returns accepted files in the input order, or `{ accepted: [], quit: true }` after q
 * @throws whatever `io.ask` throws (e.g. an aborted prompt); the caller treats it as a cancel
 */
export async function reviewChanges(
  changes: readonly ReviewChange[],
  io: ReviewIo,
  options: ReviewOptions = {},
): Promise<ReviewResult> {
  const color = options.color ?? (defaultChalk.level > 0 && !(options.env ?? process.env).NO_COLOR);
  const chalk = new Chalk({ level: color ? 1 : 0 });
  const choices: ReviewAnswer[] = io.edit ? ['y', 'n', 'a', 's', 'e', 'q'] : ['y', 'n', 'a', 's', 'q'];
  const accepted: ReviewResult['accepted'] = [];

  for (const change of changes) {
    const shown = escapeTerminal(change.path, 'line');
    const hunks = splitHunks(change.path, change.before, change.after);
    const take = new Set<string>();
    // Edited hunks replace their original; `applyAcceptedHunks` reads newText from this list.
    const finalHunks = [...hunks];
    let rest: 'ask' | 'accept' | 'skip' = 'ask';

    for (const [i, hunk] of hunks.entries()) {
      if (rest === 'accept') take.add(hunk.id);
      if (rest !== 'ask') continue;
      io.print(`\n${formatHunk(hunk, hunks.length, chalk)}`);
      let answer = await io.ask(`Apply this hunk to ${shown}?`, choices);
      while (answer === 'e' && io.edit) {
        const edited = await io.edit(finalHunks[i]!.newText, change.path);
        if (edited !== null) {
          finalHunks[i] = { ...hunk, newText: edited };
          // The edit is shown before it is taken: the person accepts what they will get.
          io.print(`\n${formatHunk(editedHunk(hunk, edited), hunks.length, chalk)}`);
          answer = await io.ask(`Apply the edited hunk to ${shown}?`, choices);
          if (answer === 'n' || answer === 's') finalHunks[i] = hunk;
          continue;
        }
        answer = await io.ask(`Apply this hunk to ${shown}?`, choices);
      }
      if (answer === 'q') return { accepted: [], quit: true };
      if (answer === 'y') take.add(hunk.id);
      if (answer === 'a') {
        take.add(hunk.id);
        rest = 'accept';
      }
      if (answer === 's') rest = 'skip';
    }
    if (take.size > 0) accepted.push({ path: change.path, after: applyAcceptedHunks(change.before, finalHunks, take) });
  }
  return { accepted, quit: false };
}

/** The hunk as edited: its old region against the person's text, for showing before it is taken. */
function editedHunk(hunk: Hunk, edited: string): Hunk {
  const [whole] = splitHunks(hunk.path, hunk.oldText, edited, { context: Number.MAX_SAFE_INTEGER });
  const lines =
    whole?.lines ??
    hunk.oldText
      .split('\n')
      .filter((l, i, all) => i < all.length - 1 || l !== '')
      .map((l) => ` ${l}`);
  const newLines = whole?.newLines ?? hunk.oldLines;
  return { ...hunk, lines, newLines, newText: edited };
}

const ANSWER_NAMES: Record<ReviewAnswer, string> = {
  y: 'yes, apply this hunk',
  n: 'no, leave it out',
  a: 'all remaining hunks in this file',
  s: 'skip the rest of this file',
  e: 'edit this hunk in your editor',
  q: 'quit, write nothing',
};

/**
 * The terminal `ReviewIo`: @inquirer/prompts `expand` for answers (one key, then Enter), stdout for
 * hunks, and for `e` the editor git would pick (cli/task/editor.ts: `$VISUAL`, `$EDITOR`,
 * `$GIT_EDITOR`, `core.editor`, then `vi`), run on a temp file with the terminal handed over.
 *
 * @param env  environment read for VISUAL/EDITOR (default process.env)
 * @param cwd  the project root: the editor is never a program found inside it (default the current folder)
 */
export function createConsoleReviewIo(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): ReviewIo {
  let editor: EditorChoice | undefined;
  return {
    async ask(question, choices) {
      const { expand } = await import('@inquirer/prompts');
      return expand<ReviewAnswer>({
        message: question,
        default: 'y',
        choices: choices.map((key) => ({ key, name: ANSWER_NAMES[key], value: key })),
      });
    },
    print(text) {
      process.stdout.write(`${text}\n`);
    },
    async edit(text, path) {
      editor ??= await chooseEditor(env, cwd);
      const edited = editInEditor(editor.command, text, path, cwd);
      if (edited === null)
        process.stdout.write(`Edit cancelled (${editor.command}, from ${editor.source}, exited with an error).\n`);
      return edited;
    },
  };
}
