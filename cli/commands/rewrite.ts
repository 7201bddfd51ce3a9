import { terminalJson } from '../../utils/terminal-text.js';
import { performance } from 'node:perf_hooks';
import { createAgentEmitter } from '../../agent/events.js';
import { preparePlan } from '../../agent/prepare.js';
import { UsageError } from '../../utils/errors.js';
import { checkRewritePattern } from '../../utils/patch/rewrite.js';
import { languageNames, parseLanguageName, type RewriteLanguage } from '../../utils/patch/rewrite-lang.js';
import type { Plan } from '../../utils/plan.js';
import { checkTemplateVars } from '../../utils/rule-vars.js';
import { loadTrustedSettings } from '../config/trust-prompt.js';
import { withInterrupt } from '../console/interrupt.js';
import { resolveProjectRoot } from '../project-root.js';
import { withLockedProject } from '../recover.js';
import { writeWithoutModel } from './apply.js';

/** Flags of `clawcode rewrite`. */
export interface RewriteFlags {
  dir?: string;
  /** `--lang L`: the pattern's language; only files of it are rewritten */
  lang?: string;
  /** `--files <pathspec...>`: git pathspecs (glob magic) of the files to rewrite; default the whole project */
  files?: string[];
  dryRun?: boolean;
  yes?: boolean;
  json?: boolean;
  /** one JSON line per event on stdout (`rewrite_done`, `write_file`, …), then the report */
  events?: boolean;
}

/**
 * The plan of `clawcode rewrite`: one rule per pathspec (the whole project when none is given).
 * @throws UsageError for an unknown language, a template variable the pattern does not capture, or a
 *         pattern ast-grep cannot read in the given language
 */
export function rewritePlan(
  pattern: string,
  replacement: string,
  flags: RewriteFlags,
): Plan & { language?: RewriteLanguage } {
  const language = flags.lang === undefined ? undefined : parseLanguageName(flags.lang);
  if (flags.lang !== undefined && !language) {
    throw new UsageError(`Unknown language "${flags.lang}".`, { hint: `Use one of: ${languageNames().join(', ')}.` });
  }
  if (pattern.trim() === '') throw new UsageError('The pattern is empty.');
  const wrong = checkTemplateVars(pattern, replacement);
  if (wrong) throw new UsageError(`The replacement does not fit the pattern: ${wrong}.`);
  const bad = language && checkRewritePattern(pattern, language);
  if (bad) throw new UsageError(`The pattern is not one piece of ${flags.lang} code: ${bad}`);
  const specs = flags.files?.length ? flags.files : ['.'];
  return {
    analysis: `rewrite ${pattern} → ${replacement}`,
    files_to_edit: [],
    patches: specs.map((file) => ({ file, operation: 'rewrite' as const, find: pattern, replace: replacement })),
    commands: [],
    agent_notes: [],
    language,
  };
}

/**
 * `clawcode rewrite <pattern> <replacement> [--lang L] [--files pathspec...]`: one codemod rule, no model,
 * with the same review, journal and undo as a task (what `sg run -p P -r R -U` does, plus review and undo).
 *
 * @returns the exit code: 0 written (or dry run, declined), 2 bad arguments, 3 nothing written (no match)
 * @throws UsageError for bad arguments; IoError; InterruptedError on Ctrl-C
 */
export async function runRewriteCommand(pattern: string, replacement: string, flags: RewriteFlags): Promise<number> {
  const started = performance.now();
  const { language, ...plan } = rewritePlan(pattern, replacement, flags);
  const rootDir = await resolveProjectRoot(flags.dir);
  const machine = Boolean(flags.json || flags.events);
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY && !machine);
  const settings = await loadTrustedSettings({ rootDir, env: process.env, interactive });
  const emitter = createAgentEmitter();
  if (flags.events) {
    emitter.onAny((name, payload) => process.stdout.write(terminalJson({ event: name, ...payload }) + '\n'));
  }
  const task = plan.analysis;
  return withInterrupt((signal) =>
    withLockedProject({ rootDir, dryRun: Boolean(flags.dryRun), interactive }, async () => {
      const t = performance.now();
      const prepared = await preparePlan(rootDir, plan, emitter, { extraIgnore: settings.values.ignore, language });
      const applyMs = Math.round(performance.now() - t);
      const reviewer = interactive ? (await import('../task/review-terminal.js')).reviewInTerminal : undefined;
      const review = reviewer && ((changes: Parameters<typeof reviewer>[0]) => reviewer(changes, rootDir));
      return writeWithoutModel({
        rootDir,
        plan,
        prepared,
        task,
        provider: 'rewrite',
        model: '',
        applyMs,
        started,
        flags: { dryRun: flags.dryRun, yes: flags.yes, json: flags.json, events: flags.events },
        interactive,
        signal,
        emitter,
        review,
      });
    }),
  );
}
