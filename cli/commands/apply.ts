import { performance } from 'node:perf_hooks';
import chalk from 'chalk';
import { preparePlan, readPlanTargets, type PreparedPlan } from '../../agent/prepare.js';
import { checkPlan, hashBytes, type PatchCheck } from '../../agent/plan-file.js';
import { loadPlanSource } from '../../agent/plan-source.js';
import { spreadPatchIndexes } from '../../agent/spread-files.js';
import type { Plan } from '../../utils/plan.js';
import { loadTrustedSettings } from '../config/trust-prompt.js';
import { resolvePlanPaths, withCanonicalPaths } from '../../utils/policy/plan-check.js';
import { withInterrupt } from '../console/interrupt.js';
import { refuseUnanswerableRun } from '../flag-checks.js';
import { withLockedProject } from '../recover.js';
import { patchReport, writeWithConsole, type TaskOptions } from '../task/flow.js';
import type { AgentEmitter } from '../../agent/events.js';
import type { CommandRules } from '../../config/settings-commands.js';
import { resolveProjectRoot } from '../project-root.js';
import { escapeTerminal, terminalJson } from '../../utils/terminal-text.js';
import { confirmPrompt } from '../console/ask.js';
import { readInputStream } from '../../utils/input-file.js';
import { checkProjectFolder } from '../folder-check.js';

/** Standard input's bytes, at most MAX_INPUT_BYTES; `signal` stops the wait. */
function readStdin(signal?: AbortSignal): Promise<Buffer> {
  return readInputStream(process.stdin, { signal });
}

/**
 * `clawcode apply <plan|->`: apply a saved plan (or a model's answer) with the same engine, checks,
 * review and journal as a task, and no model call.
 *
 * @returns the exit code: 0 applied (or dry run), 3 the plan did not apply (nothing written), 4 a command failed
 * @throws PlanFileError (exit 2: unreadable source, no valid plan), UsageError (no terminal to confirm in), IoError
 */
export async function runApplyCommand(
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
): Promise<number> {
  const started = performance.now();
  const rootDir = await resolveProjectRoot(flags.dir);
  // The file first: a missing or broken plan is the error to tell, whether or not a terminal could confirm.
  const { plan, saved } = await withInterrupt((signal) =>
    loadPlanSource({ source, last: flags.last, rootDir, cwd: process.cwd(), readStdin, signal }),
  );
  // A plan read from standard input leaves no terminal to answer on.
  const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY && source !== '-');
  refuseUnanswerableRun('apply', flags, terminal);
  const interactive = terminal && !flags.json;
  // The same check as before a scan: the home folder (or a big folder that is no project) is asked about.
  await checkProjectFolder(rootDir, {
    anyFolder: flags.anyFolder,
    confirm: interactive ? (question) => confirmPrompt(question, false) : undefined,
  });
  const settings = await loadTrustedSettings({ rootDir, env: process.env, interactive });
  return withInterrupt((signal) =>
    withLockedProject({ rootDir, dryRun: Boolean(flags.dryRun), interactive }, async () => {
      const t = performance.now();
      const prepared = await preparePlan(rootDir, plan, undefined, { extraIgnore: settings.values.ignore });
      const applyMs = Math.round(performance.now() - t);
      const stale = saved
        ? [...prepared.targets]
            .filter(([path, bytes]) => path in saved.baseHashes && saved.baseHashes[path] !== hashBytes(bytes))
            .map(([path]) => path)
        : [];
      if (stale.length > 0 && !flags.json) {
        process.stderr.write(
          escapeTerminal(
            `${chalk.yellow('!')} Changed since the plan was saved: ${stale.map((p) => escapeTerminal(p, 'line')).join(', ')}; each patch is matched against the current files.\n`,
            'colored',
          ),
        );
      }
      return writeWithoutModel({
        rootDir,
        plan,
        prepared,
        task: saved?.task ?? 'apply plan',
        provider: saved?.provider ?? 'saved plan',
        model: saved?.model ?? '',
        applyMs,
        started,
        flags,
        commandRules: settings.values.commands,
        interactive,
        signal,
      });
    }),
  );
}

/** A plan written with no model call (`apply`, `rewrite`): what it needs besides the prepared plan. */
export interface NoModelRun {
  rootDir: string;
  plan: Plan;
  prepared: PreparedPlan;
  /** the journal's and the summary's task line */
  task: string;
  /** where the plan came from: a saved plan's provider, or `rewrite` */
  provider: string;
  model: string;
  /** ms spent preparing the plan; `started` is performance.now() at the command's start */
  applyMs: number;
  started: number;
  flags: {
    dryRun?: boolean;
    yes?: boolean;
    runCommands?: boolean;
    allowNetwork?: boolean;
    json?: boolean;
    events?: boolean;
  };
  commandRules?: CommandRules;
  interactive: boolean;
  signal: AbortSignal;
  emitter?: AgentEmitter;
  review?: TaskOptions['review'];
}

/**
 * The write half of a plan that made no model call: the task flow's review, journal and summary, then the
 * report as JSON (`--json`), an event line (`--events`) or its error line.
 * @returns the exit code of the write stage
 */
