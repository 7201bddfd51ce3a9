import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { pathOutside, realOrSelf } from '../../utils/executable.js';
import { configuredEditor } from '../../utils/git/ops.js';
import { escapeTerminal } from '../../utils/terminal-text.js';

/** Where the editor for the `e` review key came from, for messages and tests. */
export interface EditorChoice {
  /** The command line, as the person wrote it; run the way git runs it (see {@link editorCommand}). */
  command: string;
  /** `VISUAL`, `EDITOR`, `GIT_EDITOR`, git's `core.editor` or `default`. */
  source: 'VISUAL' | 'EDITOR' | 'GIT_EDITOR' | 'core.editor' | 'default';
}

/**
 * Choose the editor for the `e` review key: `$VISUAL`, then `$EDITOR`, then what git would use
 * (`$GIT_EDITOR`, then `core.editor` from the person's system and global git configuration, never the
 * project's: a downloaded tree's `.git/config` or include must not pick a program to run), then `vi`.
 *
 * @param env        environment read for VISUAL / EDITOR / GIT_EDITOR (and passed to git)
 * @param cwd        the project root (kept for `coreEditor`)
 * @param coreEditor reads `core.editor`; returns it or undefined (default: utils/git `configuredEditor`)
 * @returns the command and where it came from; never throws
 */
export async function chooseEditor(
  env: NodeJS.ProcessEnv,
  cwd: string,
  coreEditor: (env: NodeJS.ProcessEnv, cwd: string) => Promise<string | undefined> = (e) =>
    configuredEditor({ env: e }),
): Promise<EditorChoice> {
  const visual = env.VISUAL?.trim();
  if (visual) return { command: visual, source: 'VISUAL' };
  const editor = env.EDITOR?.trim();
  if (editor) return { command: editor, source: 'EDITOR' };
  const gitEditor = env.GIT_EDITOR?.trim();
  if (gitEditor) return { command: gitEditor, source: 'GIT_EDITOR' };
  const fromGit = await coreEditor(env, cwd);
  if (fromGit) return { command: fromGit, source: 'core.editor' };
  return { command: 'vi', source: 'default' };
}

/** Lines that start with this are the buffer's instructions and are removed from the edited text. */
const EDIT_HEADER_MARK = '#|';

/**
 * The buffer given to the editor: a short header (each line starting with {@link EDIT_HEADER_MARK})
 * saying what to do, then the hunk's new text exactly.
 */
export function editBuffer(text: string, path: string): string {
  const header = [
    // One line whatever the path holds: a newline in it would end the header early and leave text in the hunk.
    `${EDIT_HEADER_MARK} clawcode: edit the new text of this hunk of ${escapeTerminal(path, 'line')}, then save and quit.`,
    `${EDIT_HEADER_MARK} Lines starting with "${EDIT_HEADER_MARK}" are removed. Quit with an error (vi: :cq) to cancel the edit.`,
  ];
  return `${header.join('\n')}\n${text}`;
}

/** The edited text without the header lines {@link editBuffer} put at its top. */
export function stripEditHeader(buffer: string): string {
  let rest = buffer;
  while (rest.startsWith(EDIT_HEADER_MARK)) {
    const end = rest.indexOf('\n');
    rest = end === -1 ? '' : rest.slice(end + 1);
  }
  return rest;
}

/** Characters that make git run an editor through the shell (git's `prepare_shell_cmd`). */
const SHELL_CHARS = /[|&;<>()$`\\"' \t\n*?[#~=%]/;

/**
 * The program and arguments that open `file` in `editor` the way git opens its editor: a plain program name is
 * run directly with the file as its one argument; a command line with shell syntax in it (`code --wait`,
 * `vim -c 'set tw=72'`) is run as `sh -c '<editor> "$@"' <editor> <file>`, so the shell parses the person's own
 * editor setting and the file name is only ever data (`"$@"`), never shell text.
 *
 * @param editor  the editor command line ($VISUAL, $EDITOR, git's editor)
 * @param file    absolute path of the file to edit
 * @returns `file` and `args` for spawn without a shell
 */
export function editorCommand(editor: string, file: string): { file: string; args: string[] } {
  if (!SHELL_CHARS.test(editor)) return { file: editor, args: [file] };
  return { file: '/bin/sh', args: ['-c', `${editor} "$@"`, editor, file] };
}

/** The temp file's name: `hunk` and the extension (kept for syntax highlighting) if it is plain letters and digits. */
function tempName(path: string): string {
  const ext = extname(path).slice(1);
  return /^[A-Za-z0-9_+-]{1,16}$/.test(ext) ? `hunk.${ext}` : 'hunk.txt';
}

/**
 * Run `editor` on a temp file holding {@link editBuffer}, with the terminal handed over. The editor is
 * looked up on a PATH without relative folders and without folders inside `rootDir` (`node_modules/.bin`
 * under npx), so a program the project supplies is never started as the editor.
 *
 * @param rootDir  the project root
 * @returns the edited text (header removed), or null when the editor exits non-zero (cancel)
 */
export function editInEditor(editor: string, text: string, path: string, rootDir: string): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'clawcode-hunk-'));
  // The plan's path never names the temp file: only a plain extension is kept, so no byte of it reaches a command.
  const file = join(dir, tempName(path));
  try {
    writeFileSync(file, editBuffer(text, path));
    // Windows has no sh: cmd.exe parses the editor setting there, and the file name holds only safe characters.
    const run = process.platform === 'win32' ? { file: editor, args: [file] } : editorCommand(editor, file);
    const env = { ...process.env, PATH: pathOutside(realOrSelf(rootDir), process.env.PATH ?? '') };
    const result = spawnSync(run.file, run.args, { stdio: 'inherit', shell: process.platform === 'win32', env });
    return result.status === 0 ? stripEditHeader(readFileSync(file, 'utf8')) : null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
