import { ClawcodeError } from '../utils/errors.js';
import { planSchema, type Plan } from '../utils/plan.js';

/**
 * The reply was not a valid plan: no JSON object in it, JSON that does not parse, or JSON that
 * fails the plan schema. Exit 1. `detail` is the precise reason, written so that it can be shown
 * to the model in the one repair request.
 */
export class PlanParseError extends ClawcodeError {
  readonly detail: string;
  /** What is wrong, in words that do not assume a model wrote the text (a plan file reuses them). */
  readonly problem: string;
  constructor(message: string, detail: string, problem: string) {
    super(message, {
      code: 'plan_invalid',
      exitCode: 1,
      hint: 'Try again, or use a model with structured output support.',
    });
    this.detail = detail;
    this.problem = problem;
  }
}

const REASONING_TAGS = ['think', 'thinking', 'reasoning', 'reflection'];

/**
 * Remove reasoning blocks from a model reply: `<think>…</think>` and its `thinking`, `reasoning`,
 * `reflection` variants, which reasoning models behind OpenAI-compatible servers (and Groq's "raw"
 * reasoning format) put in the content, often with a draft plan inside. A reply whose opening tag was
 * eaten by the server's chat template (DeepSeek-R1 style: text, then a bare `</think>`) loses
 * everything up to that closing tag. An unclosed opening tag is left alone.
 *
 * @returns the reply without reasoning blocks (unchanged when there are none)
 */
function stripReasoning(text: string): string {
  let out = text;
  for (const tag of REASONING_TAGS) {
    out = out.replace(new RegExp(`<${tag}>[\\s\\S]*?</${tag}>`, 'gi'), '');
    const close = out.search(new RegExp(`</${tag}>`, 'i'));
    if (close !== -1 && !new RegExp(`<${tag}>`, 'i').test(out.slice(0, close))) out = out.slice(close + tag.length + 3);
  }
  return out;
}

/**
 * Extract the JSON object from a model reply: the reply itself, a ```json fenced block, or the
 * span from the first `{` to its matching `}` inside prose (brace-aware, so that trailing prose
 * with braces does not break it).
 *
 * @returns the JSON text, or undefined when the reply holds no object
 */
export function extractJson(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') && trimmed.endsWith('}')) return trimmed;
  const fence = /```(?:json|JSON)?\s*\n([\s\S]*?)\n?```/.exec(trimmed);
  if (fence?.[1] && fence[1].trim().startsWith('{')) return fence[1].trim();
  const start = trimmed.indexOf('{');
  if (start === -1) return undefined;
  // Scan for the matching closing brace, skipping string literals.
  let depth = 0;
  let inString = false;
  for (let i = start; i < trimmed.length; i++) {
    const ch = trimmed[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return trimmed.slice(start, i + 1);
  }
  const end = trimmed.lastIndexOf('}');
  return end > start ? trimmed.slice(start, end + 1) : undefined;
}

/**
 * Parse and validate a model reply into a `Plan`.
 *
 * Accepts bare JSON, fenced JSON and JSON wrapped in prose, after removing reasoning blocks
 * (`stripReasoning`); optional fields may be missing or null
 * (`replace_all`/`occurrence` null are dropped). Wrong types are rejected, never coerced.
 *
 * @param raw  the model's text reply
 * @returns the normalized plan (all arrays present, `agent_notes` an array)
 * @throws PlanParseError with `detail` naming the first problem (JSON position or schema path)
 */
export function parsePlan(raw: string): Plan {
  // A reply that is itself a JSON object keeps its text whole: its patches may mention such tags.
  const json = extractJson(/^\s*\{/.test(raw) ? raw : stripReasoning(raw));
  if (json === undefined) {
    throw new PlanParseError(
      'The model reply holds no JSON plan.',
      'The reply contained no JSON object.',
      'holds no JSON object',
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new PlanParseError(
      `The model reply is not valid JSON: ${why}`,
      `JSON.parse failed: ${why}`,
      `is not valid JSON: ${why}`,
    );
  }
  const result = planSchema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : '(root)';
    const what = issue?.message ?? 'invalid plan';
    throw new PlanParseError(
      `The model's plan is invalid at ${where}: ${what}`,
      `Schema validation failed at ${where}: ${what}`,
      `is not a plan: at ${where}: ${what}`,
    );
  }
  const p = result.data;
  return {
    analysis: p.analysis ?? '',
    files_to_edit: (p.files_to_edit ?? []).map((f) => ({ path: f.path, reason: f.reason ?? '' })),
    patches: p.patches.map((patch) => ({
      file: patch.file,
      operation: patch.operation,
      find: patch.find,
      replace: patch.replace,
      // A rule rewrites every match: replace_all and occurrence say nothing there.
      ...(patch.replace_all && patch.operation === 'replace' ? { replace_all: true } : {}),
      ...(patch.occurrence != null && patch.operation === 'replace' ? { occurrence: patch.occurrence } : {}),
    })),
    commands: p.commands ?? [],
    agent_notes: p.agent_notes ?? [],
  };
}