export async function writeWithoutModel(run: NoModelRun): Promise<number> {
  const { flags, prepared } = run;
  const machine = Boolean(flags.json || flags.events);
  // No model call here: no usage, no context, only the apply time.
  const base = {
    task: run.task,
    provider: run.provider,
    providerId: 'none',
    model: run.model,
    plan: run.plan,
    repaired: false,
    ...patchReport(prepared),
    usage: null,
    costUsd: null,
    context: { files: [], totalChars: 0, budget: 0, scannedFiles: 0 },
    timings: { contextMs: 0, promptMs: 0, modelMs: 0, applyMs: run.applyMs, totalMs: 0 },
  };
  const final = await writeWithConsole(
    base,
    prepared,
    {
      rootDir: run.rootDir,
      task: run.task,
      dryRun: Boolean(flags.dryRun),
      yes: Boolean(flags.yes),
      runCommands: Boolean(flags.runCommands),
      allowNetwork: Boolean(flags.allowNetwork),
      commandRules: run.commandRules,
      json: machine,
      debug: false,
      interactive: run.interactive,
      signal: run.signal,
      emitter: run.emitter,
      stdout: process.stdout,
      stderr: process.stderr,
      review: run.review,
    },
    run.started,
  );
  final.timings.totalMs = Math.round(performance.now() - run.started);
  if (flags.events) process.stdout.write(terminalJson({ event: 'report', report: final }) + '\n');
  else if (flags.json) process.stdout.write(terminalJson(final, 2) + '\n');
  else if (final.error) process.stderr.write(`${chalk.red('clawcode:')} ${escapeTerminal(final.error)}\n`);
  return final.exitCode;
}

const STATUS_MARK: Record<PatchCheck['status'], string> = {
  applies: chalk.green('applies'),
  already_applied: chalk.cyan('already applied'),
  conflict: chalk.red('conflict'),
  ambiguous: chalk.yellow('ambiguous'),
};

/**
 * `clawcode check <plan|->`: report per patch whether it applies, is already applied, conflicts or
 * is ambiguous against the current files; nothing is written.
 *
 * @returns 0 when every patch applies cleanly, 3 otherwise
 */
export async function runCheckCommand(
  source: string | undefined,
  flags: { last?: boolean; dir?: string; json?: boolean },
): Promise<number> {
  const rootDir = await resolveProjectRoot(flags.dir);
  const { plan: given, saved } = await withInterrupt((signal) =>
    loadPlanSource({ source, last: flags.last, rootDir, cwd: process.cwd(), readStdin, signal }),
  );
  // Same path rules as apply, before any file is read: a plan that apply refuses never "applies" here.
  const spread = new Set(await spreadPatchIndexes(rootDir, given.patches));
  const verdict = await resolvePlanPaths(rootDir, given.patches, spread);
  const pathIssues = verdict.issues;
  if (pathIssues.length > 0) {
    if (flags.json) process.stdout.write(terminalJson({ ok: false, refused: pathIssues, patches: [] }, 2) + '\n');
    else
      for (const issue of pathIssues)
        process.stdout.write(
          `#${issue.index + 1} ${escapeTerminal(issue.file, 'line')}: ${chalk.red('refused')}: ${escapeTerminal(issue.message, 'line')}\n`,
        );
    return 3;
  }
  // Keyed as apply keys them: two spellings of one file chain on that file, as they will when written.
  const plan = withCanonicalPaths(given, verdict.canonical);
  if (spread.size > 0) return checkWithRules(rootDir, plan, flags);
  const targets = await readPlanTargets(rootDir, plan);
  const contents = new Map<string, string>();
  const hashes = new Map<string, string | null>();
  for (const [path, bytes] of targets) {
    contents.set(path, bytes === null ? '' : bytes.toString('utf8'));
    hashes.set(path, hashBytes(bytes));
  }
  return printChecks(checkPlan(plan, contents, saved?.baseHashes, hashes), flags);
}

/**
 * `check` for a plan with rules: the plan prepared in memory as `apply` would, each patch `applies`
 * (a rule with its matches and files) or is a `conflict` with the refusal.
 */
async function checkWithRules(rootDir: string, plan: Plan, flags: { json?: boolean }): Promise<number> {
  const prepared = await preparePlan(rootDir, plan);
  const checks: PatchCheck[] = prepared.results.map((r) => ({
    index: r.index,
    file: r.file,
    status: r.applied ? 'applies' : 'conflict',
    detail: r.applied
      ? r.files
        ? `${r.matchCount ?? 0} matches in ${r.files.length} files`
        : (r.note ?? r.strategy)
      : r.error,
    baseChanged: false,
  }));
  return printChecks(checks, flags);
}

/** Print the rows of `check` (or its JSON); returns 0 when every patch applies, else 3. */
function printChecks(checks: PatchCheck[], flags: { json?: boolean }): number {
  const ok = checks.every((c) => c.status === 'applies');
  if (flags.json) {
    process.stdout.write(terminalJson({ ok, patches: checks }, 2) + '\n');
  } else {
    for (const c of checks) {
      const changed = c.baseChanged ? chalk.dim(' (file changed since the plan was saved)') : '';
      const detail =
        c.status === 'applies'
          ? c.detail && c.detail !== 'exact'
            ? chalk.dim(` (${c.detail})`)
            : ''
          : c.detail
            ? `: ${c.detail}`
            : '';
      process.stdout.write(
        escapeTerminal(
          `#${c.index + 1} ${escapeTerminal(c.file, 'line')}: ${STATUS_MARK[c.status]}${detail}${changed}\n`,
          'colored',
        ),
      );
    }
    process.stdout.write(
      ok
        ? checks.length === 1
          ? `${chalk.green('✓')} The patch applies cleanly.\n`
          : `${chalk.green('✓')} All ${checks.length} patches apply cleanly.\n`
        : `${chalk.red('✗')} Not every patch applies.\n`,
    );
  }
  return ok ? 0 : 3;
}
