#!/usr/bin/env node
// Entry: argument parsing and branching only (docs/architecture.md). Every action imports its module lazily,
// so `--version` and `--help` load commander and nothing heavy (no SDK, no Ink).
import { readFileSync } from 'node:fs';
import { Argument, Command, CommanderError, Option } from 'commander';
import { ClawcodeError, UsageError } from './utils/errors.js';
import { DEFAULT_BUDGET_CHARS, DEFAULT_TIMEOUT_MS } from './utils/defaults.js';
import { ignoreClosedPipes } from './cli/closed-pipe.js';
import {
  MIN_BUDGET_CHARS,
  MIN_TIMEOUT_MS,
  refuseJsonWithEvents,
  refuseUnanswerableRun,
  wholeNumberAtLeast,
} from './cli/flag-checks.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

/** Flags of the main job, as commander parses them. */
export interface TaskFlags {
  dir?: string;
  provider?: string;
  model?: string;
  budget?: number;
  timeout?: number;
  dryRun?: boolean;
  yes?: boolean;
  runCommands?: boolean;
  /** `--allow-network`: plan and verify commands keep the network inside the sandbox. */
  allowNetwork?: boolean;
  json?: boolean;
  debug?: boolean;
  shell?: boolean;
  ui?: boolean;
  color?: boolean;
  events?: boolean;
  planOut?: string;
  printPrompt?: boolean;
  /** `--verify`: run the project's test command (or the settings' verifyCommand) after writing. */
  verify?: boolean;
  /** `--verify-cmd <command>`: verify with this command. */
  verifyCmd?: string;
  rollbackOnFail?: boolean;
  commit?: boolean;
  /** `--files <pathspec...>`: files pinned into the context first; split into shards when they exceed the budget. */
  files?: string[];
  /** `--grep <regex>` (repeatable): files with matching lines, and the regions around the matches. */
  grep?: string[];
  /** `--wide`: one scope request finds the files, then sharded plans. */
  wide?: boolean;
  concurrency?: number;
  partial?: boolean;
  /** `--no-repair` sets false: no repair round for refused patches. */
  repair?: boolean;
}

let jsonMode = false;
let debugMode = false;

const budgetFlag = wholeNumberAtLeast('--budget', MIN_BUDGET_CHARS, 'characters');
const timeoutFlag = wholeNumberAtLeast('--timeout', MIN_TIMEOUT_MS, 'ms');

