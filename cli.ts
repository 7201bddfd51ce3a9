#!/usr/bin/env node
// Entry: argument parsing and branching only (docs/architecture.md). Every action imports its module lazily,
// so `--version` and `--help` load commander and nothing heavy (no SDK, no Ink).
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { ClawcodeError, UsageError } from './utils/errors.js';
import { DEFAULT_BUDGET_CHARS, DEFAULT_TIMEOUT_MS } from './utils/defaults.js';
import { ignoreClosedPipes } from './cli/console/closed-pipe.js';
import { endOnSigterm, isTerminating, TERMINATED_EXIT_CODE } from './cli/console/interrupt.js';
import type { TaskFlags } from './cli/flags.js';
import {
  MIN_BUDGET_CHARS,
  MIN_TIMEOUT_MS,
  refuseJsonWithEvents,
  refuseUnanswerableRun,
  wholeNumberAtLeast,
} from './cli/flag-checks.js';
import {
  addConfigCommand,
  addContextCommand,
  addPlanFileCommands,
  addSetupCommands,
  addRunCommands,
  type OutputModes,
} from './cli/program-commands.js';
import { addHelpCommand, commandNames, refuseCommandLikeTask } from './cli/help.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

/** Set by the action that runs: how reportError prints an error. */
const modes: OutputModes = { json: false, debug: false };

const budgetFlag = wholeNumberAtLeast('--budget', MIN_BUDGET_CHARS, 'characters');
const timeoutFlag = wholeNumberAtLeast('--timeout', MIN_TIMEOUT_MS, 'ms');

/** The main job's program: its description, version, help and the options of a task (no action yet). */
function mainCommand(): Command {
  return (
    new Command('clawcode')
      .description('Turn one sentence into a reviewed, atomic, undoable set of code edits.')
      .version(pkg.version, '-v, --version', 'print the version')
      // -V as well, as commander, cargo and python spell it.
      .addOption(new Option('-V').hideHelp())
      .on('option:V', () => {
        process.stdout.write(`${pkg.version}\n`);
        throw new CommanderError(0, 'commander.version', pkg.version);
      })
      .helpOption('-h, --help', 'show help')
      .argument('[task...]', 'what to change, in plain words')
      .option('-d, --dir <path>', 'project root (default: current folder)')
      .option('-p, --provider <name>', 'provider or config entry to use (openai, azure, groq, gemini, ollama, …)')
      .option('-m, --model <id>', 'model (Azure: deployment) to use')
      .option(
        '--budget <chars>',
        `context budget in characters (default: a share of the model's context window, ${DEFAULT_BUDGET_CHARS} when it is small or unknown; at least ${MIN_BUDGET_CHARS})`,
        budgetFlag,
      )
      .option(
        '--timeout <ms>',
        `provider request timeout in ms (default ${DEFAULT_TIMEOUT_MS}, or CLAWCODE_TIMEOUT_MS; at least ${MIN_TIMEOUT_MS})`,
        timeoutFlag,
      )
      .option('--dry-run', 'show the plan and diffs, write nothing')
      .option('-y, --yes', 'apply edits without asking (commands still need --run-commands)')
      .option('--run-commands', "run the plan's allow-listed build/test commands without asking, in the sandbox")
      .option('--allow-network', 'let plan and verify commands use the network in the sandbox (default: none)')
      .option('--json', 'print one JSON report on stdout; never prompt')
      .option('-q, --quiet', 'print only questions, warnings, errors and the outcome (no plan, diffs or summary)')
      .option('--events', 'print one JSON line per pipeline event on stdout (CI); never prompt')
      .option('--plan-out <file>', 'also save the plan (with base hashes) for `clawcode apply`')
      .option('--print-prompt', 'print the exact prompt for pasting into any chat model; no model call')
      .option('--any-folder', 'scan the folder even when it is no project (a big non-git folder, the home folder)')
      .option('--task-file <path>', 'read the task from a file (- or a lone - task: standard input)')
      .option('--verify', "after writing, run the project's test command (or the settings' verifyCommand)")
      .option('--verify-cmd <command>', 'after writing, run this command to verify the change')
      .option('--rollback-on-fail', 'restore the files when the verify command fails (exit 4)')
      .option('--commit', 'git-commit exactly the written files, with the task as the message')
      .option('--commit-hooks', "with --commit: let git run the repository's commit hooks (and sign)")
      .option(
        '--files <pathspec...>',
        'files the task must cover (git pathspecs or globs; put the task first); split into shards over the budget',
      )
      .option(
        '--grep <regex>',
        'cover every file with a line matching this JavaScript regex (repeatable)',
        (v: string, prev: string[] = []) => [...prev, v],
      )
      .option('--wide', 'a change across many files: one scope request finds them, then one plan request per shard')
      .option(
        '--concurrency <n>',
        'wide changes: plan requests in flight (default 4)',
        wholeNumberAtLeast('--concurrency', 1, 'requests'),
      )
      .option('--partial', 'wide changes with --yes: write the shards that planned even if others failed')
      .option('--no-repair', 'when patches do not apply, do not ask the model once more for those patches')
      .option('--debug', 'show stack traces and request details (never keys)')
      .option('--shell', 'start an interactive REPL')
      .option('--ui', 'start the full-screen terminal UI')
      .addOption(new Option('--no-color', 'disable colours (NO_COLOR is honoured too)'))
      .showHelpAfterError('(run clawcode --help for usage)')
      // Commander's messages read like every other error (cli/console/errors.ts; no colour: chalk loads lazily).
      .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'clawcode: ')) })
      .enablePositionalOptions()
      .exitOverride()
  );
}

