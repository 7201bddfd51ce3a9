// The subcommands of the entry (cli.ts), registered on its commander program. Like the entry, every action
// imports its module lazily, so `--version` and `--help` load commander and nothing heavy.
import { Argument, type Command } from 'commander';
import type { AddFlags } from './config/add-flags.js';
import { MIN_BUDGET_CHARS, refuseJsonWithEvents, refuseUnanswerableRun, wholeNumberAtLeast } from './flag-checks.js';
import type { RewriteFlags } from './commands/rewrite.js';

/** How the entry reports an error: as JSON (`--json`) and with stack traces (`--debug`); actions set them. */
export interface OutputModes {
  json: boolean;
  debug: boolean;
}

const budgetFlag = wholeNumberAtLeast('--budget', MIN_BUDGET_CHARS, 'characters');

/**
 * Register `clawcode config [action] [name]` on `program`: the provider entries, their options, the merged settings.
 * Sets `modes.json` from `--json` before running.
 */
export function addConfigCommand(program: Command, modes: OutputModes): void {
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
    .option('--json', 'with list or show: print JSON')
    .option('--name <name>', 'add: the entry name (default: the kind, or kind-2 …)')
    .option('--model <id>', 'add: the model (Azure: see --deployment)')
    .option('--base-url <url>', 'add: the server URL (OpenAI-compatible kinds)')
    .option('--api-key <key>', 'add: the key, stored in config.json (leave it out to keep using the env var)')
    .option('--endpoint <url>', 'add: the Azure endpoint')
    .option('--deployment <name>', 'add: the Azure deployment')
    .option('--api-version <version>', 'add: the Azure API version')
    .option('--default', 'add: make it the default provider')
    .option('--no-check', 'add: save without the real call that proves the credentials')
    .addHelpText(
      'after',
      '\nExamples:\n  clawcode config list --json\n  clawcode config add ollama\n  clawcode config add openai --name work --model gpt-4o --default\n  clawcode config default work\n  clawcode config show --json',
    )
    .action(
      async (
        action: string | undefined,
        name: string | undefined,
        flags: { show?: boolean; dir?: string; json?: boolean } & AddFlags,
      ) => {
        modes.json = Boolean(flags.json);
        if (flags.show || action === 'show') {
          const [{ runConfigShow }, { resolveProjectRoot }] = await Promise.all([
            import('./config/show.js'),
            import('./project-root.js'),
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
        const { runConfigCommand } = await import('./config/command.js');
        type Action = 'list' | 'add' | 'edit' | 'remove' | 'default' | 'options';
        const { show: _show, dir: _dir, json, ...add } = flags;
        await runConfigCommand({
          ...(action ? { action: action as Action } : {}),
          ...(name && action === 'add' ? { kind: name } : name ? { name } : {}),
          add,
          json,
        });
      },
    );
}

/**
 * Register the commands that need no model on `program`: `apply <plan>` (write a saved plan), `rewrite
 * <pattern> <replacement>` (one codemod rule) and `check <plan>` (does it still apply?). Each sets
 * `modes.json` from `--json` and the exit code.
 */
export function addPlanFileCommands(program: Command, modes: OutputModes): void {
  program
    .command('apply')
    .description('apply a saved plan (from --plan-out, a model answer, or --last) with no model call')
    .argument('[plan]', 'plan file, or - for standard input')
    .option('--last', 'the last plan made in this project (kept also when you said no, or with --dry-run)')
    .option('-d, --dir <path>', 'project root')
    .option('--dry-run', 'show the diffs, write nothing')
    .option('-y, --yes', 'write without asking')
    .option('--run-commands', "run the plan's allow-listed build/test commands without asking, in the sandbox")
    .option('--allow-network', 'let the commands use the network in the sandbox')
    .option('--any-folder', 'apply even in a folder that is no project (a big non-git folder, the home folder)')
    .option('--json', 'print one JSON report; never prompt')
    .action(
      async (
        source: string | undefined,
        flags: {
          last?: boolean;
          dir?: string;
          dryRun?: boolean;
          yes?: boolean;
          runCommands?: boolean;
          allowNetwork?: boolean;
          json?: boolean;
          anyFolder?: boolean;
        },
      ) => {
        modes.json = Boolean(flags.json);
        const { runApplyCommand } = await import('./commands/apply.js');
        process.exitCode = await runApplyCommand(source, flags);
      },
    );

  program
    .command('rewrite')
    .description('rewrite code with one ast-grep rule, no model: reviewed, journaled, undoable')
    .argument('<pattern>', 'an ast-grep pattern: code with $NAME for one node, $$$ARGS for several')
    .argument('<replacement>', 'the rewrite template: $NAME and $$$ARGS stand for what the pattern captured')
    .option('-d, --dir <path>', 'project root')
    .option('-l, --lang <language>', 'the language of the pattern; only its files are rewritten')
    .option('--files <pathspec...>', 'git pathspecs (glob magic) of the files to rewrite (default: the project)')
    .option('--dry-run', 'show the diffs, write nothing')
    .option('-y, --yes', 'write without asking')
    .option('--json', 'print one JSON report; never prompt')
    .option('--events', 'print one JSON line per event, then the report; never prompt')
    .action(async (pattern: string, replacement: string, flags: RewriteFlags) => {
      modes.json = Boolean(flags.json);
      refuseJsonWithEvents(flags);
      refuseUnanswerableRun('apply', flags, Boolean(process.stdin.isTTY && process.stdout.isTTY));
      const { runRewriteCommand } = await import('./commands/rewrite.js');
      process.exitCode = await runRewriteCommand(pattern, replacement, flags);
    });

  program
    .command('check')
    .description('check a saved plan against the current files: applies / already applied / conflict / ambiguous')
    .argument('[plan]', 'plan file, or - for standard input')
    .option('--last', 'the last plan made in this project')
    .option('-d, --dir <path>', 'project root')
    .option('--json', 'print JSON')
    .action(async (source: string | undefined, flags: { last?: boolean; dir?: string; json?: boolean }) => {
      modes.json = Boolean(flags.json);
      const { runCheckCommand } = await import('./commands/apply.js');
      process.exitCode = await runCheckCommand(source, flags);
    });
}

/**
 * Register the project setup commands on `program`: `init` (a starter AGENTS.md) and `trust` (the project's
 * .clawcode settings); trust sets the exit code.
 */
export function addSetupCommands(program: Command): void {
  program
    .command('init')
    .description('write a starter AGENTS.md from what is detected (never overwrites)')
    .option('-d, --dir <path>', 'project root')
    .action(async (flags: { dir?: string }) => {
      const [{ runInitCommand }, { resolveProjectRoot }] = await Promise.all([
        import('./commands/init.js'),
        import('./project-root.js'),
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
        import('./config/trust-prompt.js'),
        import('./project-root.js'),
      ]);
      process.exitCode = await runTrustCommand({
        rootDir: await resolveProjectRoot(flags.dir),
        revoke: Boolean(flags.revoke),
        stdout: process.stdout,
      });
    });
}

/**
 * Register `clawcode context <task...>` on `program`: the context that would be sent for a task, then exit 0.
 * Sets `modes.json` from `--json`.
 */
export function addContextCommand(program: Command, modes: OutputModes): void {
  program
    .command('context')
    .description('show the context that would be sent for a task, under the budget the run would use')
    .argument('<task...>', 'the task')
    .option('-d, --dir <path>', 'project root')
    .option('-p, --provider <name>', 'the provider the run would use (its model decides the default budget)')
    .option('-m, --model <id>', 'the model the run would use (its context window decides the default budget)')
    .option(
      '--budget <chars>',
      `context budget in characters (default: a share of the model's context window, or settings; at least ${MIN_BUDGET_CHARS})`,
      budgetFlag,
    )
    .option('--files <pathspec...>', 'pin these files into the context first')
    .option('--any-folder', 'scan the folder even when it is no project (a big non-git folder, the home folder)')
    .option('--json', 'print JSON')
    .action(
      async (
        taskWords: string[],
        flags: {
          dir?: string;
          provider?: string;
          model?: string;
          budget?: number;
          json?: boolean;
          files?: string[];
          anyFolder?: boolean;
        },
      ) => {
        modes.json = Boolean(flags.json);
        const [
          { runContextCommand },
          { resolveProjectRoot },
          { loadSettings },
          { checkProjectFolder },
          { confirmPrompt },
          { budgetForRun },
        ] = await Promise.all([
          import('./commands/context.js'),
          import('./project-root.js'),
          import('../config/settings.js'),
          import('./folder-check.js'),
          import('./console/ask.js'),
          import('../config/model-windows.js'),
        ]);
        const rootDir = await resolveProjectRoot(flags.dir);
        const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY && !flags.json);
        await checkProjectFolder(rootDir, {
          anyFolder: flags.anyFolder,
          confirm: terminal ? (question) => confirmPrompt(question, false) : undefined,
        });
        const settings = await loadSettings({
          rootDir,
          env: process.env,
          flags: {
            ...(flags.budget ? { budgetChars: flags.budget } : {}),
            ...(flags.provider ? { provider: flags.provider } : {}),
            ...(flags.model ? { model: flags.model } : {}),
          },
        });
        // The provider matters only for a default budget: a set one needs no config read.
        const provider =
          settings.sources.budgetChars.layer === 'default'
            ? await (await import('../config/config.js')).providerIfConfigured(settings.values)
            : undefined;
        const budget = await budgetForRun(settings, provider, true);
        await runContextCommand({
          rootDir,
          task: taskWords.join(' '),
          budgetChars: budget.chars,
          budget,
          extraIgnore: settings.values.ignore,
          files: flags.files,
          json: Boolean(flags.json),
          stdout: process.stdout,
        });
        // Read-only and fully awaited: once the output is flushed, leave without Node's environment
        // teardown (about 30 ms with a large repository's index in the heap).
        await new Promise<void>((resolveFlush) => process.stdout.write('', () => resolveFlush()));
        process.exit(0);
      },
    );
}

/**
 * Register the commands over what clawcode keeps of a project on `program`: `undo [runId]`, `memory [clear]` and
 * `history`. Each sets `modes.json` from `--json`; undo sets the exit code.
 */
export function addRunCommands(program: Command, modes: OutputModes): void {
  program
    .command('undo')
    .description('restore the files of the last (or named) run')
    .argument('[runId]', 'run to undo (default: the last one)')
    .option('-d, --dir <path>', 'project root')
    .option('-y, --yes', 'do not ask')
    .option('--force', 'restore the files not changed since the run, leave the others')
    .option('--commit-hooks', "let git run the repository's commit hooks (and sign) for the revert commit")
    .option('--json', 'print JSON, never prompt')
    .action(
      async (
        runId: string | undefined,
        flags: { dir?: string; yes?: boolean; force?: boolean; json?: boolean; commitHooks?: boolean },
      ) => {
        modes.json = Boolean(flags.json);
        const [{ runUndoCommand }, { resolveProjectRoot }] = await Promise.all([
          import('./commands/undo.js'),
          import('./project-root.js'),
        ]);
        const outcome = await runUndoCommand({
          rootDir: await resolveProjectRoot(flags.dir),
          runId,
          yes: Boolean(flags.yes),
          force: Boolean(flags.force),
          commitHooks: Boolean(flags.commitHooks),
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
      modes.json = Boolean(flags.json);
      const [{ runMemoryCommand }, { resolveProjectRoot }] = await Promise.all([
        import('./commands/memory.js'),
        import('./project-root.js'),
      ]);
      await runMemoryCommand({ rootDir: await resolveProjectRoot(flags.dir), action, json: Boolean(flags.json) });
    });

  program
    .command('history')
    .description('list the runs of this project')
    .option('-d, --dir <path>', 'project root')
    .option('--json', 'print JSON')
    .action(async (flags: { dir?: string; json?: boolean }) => {
      modes.json = Boolean(flags.json);
      const [{ runHistoryCommand }, { resolveProjectRoot }] = await Promise.all([
        import('./commands/history.js'),
        import('./project-root.js'),
      ]);
      await runHistoryCommand({ rootDir: await resolveProjectRoot(flags.dir), json: Boolean(flags.json) });
    });
}
