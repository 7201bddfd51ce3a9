import { performance } from 'node:perf_hooks';
import { buildPatchRepairPrompt, type RepairItem } from '../llm/prompts.js';
import { PlanParseError } from '../llm/plan-parser.js';
import type { PlanResult } from '../llm/provider.js';
import type { ProviderConfig } from '../llm/types.js';
import type { Plan } from '../utils/plan.js';
import type { PatchOutcome } from '../utils/patch/plan-apply.js';
import type { AgentEmitter } from './events.js';
import { preparePlan, type PreparedPlan, type PrepareOptions } from './prepare.js';
import type { Planner } from './runner.js';
import { addUsage } from '../llm/usage.js';
import type { SendableFile } from '../llm/outbound.js';
import { redactSecrets } from '../utils/policy/secrets.js';

/** Lines of file text shown around the closest match of a refused patch, on each side. */
const CONTEXT_LINES = 6;
/** Most lines shown for one refused patch (all its excerpts together). */
const MAX_EXCERPT_LINES = 80;
/** Most locations shown for an ambiguous find. */
const MAX_LOCATIONS = 3;

/** What the one repair round did; `patches` are 1-based plan numbers. */
export interface RepairReport {
  /** The refused patches that were sent back to the model, 1-based. */
  patches: number[];
  /** The first refusal, e.g. `patch #2 (src/a.ts): find text not found; did you mean lines 3–9?`. */
  firstError: string;
  /** Whether the plan applied with the replacements. */
  applied: boolean;
  /** Why the replacements were not used, when the reply itself was unusable. */
  error?: string;
  /** Wall time of the repair request, ms. */
  ms: number;
}

/** The result of `repairPlan`: the plan and outcome to go on with, and what the round did. */
export interface RepairResult {
  plan: Plan;
  prepared: PreparedPlan;
  /** The planner result with usage of both requests summed (the reply is the repair's when it was used). */
  planResult: PlanResult;
  report: RepairReport;
}

