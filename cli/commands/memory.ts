import chalk from 'chalk';
import { cleanNote, clearProjectMemory, loadProjectMemory, type ProjectMemory } from '../../memory/memory.js';
import { rememberRun } from '../../agent/write-after.js';
import { UsageError } from '../../utils/errors.js';
import { plural } from '../console/render.js';
import { escapeTerminal, terminalJson } from '../../utils/terminal-text.js';

/** Options of `clawcode memory [clear]`. */
export interface MemoryCommandOptions {
  rootDir: string;
  /** `undefined` lists; `'clear'` forgets this project's memory; anything else is a usage error */
  action?: string;
  json?: boolean;
  homeDir?: string;
  stdout?: NodeJS.WritableStream;
}

/**
 * `clawcode memory` lists what clawcode remembers about this project and puts into later prompts:
 * notes from earlier runs (with the run that added each), recent tasks and files.
 * `clawcode memory clear` forgets all of it.
 *
 * @throws UsageError (exit 2) an action other than `clear`
 */
export async function runMemoryCommand(options: MemoryCommandOptions): Promise<void> {
  const stdout = options.stdout ?? process.stdout;
  if (options.action !== undefined && options.action !== 'clear') {
    throw new UsageError(`Unknown memory action ${JSON.stringify(options.action)}`, {
      hint: 'Use `clawcode memory` or `clawcode memory clear`.',
    });
  }
  if (options.action === 'clear') {
    const notes = await clearProjectMemory(options.rootDir, options.homeDir);
    stdout.write(
      options.json
        ? `${terminalJson({ cleared: true, notes })}\n`
        : `${chalk.green('✓')} Forgot this project's memory (${notes} note${notes === 1 ? '' : 's'}, ` +
            'recent tasks and files)\n',
    );
    return;
  }
  const memory = await loadProjectMemory(options.rootDir, options.homeDir);
  if (options.json) {
    stdout.write(`${terminalJson(memory)}\n`);
    return;
  }
  const lines: string[] = [];
  lines.push(chalk.bold('Notes') + chalk.dim(' (from the model, shown to it as data in later prompts)'));
  if (memory.notes.length === 0) lines.push(chalk.dim('  none'));
  for (const note of memory.notes) lines.push(`  - ${note.text} ${chalk.dim(`(run ${note.runId})`)}`);
  lines.push(chalk.bold('Recent tasks'));
  lines.push(...(memory.lastTasks.length ? memory.lastTasks.map((t) => `  - ${cleanNote(t)}`) : [chalk.dim('  none')]));
  lines.push(chalk.bold('Recent files'));
  lines.push(memory.recentFiles.length ? `  ${memory.recentFiles.map(cleanNote).join(', ')}` : chalk.dim('  none'));
  lines.push(chalk.dim('Forget all of it with: clawcode memory clear'));
  // Notes and tasks come from the model and the person: shown, never obeyed by the terminal.
  stdout.write(escapeTerminal(`${lines.join('\n')}\n`, 'colored'));
}

/** What {@link showNotesAndRemember} records after a task. */
export interface RememberRunOptions {
  rootDir: string;
  task: string;
  filesWritten: readonly string[];
  /** the plan's `agent_notes` */
  notes: readonly string[];
  /** the run id when the run was applied (not rolled back, not declined) */
  runId?: string;
  /** a person is at this terminal and output is not `--json`: the notes are shown, then stored */
  personAtTerminal: boolean;
  /** where output goes; absent under `--json` */
  print?: (text: string) => void;
  homeDir?: string;
}

/**
 * Save a finished task to memory. The model's notes are stored only when a person sees them: they
 * are printed here, in a terminal, for an applied run. Without a terminal (`--yes` in a script) or
 * under `--json` they are not stored, and one dim line says so.
 */
export async function showNotesAndRemember(options: RememberRunOptions): Promise<ProjectMemory> {
  const notes = options.notes.map(cleanNote).filter((n) => n !== '');
  const shown =
    notes.length > 0 && options.personAtTerminal && options.print !== undefined && options.runId !== undefined;
  if (shown) {
    const forget = chalk.dim('(remembered; `clawcode memory clear` forgets them)');
    const title = `${chalk.bold('Notes for later runs')} ${forget}`;
    options.print?.(`\n${title}\n` + notes.map((n) => `  - ${n}`).join('\n'));
  } else if (notes.length > 0 && options.runId !== undefined) {
    options.print?.(
      chalk.dim(`${plural(notes.length, 'model note')} not remembered: no person at a terminal saw them`),
    );
  }
  return rememberRun({
    rootDir: options.rootDir,
    task: options.task,
    filesWritten: options.filesWritten,
    agentNotes: notes,
    notesSeenByPerson: shown,
    runId: options.runId,
    homeDir: options.homeDir,
  });
}
