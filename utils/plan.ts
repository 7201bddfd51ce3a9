import { z } from 'zod';
import { checkTemplateVars } from './rule-vars.js';

/*
 * The plan: the one structured output of a provider and the input of every later stage (checks, patch
 * engine, journal). Defined here, on the ground floor, so utils/ and everything above share one type.
 */

/**
 * One operation of a plan, applied in array order: a find/replace in one file (`replace`), or a codemod
 * rule (`rewrite`): `find` an ast-grep pattern, `replace` its template, `file` a git pathspec.
 */
export interface PatchOp {
  /**
   * Project-relative path with `/` separators. For a rule (and a `replace` with `replace_all` that names
   * a folder or has glob characters) a git pathspec with glob magic: `src/**\/*.ts`, `lib/`, `a.ts`.
   */
  file: string;
  operation: 'replace' | 'rewrite';
  /** Text to find (`""` creates a new or fills an empty file); for a rule, the ast-grep pattern. */
  find: string;
  /** The new text; for a rule, the rewrite template (`$NAME`, `$$$ARGS` stand for what `find` captured). */
  replace: string;
  /** Replace every occurrence of `find` (otherwise more than one match is refused as ambiguous). */
  replace_all?: boolean;
  /** 1-based occurrence to replace when `find` matches more than once. */
  occurrence?: number;
}

/** The one structured JSON reply of a provider: what to change (patches) and what to run (commands). */
export interface Plan {
  analysis: string;
  files_to_edit: { path: string; reason: string }[];
  patches: PatchOp[];
  commands: string[];
  agent_notes: string[];
}

/** A UTF-16 surrogate without its pair: `u` mode matches only unpaired ones. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * A string that is Unicode text. JSON may carry a lone surrogate (`"\ud800"`), which no file name or UTF-8
 * file can hold: written, it would silently become U+FFFD, something the plan never said.
 */
const text = (what: string): z.ZodString =>
  z.string().refine((s) => !LONE_SURROGATE.test(s), `${what} holds a lone UTF-16 surrogate, which is not text`);

/**
 * Zod schema of one patch as a model may send it (optional fields missing or null). A rule needs a
 * pattern, and its template may use only the metavariables the pattern captures.
 */
const patchSchema = z
  .object({
    file: text('file').min(1, 'file must be a non-empty path'),
    operation: z.enum(['replace', 'rewrite']).optional().default('replace'),
    find: text('find'),
    replace: text('replace'),
    replace_all: z.boolean().nullish(),
    occurrence: z.number().int().positive().nullish(),
  })
  .superRefine((patch, ctx) => {
    if (patch.operation !== 'rewrite') return;
    if (patch.find.trim() === '') {
      ctx.addIssue({ code: 'custom', path: ['find'], message: 'a rewrite needs an ast-grep pattern in find' });
      return;
    }
    const wrong = checkTemplateVars(patch.find, patch.replace);
    if (wrong) ctx.addIssue({ code: 'custom', path: ['replace'], message: wrong });
  });

const fileToEditSchema = z.union([
  z.object({ path: z.string(), reason: z.string().nullish() }),
  // Some models answer with bare paths; accept them rather than fail the whole plan.
  z.string().transform((path) => ({ path, reason: '' })),
]);

/**
 * Zod schema of a plan as received: lenient where models differ harmlessly (missing optional fields, bare
 * paths in `files_to_edit`, one string of notes), strict on types. `parsePlan` (llm/plan-parser.ts)
 * normalizes its output into a {@link Plan}.
 */
export const planSchema = z.object({
  analysis: z.string().nullish(),
  files_to_edit: z.array(fileToEditSchema).nullish(),
  patches: z.array(patchSchema),
  commands: z.array(text('a command')).nullish(),
  agent_notes: z.union([z.array(z.string()), z.string().transform((s) => (s ? [s] : []))]).nullish(),
});

/**
 * The JSON schema of a plan as sent to providers for structured output.
 *
 * It follows OpenAI strict-mode rules (every property required, `additionalProperties: false`,
 * optional fields written as nullable), which Groq accepts as is and Gemini accepts through
 * `responseJsonSchema`. Validation of what comes back is done locally with {@link planSchema}, which
 * also accepts the optional fields missing.
 */
export const PLAN_JSON_SCHEMA: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: ['analysis', 'files_to_edit', 'patches', 'commands', 'agent_notes'],
  properties: {
    analysis: { type: 'string' },
    files_to_edit: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['path', 'reason'],
        properties: { path: { type: 'string' }, reason: { type: 'string' } },
      },
    },
    patches: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['file', 'operation', 'find', 'replace', 'replace_all', 'occurrence'],
        properties: {
          file: { type: 'string' },
          operation: { type: 'string', enum: ['replace', 'rewrite'] },
          find: { type: 'string' },
          replace: { type: 'string' },
          replace_all: { type: ['boolean', 'null'] },
          occurrence: { type: ['integer', 'null'] },
        },
      },
    },
    commands: { type: 'array', items: { type: 'string' } },
    agent_notes: { type: 'array', items: { type: 'string' } },
  },
};

/** Name used for `response_format.json_schema.name` ([a-zA-Z0-9_-], ≤ 64 characters). */
export const PLAN_SCHEMA_NAME = 'clawcode_plan';