/** Inputs of `repairPlan`. */
export interface RepairOptions {
  rootDir: string;
  provider: ProviderConfig;
  planner: Planner;
  systemPrompt: string;
  userPrompt: string;
  plan: Plan;
  planResult: PlanResult;
  prepared: PreparedPlan;
  emitter?: AgentEmitter;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** how the plan was prepared (rules' file list), for the second try */
  prepareOptions?: PrepareOptions;
  /** the project files the first request quoted; the repair request quotes them again */
  quotedFiles?: readonly string[];
  /** the files a request may quote (the context stage's candidates): others get no excerpt */
  sendable?: SendableFile;
}

/**
 * The one repair round: when patches of a plan were refused (no match, ambiguous, missing file, overlap),
 * ask the model once for replacements of those patches only, put them in the refused patches' places, and
 * apply the whole plan again in memory, all or nothing. Never a second round.
 *
 * @returns undefined when there is nothing to repair (the plan applied, or a path check refused it);
 *          otherwise the plan to go on with (the repaired one if it applied, else the original) and a report
 * @throws ProviderError / InterruptedError from the planner; IoError on unreadable files. A repair reply that
 *         is not a valid plan, or has the wrong number of patches, is reported, not thrown.
 */
export async function repairPlan(options: RepairOptions): Promise<RepairResult | undefined> {
  const { prepared, plan } = options;
  if (prepared.ok || prepared.pathIssues.length > 0) return undefined;
  const failed = prepared.results.filter((r) => !r.applied);
  if (failed.length === 0) return undefined;
  const first = failed[0]!;
  const firstError = `patch #${first.index + 1} (${first.file}): ${first.error ?? 'not applied'}`;
  const items = failed.map((r) => repairItem(r, plan, prepared, options.sendable));
  options.emitter?.emit('repair_request', { patches: items.map((i) => i.number), firstError });
  const t0 = performance.now();
  const prompt = buildPatchRepairPrompt(options.userPrompt, items);
  let reply: PlanResult;
  try {
    reply = await options.planner(options.provider, options.systemPrompt, prompt, {
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      onProgress: (p) => options.emitter?.emit('model_progress', p),
      parseRepair: false,
      quotedFiles: [...(options.quotedFiles ?? []), ...items.filter((i) => i.excerpts.length > 0).map((i) => i.file)],
      sendable: options.sendable,
    });
  } catch (error) {
    if (!(error instanceof PlanParseError)) throw error;
    const ms = Math.round(performance.now() - t0);
    return keepOriginal(options, {
      patches: items.map((i) => i.number),
      firstError,
      applied: false,
      error: `the repair reply was not a valid plan: ${error.message}`,
      ms,
    });
  }
  const ms = Math.round(performance.now() - t0);
  const summed: PlanResult = {
    ...reply,
    usage: addUsage(options.planResult.usage, reply.usage),
    repaired: true,
    ms: options.planResult.ms + reply.ms,
  };
  const base = { patches: items.map((i) => i.number), firstError, ms };
  if (reply.plan.patches.length !== failed.length) {
    const n = reply.plan.patches.length;
    const error = `the repair reply has ${n} patch${n === 1 ? '' : 'es'} for ${failed.length} refused`;
    return keepOriginal(
      options,
      { ...base, applied: false, error },
      { ...summed, plan, reply: options.planResult.reply },
      replyTokens(reply),
    );
  }
  const patches = [...plan.patches];
  failed.forEach((r, k) => (patches[r.index] = reply.plan.patches[k]!));
  const repaired: Plan = { ...plan, patches };
  const again = await preparePlan(options.rootDir, repaired, options.emitter, options.prepareOptions);
  options.emitter?.emit('repair_reply', { ms, applied: again.ok, ...replyTokens(reply) });
  return {
    plan: repaired,
    prepared: again,
    planResult: { ...summed, plan: repaired },
    report: { ...base, applied: again.ok },
  };
}

/** The repair reply's tokens for its event, when the provider reported them. */
function replyTokens(reply: PlanResult): { inputTokens?: number; outputTokens?: number } {
  return reply.usage ? { inputTokens: reply.usage.inputTokens, outputTokens: reply.usage.outputTokens } : {};
}

function keepOriginal(
  options: RepairOptions,
  report: RepairReport,
  planResult = options.planResult,
  tokens: { inputTokens?: number; outputTokens?: number } = {},
): RepairResult {
  options.emitter?.emit('repair_reply', { ms: report.ms, applied: false, ...tokens });
  return { plan: options.plan, prepared: options.prepared, planResult, report };
}

/**
 * What the model is shown for one refused patch: the error and, for a file the context stage may send, the
 * file's text around the closest match, cut from the file as it is sent (secrets redacted over the whole file,
 * so an AWS secret key keeps its marker even when its key id lies outside the excerpt). A file that is never
 * sent (ignored, or skipped by the scan) gets no excerpt.
 */
function repairItem(r: PatchOutcome, plan: Plan, prepared: PreparedPlan, sendable?: SendableFile): RepairItem {
  const patch = plan.patches[r.index]!;
  if (r.searched !== undefined || r.code?.startsWith('rewrite_')) {
    // A rule or a replacement over a pathspec: what was searched says more than any one file's text.
    const unparsed = (r.unparsed ?? []).slice(0, 5);
    const more =
      unparsed.length > 0
        ? ` (did not parse: ${unparsed.join(', ')}${(r.unparsed?.length ?? 0) > 5 ? ', …' : ''})`
        : '';
    return {
      number: r.index + 1,
      file: r.file,
      find: patch.find,
      operation: patch.operation,
      error: `${r.error ?? 'not applied'}${more}`,
      excerpts: [],
    };
  }
  const bytes = prepared.targets.get(r.file);
  const base = { number: r.index + 1, file: r.file, find: patch.find, excerpts: [] };
  if (bytes === null || bytes === undefined) return { ...base, error: 'no such file; `find: ""` creates it' };
  // The marker stands for text that is never sent, so a find that quotes it can never match.
  const quotesMarker = patch.find.includes('[REDACTED:')
    ? '; find quotes a [REDACTED:…] marker, which stands for a secret that is never shown: choose text around it'
    : '';
  const error = `${r.error ?? 'not applied'}${quotesMarker}`;
  if (sendable && !sendable(r.file)) return { ...base, error: `${error} (the file's text is not sent)` };
  const lines = redactSecrets(bytes.toString('utf8'), r.file)
    .text.replace(/^\uFEFF/, '')
    .split(/\r?\n/);
  const ranges: [number, number][] = [];
  if (r.closest) ranges.push([r.closest.startLine, r.closest.endLine]);
  else if (r.matchLines && r.matchLines.length > 0) {
    const height = Math.max(1, (r.endLine ?? r.startLine ?? 1) - (r.startLine ?? 1) + 1);
    for (const at of r.matchLines.slice(0, MAX_LOCATIONS)) ranges.push([at, at + height - 1]);
  } else if (r.startLine !== undefined) ranges.push([r.startLine, r.endLine ?? r.startLine]);
  let budget = MAX_EXCERPT_LINES;
  const excerpts: RepairItem['excerpts'][number][] = [];
  for (const [a, b] of ranges) {
    const startLine = Math.max(1, a - CONTEXT_LINES);
    const endLine = Math.min(lines.length, b + CONTEXT_LINES, startLine + budget - 1);
    if (endLine < startLine) break;
    excerpts.push({ startLine, endLine, text: lines.slice(startLine - 1, endLine).join('\n') });
    budget -= endLine - startLine + 1;
  }
  return { ...base, error, excerpts };
}
