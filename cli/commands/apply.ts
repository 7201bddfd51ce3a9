import { performance } from 'node:perf_hooks';
import chalk from 'chalk';
import { preparePlan, readPlanTargets } from '../../agent/prepare.js';
import { checkPlan, hashBytes, type PatchCheck } from '../../agent/plan-file.js';
import { loadPlanSource } from '../../agent/plan-source.js';
import { loadTrustedSettings } from '../config/trust-prompt.js';
import { checkPlanPaths } from '../../utils/policy/plan-check.js';
import { withInterrupt } from '../console/interrupt.js';
import { refuseUnanswerableRun } from '../flag-checks.js';
import { withLockedProject } from '../recover.js';
import { patchReport, writeWithConsole } from '../task/flow.js';
import { resolveProjectRoot } from '../project-root.js';
import { escapeTerminal } from '../../utils/terminal-text.js';
import { confirmPrompt } from '../console/ask.js';
import { checkProjectFolder } from '../folder-check.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
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
  const { plan, saved } = await loadPlanSource({ source, last: flags.last, rootDir, cwd: process.cwd(), readStdin });
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
      const prepared = await preparePlan(rootDir, plan);
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
      const task = saved?.task ?? 'apply plan';
      // A saved plan made no model call here: no usage, no context, only the apply time.
      const base = {
        task,
        provider: saved?.provider ?? 'saved plan',
        providerId: 'none',
        model: saved?.model ?? '',
        plan,
        repaired: false,
        ...patchReport(prepared),
        usage: null,
        costUsd: null,
        context: { files: [], totalChars: 0, budget: 0, scannedFiles: 0 },
        timings: { contextMs: 0, promptMs: 0, modelMs: 0, applyMs, totalMs: 0 },
      };
      const final = await writeWithConsole(
        base,
        prepared,
        {
          rootDir,
          task,
          dryRun: Boolean(flags.dryRun),
          yes: Boolean(flags.yes),
          runCommands: Boolean(flags.runCommands),
          allowNetwork: Boolean(flags.allowNetwork),
          commandRules: settings.values.commands,
          json: Boolean(flags.json),
          debug: false,
          interactive,
          signal,
          stdout: process.stdout,
          stderr: process.stderr,
        },
        started,
      );
      final.timings.totalMs = Math.round(performance.now() - started);
      if (flags.json) process.stdout.write(JSON.stringify(final, null, 2) + '\n');
      else if (final.error) process.stderr.write(`${chalk.red('clawcode:')} ${escapeTerminal(final.error)}\n`);
      return final.exitCode;
    }),
  );
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
  const { plan, saved } = await loadPlanSource({ source, last: flags.last, rootDir, cwd: process.cwd(), readStdin });
  // Same path rules as apply, before any file is read: a plan that apply refuses never "applies" here.
  const pathIssues = await checkPlanPaths(rootDir, plan.patches);
  if (pathIssues.length > 0) {
    if (flags.json)
      process.stdout.write(JSON.stringify({ ok: false, refused: pathIssues, patches: [] }, null, 2) + '\n');
    else
      for (const issue of pathIssues)
        process.stdout.write(
          `#${issue.index + 1} ${escapeTerminal(issue.file, 'line')}: ${chalk.red('refused')}: ${escapeTerminal(issue.message, 'line')}\n`,
        );
    return 3;
  }
  const targets = await readPlanTargets(rootDir, plan);
  const contents = new Map<string, string>();
  const hashes = new Map<string, string | null>();
  for (const [path, bytes] of targets) {
    contents.set(path, bytes === null ? '' : bytes.toString('utf8'));
    hashes.set(path, hashBytes(bytes));
  }
  const checks = checkPlan(plan, contents, saved?.baseHashes, hashes);
  const ok = checks.every((c) => c.status === 'applies');
  if (flags.json) {
    process.stdout.write(JSON.stringify({ ok, patches: checks }, null, 2) + '\n');
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
