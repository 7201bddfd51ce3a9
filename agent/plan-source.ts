import { resolve } from 'node:path';
import { parsePlan, PlanParseError } from '../llm/plan-parser.js';
import type { Plan } from '../utils/plan.js';
import { UsageError } from '../utils/errors.js';
import { decodeUtf8Input, InputFileError, readInputFile } from '../utils/input-file.js';
import { readLastPlan } from './kept-output.js';
import { savedPlanSchema, type SavedPlan } from './plan-file.js';

/**
 * A plan file (or standard input) that gives no plan: missing, a folder, unreadable, empty, not JSON (with the
 * line and column), or JSON that is not a plan. Exit 2, whatever the cause: the person's input is bad, and
 * nothing was read from the project or sent anywhere.
 */
export class PlanFileError extends UsageError {
  constructor(message: string) {
    super(message, {
      code: 'plan_file_invalid',
      hint: "A plan file holds one JSON plan: from --plan-out, or a model's answer to --print-prompt.",
    });
  }
}

/** How a plan source is named in messages: `Plan file <path>` or `The plan on standard input`. */
function sourceName(source: string): string {
  return source === '-' ? 'The plan on standard input' : `Plan file ${source}`;
}

/** The name of the kept last plan in messages. */
const LAST_PLAN = 'The last plan of this project';

/**
 * Read a plan for `clawcode apply`/`check`: a saved plan (from `--plan-out`) or a bare plan, also a model's
 * answer pasted with prose or fences around it (the `--print-prompt` route). Text that starts with `{` is
 * read as JSON, so a file cut short says where it ends.
 *
 * @param text  the file's (or stdin's) text
 * @param name  what the text is, for messages (`Plan file plan.json`)
 * @returns the plan, and the saved-plan wrapper when there was one
 * @throws PlanFileError (exit 2) naming the source and what is wrong, with the line and column for bad JSON
 */
export function readPlanText(text: string, name = sourceName('-')): { plan: Plan; saved?: SavedPlan } {
  if (!text.trim()) throw new PlanFileError(`${name} is empty.`);
  try {
    if (!text.trimStart().startsWith('{')) return { plan: parsePlan(text) };
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      // A model's answer may follow its JSON with prose; the JSON error is only told when no plan can be found.
      try {
        return { plan: parsePlan(text) };
      } catch {
        throw new PlanFileError(`${name} is not valid JSON: ${jsonProblem(text, error)}.`);
      }
    }
    const wrapper = savedPlanSchema.safeParse(data);
    if (!wrapper.success) return { plan: parsePlan(JSON.stringify(data)) };
    const plan = parsePlan(JSON.stringify(wrapper.data.plan));
    return { plan, saved: { ...wrapper.data, usage: wrapper.data.usage ?? null, plan } };
  } catch (error) {
    if (error instanceof PlanParseError) throw new PlanFileError(`${name} ${error.problem}.`);
    // Re-serializing JSON nested thousands deep overflows the stack: no plan is shaped like that.
    if (error instanceof RangeError) throw new PlanFileError(`${name} is not a plan: its JSON nests too deeply.`);
    throw error;
  }
}

/**
 * What JSON.parse found wrong, and where as a 1-based line and column: V8 says "… in JSON at position N" (some
 * versions add "(line L column C)"), and "Unexpected end of JSON input" for text cut short.
 */
function jsonProblem(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const at = /at position (\d+)/.exec(message);
  const ended = /end of JSON input/i.test(message);
  const offset = at ? Number(at[1]) : ended ? text.trimEnd().length : undefined;
  const what = ended
    ? 'it ends before the JSON does (cut short?)'
    : message
        .replace(/\s*\(line \d+ column \d+\)/, '')
        .replace(/,? ?"[^"]*" is not valid JSON$/, '')
        .replace(/ in JSON at position \d+$/, '')
        .replace(/^./, (c) => c.toLowerCase());
  if (offset === undefined) return what;
  const before = text.slice(0, offset).split('\n');
  const cut = !ended && offset >= text.trimEnd().length ? ' (where the text ends: cut short?)' : '';
  return `${what} at line ${before.length}, column ${before.at(-1)!.length + 1}${cut}`;
}

/**
 * Load the plan of `clawcode apply`/`check`: from a path, `-` (stdin), or with `last` the project's kept last plan
 * (agent/kept-output.ts).
 *
 * @param source  the path as given, `-`, or undefined with `last`; a path may name a FIFO (`apply <(…)`), read
 *                as utils/input-file.ts reads inputs: never blocking a worker, at most MAX_INPUT_BYTES
 * @param signal   stops the wait for a pipe's writer (SIGTERM, Ctrl-C): rejects with its reason
 * @throws UsageError (exit 2) for both a source and `last`, or neither; PlanFileError (exit 2) when the file cannot
 *         be read (also a device, too large, not UTF-8), no plan was kept, or the text holds no plan
 */
export async function loadPlanSource(options: {
  source: string | undefined;
  last?: boolean;
  rootDir: string;
  cwd: string;
  readStdin: (signal?: AbortSignal) => Promise<Buffer>;
  homeDir?: string;
  signal?: AbortSignal;
}): Promise<{ plan: Plan; saved?: SavedPlan }> {
  const { source } = options;
  if (options.last) {
    if (source !== undefined) throw new UsageError('Give a plan file or --last, not both.');
    const text = await readLastPlan(options.rootDir, options.homeDir).catch((error: NodeJS.ErrnoException) => {
      throw new PlanFileError(`${LAST_PLAN} ${readProblem(error.code, error)}.`);
    });
    if (text === undefined) {
      throw new UsageError('No plan was kept for this project yet.', {
        code: 'no_last_plan',
        hint: 'Every task keeps its plan once the model answers, also when you say no or use --dry-run.',
      });
    }
    return readPlanText(text, LAST_PLAN);
  }
  if (source === undefined) {
    throw new UsageError('Name the plan: a file, - for standard input, or --last for the last plan of this project.');
  }
  let text: string;
  try {
    const bytes =
      source === '-'
        ? await options.readStdin(options.signal)
        : await readInputFile(resolve(options.cwd, source), { signal: options.signal });
    text = decodePlanBytes(bytes);
  } catch (error) {
    if (options.signal?.aborted && error === options.signal.reason) throw error;
    throw new PlanFileError(`${sourceName(source)} ${readProblem((error as NodeJS.ErrnoException).code, error)}.`);
  }
  return readPlanText(text, sourceName(source));
}

/**
 * A plan file's text: UTF-16 when it starts with a UTF-16 byte-order mark (what Windows PowerShell's `>`
 * writes, so a model answer saved there reads as JSON), UTF-8 otherwise.
 *
 * @throws InputFileError (`input_not_utf8`) for bytes that are neither
 */
export function decodePlanBytes(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  return decodeUtf8Input(bytes);
}

/** Why a file could not be read, in words. */
function readProblem(code: string | undefined, error: unknown): string {
  if (error instanceof InputFileError) return error.message;
  if (code === 'ENOENT') return 'not found';
  if (code === 'EISDIR') return 'is a folder, not a file';
  if (code === 'EACCES' || code === 'EPERM') return 'cannot be read: permission denied';
  return `cannot be read: ${code ?? (error as Error).message}`;
}