/**
 * The main job's action: check the flag combinations, then branch to the REPL (`--shell`), the TUI (`--ui`, or a
 * terminal with no task) or one task (cli/task/command.ts), whose exit code it sets.
 * @throws UsageError for flags that cannot go together, and for a one-word task that names a command
 */
async function runMain(taskWords: string[], flags: TaskFlags, commands: readonly string[]): Promise<void> {
  modes.json = Boolean(flags.json);
  modes.debug = Boolean(flags.debug);
  refuseCommandLikeTask(taskWords, commands);
  const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  refuseJsonWithEvents(flags);
  const taskFile = flags.taskFile ?? (taskWords.length === 1 && taskWords[0] === '-' ? '-' : undefined);
  if (taskFile !== undefined && (flags.shell || flags.ui || (flags.taskFile && taskWords.length > 0))) {
    throw new UsageError('--task-file (or -) gives the whole task: no task words beside it, no --shell or --ui.');
  }
  if ((flags.shell || flags.ui) && (flags.json || flags.events)) {
    throw new UsageError('--shell and --ui are interactive; they cannot be combined with --json or --events.');
  }
  if (
    (flags.shell || flags.ui) &&
    (flags.verify || flags.verifyCmd || flags.rollbackOnFail || flags.commit || flags.commitHooks || flags.planOut)
  ) {
    throw new UsageError(
      '--verify, --rollback-on-fail, --commit, --commit-hooks and --plan-out apply to a single task, not to --shell or --ui.',
    );
  }
  if (flags.shell && !flags.ui) {
    const { runShell } = await import('./cli/interactive/start.js');
    return runShell(flags);
  }
  const { readTaskSource, refuseTaskTakenByFiles } = await import('./cli/task/task-source.js');
  if (taskWords.length === 0 && taskFile === undefined && !flags.ui) refuseTaskTakenByFiles(flags.files);
  if (
    flags.ui ||
    (terminal && taskWords.length === 0 && taskFile === undefined && !flags.json && !flags.events && !flags.printPrompt)
  ) {
    const { runTui } = await import('./cli/interactive/start.js');
    return runTui(flags);
  }
  // Before the provider is even resolved: a run nobody can confirm must not cost a model call. A task read
  // from standard input leaves no terminal to answer on.
  if (taskWords.length > 0 || taskFile !== undefined) {
    refuseUnanswerableRun('task', flags, terminal && taskFile !== '-');
  }
  const task = taskFile === undefined ? taskWords.join(' ').trim() : await readTaskSource(taskFile);
  const { runTaskCommand } = await import('./cli/task/command.js');
  process.exitCode = await runTaskCommand(task, flags);
}

/** The whole command line: the main job and every subcommand. */
function buildProgram(): Command {
  const program = mainCommand();
  program.action((words: string[], flags: TaskFlags) => runMain(words, flags, commandNames(program)));
  // In this order for --help.
  addConfigCommand(program, modes);
  addSetupCommands(program);
  addPlanFileCommands(program, modes);
  addContextCommand(program, modes);
  addRunCommands(program, modes);
  addHelpCommand(program);
  return program;
}

/** Print an error the way a person (or a --json consumer) can act on, and return its exit code. */
async function reportError(error: unknown): Promise<number> {
  if (error instanceof CommanderError) {
    if (
      error.code === 'commander.helpDisplayed' ||
      error.code === 'commander.version' ||
      error.code === 'commander.help'
    )
      return 0;
    return 2; // commander already printed the message
  }
  if (error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError')) return 130; // Ctrl-C at a prompt
  if (error instanceof ClawcodeError && error.exitCode === 0 && !modes.json) {
    // A person's no (exit 0) is not an error: said plainly.
    const { escapeTerminal } = await import('./utils/terminal-text.js');
    process.stderr.write(`${escapeTerminal(error.message)}\n`);
    return 0;
  }
  if (error instanceof ClawcodeError && modes.json) {
    const { code, message, hint, exitCode } = error;
    process.stdout.write(JSON.stringify({ error: { code, message, hint, exitCode } }) + '\n');
    return exitCode;
  }
  const { errorText } = await import('./cli/console/errors.js');
  process.stderr.write(errorText(error, modes.debug));
  return error instanceof ClawcodeError ? error.exitCode : 1;
}

async function main(argv: string[]): Promise<void> {
  ignoreClosedPipes();
  endOnSigterm();
  if (process.env.NO_COLOR || argv.includes('--no-color')) {
    // chalk 5 ignores NO_COLOR; ora and boxen share this instance.
    const { default: chalk } = await import('chalk');
    chalk.level = 0;
  }
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    process.exitCode = await reportError(error);
  }
  if (isTerminating()) process.exitCode = TERMINATED_EXIT_CODE;
}

await main(process.argv);