function buildProgram(): Command {
  const program = new Command('clawcode')
    .description('Turn one sentence into a reviewed, atomic, undoable set of code edits.')
    .version(pkg.version, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .argument('[task...]', 'what to change, in plain words')
    .option('-d, --dir <path>', 'project root (default: current folder)')
    .option('-p, --provider <name>', 'provider or config entry to use (openai, azure, groq, gemini, ollama, …)')
    .option('-m, --model <id>', 'model (Azure: deployment) to use')
    .option(
      '--budget <chars>',
      `context budget in characters (default 60000 for models with a 32k+ token window, else ${DEFAULT_BUDGET_CHARS}; at least ${MIN_BUDGET_CHARS})`,
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
    .option('--events', 'print one JSON line per pipeline event on stdout (CI); never prompt')
    .option('--plan-out <file>', 'also save the plan (with base hashes) for `clawcode apply`')
    .option('--print-prompt', 'print the exact prompt for pasting into any chat model; no model call')
    .option('--verify', "after writing, run the project's test command (or the settings' verifyCommand)")
    .option('--verify-cmd <command>', 'after writing, run this command to verify the change')
    .option('--rollback-on-fail', 'restore the files when the verify command fails (exit 4)')
    .option('--commit', 'git-commit exactly the written files, with the task as the message')
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
    .enablePositionalOptions()
    .exitOverride()
    .action(async (taskWords: string[], flags: TaskFlags) => {
      jsonMode = Boolean(flags.json);
      debugMode = Boolean(flags.debug);
      const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);
      refuseJsonWithEvents(flags);
      if ((flags.shell || flags.ui) && (flags.json || flags.events)) {
        throw new UsageError('--shell and --ui are interactive; they cannot be combined with --json or --events.');
      }
      if (
        (flags.shell || flags.ui) &&
        (flags.verify || flags.verifyCmd || flags.rollbackOnFail || flags.commit || flags.planOut)
      ) {
        throw new UsageError(
          '--verify, --rollback-on-fail, --commit and --plan-out apply to a single task, not to --shell or --ui.',
        );
      }
      if (flags.shell && !flags.ui) {
        const { runShell } = await import('./cli/interactive.js');
        return runShell(flags);
      }
      if (flags.ui || (terminal && taskWords.length === 0 && !flags.json && !flags.events && !flags.printPrompt)) {
        const { runTui } = await import('./cli/interactive.js');
        return runTui(flags);
      }
      // Before the provider is even resolved: a run nobody can confirm must not cost a model call.
      if (taskWords.length > 0) refuseUnanswerableRun('task', flags, terminal);
      const { runTaskCommand } = await import('./cli/task-command.js');
      process.exitCode = await runTaskCommand(taskWords.join(' ').trim(), flags);
    });

  program
    .command('config')
    .description('list, add, edit, remove or choose the default provider, set its model options, or show the settings')
    .addArgument(
      new Argument('[action]', 'what to do (default: a menu in a terminal)').choices([
        'list',
        'add',
        'edit',
        'remove',
        'default',
        'options',
        'show',
      ]),
    )
    .argument('[name]', 'provider entry (edit, remove, default, options) or provider kind (add, e.g. ollama)')
    .option('--show', 'print the merged settings and where each value comes from (same as `config show`)')
    .option('-d, --dir <path>', 'project root (for show)')
    .option('--json', 'with show: print JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  clawcode config list\n  clawcode config add ollama\n  clawcode config default work\n  clawcode config show --json',
    )
    .action(
      async (
        action: string | undefined,
        name: string | undefined,
        flags: { show?: boolean; dir?: string; json?: boolean },
      ) => {
        jsonMode = Boolean(flags.json);
        if (flags.show || action === 'show') {
          const [{ runConfigShow }, { resolveProjectRoot }] = await Promise.all([
            import('./cli/config-show.js'),
            import('./cli/project-root.js'),
          ]);
          await runConfigShow({
            rootDir: await resolveProjectRoot(flags.dir),
            env: process.env,
            flags: {},
            stdout: process.stdout,
            json: Boolean(flags.json),
          });
          return;
        }
        const { runConfigCommand } = await import('./cli/config.js');
        type Action = 'list' | 'add' | 'edit' | 'remove' | 'default' | 'options';
        await runConfigCommand({
          ...(action ? { action: action as Action } : {}),
          ...(name && action === 'add' ? { kind: name } : name ? { name } : {}),
        });
      },
    );

  program
    .command('init')
    .description('write a starter AGENTS.md from what is detected (never overwrites)')
    .option('-d, --dir <path>', 'project root')
    .action(async (flags: { dir?: string }) => {
      const [{ runInitCommand }, { resolveProjectRoot }] = await Promise.all([
        import('./cli/init-command.js'),
        import('./cli/project-root.js'),
      ]);
      await runInitCommand({ rootDir: await resolveProjectRoot(flags.dir), stdout: process.stdout });
    });

  program
    .command('trust')
    .description(
      "trust this project's .clawcode settings (verify command, allow rules, auto-commit, provider) as they are now",
    )
    .option('-d, --dir <path>', 'project root')
    .option('--revoke', 'stop trusting them')
    .action(async (flags: { dir?: string; revoke?: boolean }) => {
      const [{ runTrustCommand }, { resolveProjectRoot }] = await Promise.all([
        import('./cli/trust-prompt.js'),
        import('./cli/project-root.js'),
      ]);
      process.exitCode = await runTrustCommand({
        rootDir: await resolveProjectRoot(flags.dir),
        revoke: Boolean(flags.revoke),
        stdout: process.stdout,
      });
    });

  program
    .command('apply')
    .description('apply a saved plan (from --plan-out, or a model answer) with no model call')
    .argument('<plan>', 'plan file, or - for standard input')
    .option('-d, --dir <path>', 'project root')
    .option('--dry-run', 'show the diffs, write nothing')
    .option('-y, --yes', 'write without asking')
    .option('--run-commands', "run the plan's allow-listed build/test commands without asking, in the sandbox")
    .option('--allow-network', 'let the commands use the network in the sandbox')
    .option('--json', 'print one JSON report; never prompt')
    .action(
      async (
        source: string,
        flags: {
          dir?: string;
          dryRun?: boolean;
          yes?: boolean;
          runCommands?: boolean;
          allowNetwork?: boolean;
          json?: boolean;
        },
      ) => {
        jsonMode = Boolean(flags.json);
        // A plan read from standard input leaves no terminal to answer on, as in the apply command itself.
        refuseUnanswerableRun('apply', flags, Boolean(process.stdin.isTTY && process.stdout.isTTY && source !== '-'));
        const { runApplyCommand } = await import('./cli/apply-command.js');
        process.exitCode = await runApplyCommand(source, flags);
      },
    );

  program
    .command('check')
    .description('check a saved plan against the current files: applies / already applied / conflict / ambiguous')
    .argument('<plan>', 'plan file, or - for standard input')
    .option('-d, --dir <path>', 'project root')
    .option('--json', 'print JSON')
    .action(async (source: string, flags: { dir?: string; json?: boolean }) => {
      jsonMode = Boolean(flags.json);
      const { runCheckCommand } = await import('./cli/apply-command.js');
      process.exitCode = await runCheckCommand(source, flags);
    });

  program
    .command('context')
    .description('show the context that would be sent for a task')
    .argument('<task...>', 'the task')
    .option('-d, --dir <path>', 'project root')
    .option(
      '--budget <chars>',
      `context budget in characters (default ${DEFAULT_BUDGET_CHARS}, or settings; at least ${MIN_BUDGET_CHARS})`,
      budgetFlag,
    )
    .option('--files <pathspec...>', 'pin these files into the context first')
    .option('--json', 'print JSON')
    .action(async (taskWords: string[], flags: { dir?: string; budget?: number; json?: boolean; files?: string[] }) => {
      jsonMode = Boolean(flags.json);
      const [{ runContextCommand }, { resolveProjectRoot }, { loadSettings }] = await Promise.all([
        import('./cli/context.js'),
        import('./cli/project-root.js'),
        import('./config/settings.js'),
      ]);
      const rootDir = await resolveProjectRoot(flags.dir);
      const settings = await loadSettings({
        rootDir,
        env: process.env,
        flags: flags.budget ? { budgetChars: flags.budget } : {},
      });
      await runContextCommand({
        rootDir,
        task: taskWords.join(' '),
        budgetChars: settings.values.budgetChars,
        extraIgnore: settings.values.ignore,
        files: flags.files,
        json: Boolean(flags.json),
        stdout: process.stdout,
      });
      // Read-only and fully awaited: once the output is flushed, leave without Node's environment
      // teardown (about 30 ms with a large repository's index in the heap).
      await new Promise<void>((resolveFlush) => process.stdout.write('', () => resolveFlush()));
      process.exit(0);
    });

  program
    .command('undo')
    .description('restore the files of the last (or named) run')
    .argument('[runId]', 'run to undo (default: the last one)')
    .option('-d, --dir <path>', 'project root')
    .option('-y, --yes', 'do not ask')
    .option('--force', 'restore the files not changed since the run, leave the others')
    .option('--json', 'print JSON, never prompt')
    .action(
      async (runId: string | undefined, flags: { dir?: string; yes?: boolean; force?: boolean; json?: boolean }) => {
        jsonMode = Boolean(flags.json);
        const [{ runUndoCommand }, { resolveProjectRoot }] = await Promise.all([
          import('./cli/undo.js'),
          import('./cli/project-root.js'),
        ]);
        const outcome = await runUndoCommand({
          rootDir: await resolveProjectRoot(flags.dir),
          runId,
          yes: Boolean(flags.yes),
          force: Boolean(flags.force),
          json: Boolean(flags.json),
          interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY && !flags.json),
        });
        process.exitCode = outcome.exitCode;
      },
    );

  program
    .command('memory')
    .description('list what clawcode remembers about this project (notes, recent tasks); `memory clear` forgets it')
    .argument('[action]', '"clear" to forget')
    .option('-d, --dir <path>', 'project root')
    .option('--json', 'print JSON')
    .action(async (action: string | undefined, flags: { dir?: string; json?: boolean }) => {
      jsonMode = Boolean(flags.json);
      const [{ runMemoryCommand }, { resolveProjectRoot }] = await Promise.all([
        import('./cli/memory-command.js'),
        import('./cli/project-root.js'),
      ]);
      await runMemoryCommand({ rootDir: await resolveProjectRoot(flags.dir), action, json: Boolean(flags.json) });
    });

  program
    .command('history')
    .description('list the runs of this project')
    .option('-d, --dir <path>', 'project root')
    .option('--json', 'print JSON')
    .action(async (flags: { dir?: string; json?: boolean }) => {
      jsonMode = Boolean(flags.json);
      const [{ runHistoryCommand }, { resolveProjectRoot }] = await Promise.all([
        import('./cli/history.js'),
        import('./cli/project-root.js'),
      ]);
      await runHistoryCommand({ rootDir: await resolveProjectRoot(flags.dir), json: Boolean(flags.json) });
    });

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
  if (error instanceof ClawcodeError) {
    if (jsonMode) {
      process.stdout.write(
        JSON.stringify({
          error: { code: error.code, message: error.message, hint: error.hint, exitCode: error.exitCode },
        }) + '\n',
      );
    } else {
      const { default: chalk } = await import('chalk');
      // Messages can quote the model or a file (a parse error, a path): controls are shown, not obeyed.
      const { escapeControls } = await import('./utils/terminal-text.js');
      process.stderr.write(`${chalk.red('clawcode:')} ${escapeControls(error.message)}\n`);
      if (error.hint) process.stderr.write(`${chalk.dim(escapeControls(error.hint))}\n`);
      if (debugMode && error.cause instanceof Error)
        process.stderr.write(`${error.cause.stack ?? error.cause.message}\n`);
    }
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  const { escapeControls } = await import('./utils/terminal-text.js');
  process.stderr.write(`clawcode: internal error, please report: ${escapeControls(message)}\n`);
  if (debugMode && error instanceof Error && error.stack) process.stderr.write(error.stack + '\n');
  else process.stderr.write('(run again with --debug for the stack trace)\n');
  return 1;
}

async function main(argv: string[]): Promise<void> {
  ignoreClosedPipes();
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
}

await main(process.argv);
