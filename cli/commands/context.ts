import { escapeTerminal, terminalJson } from '../../utils/terminal-text.js';
import type { ContextResult } from '../../agent/context/build.js';
import { gatherContext } from '../../agent/context/gather.js';
import { describeBudget, type BudgetChoice } from '../../config/model-budget.js';

/**
 * `clawcode context "<task>"`: show what would be sent to the provider for a task, and why, without
 * calling one. `--json` prints exactly the shape in docs/architecture.md "Contracts"; otherwise a readable table.
 */

/** Options of `runContextCommand`; `budgetChars` is in characters. */
export interface ContextCommandOptions {
  rootDir: string;
  task: string;
  budgetChars: number;
  json: boolean;
  stdout: NodeJS.WritableStream;
  /** clawcode home for the index (default: CLAWCODE_HOME or ~/.clawcode) */
  homeDir?: string;
  /** Extra ignore patterns (settings `ignore`). */
  extraIgnore?: string[];
  /** `--files`: pathspecs pinned into the context. */
  files?: string[];
  /** where `budgetChars` came from: said under the table (not in `--json`, whose shape is fixed) */
  budget?: BudgetChoice;
}

/** The `--json` shape of docs/architecture.md "Contracts": nothing more, nothing less. */
function contextJson(r: ContextResult): {
  files: { path: string; score: number; chars: number; ranges: [number, number][] | null }[];
  totalChars: number;
  budget: number;
  scannedFiles: number;
  ms: number;
} {
  return {
    files: r.files.map((f) => ({
      path: f.path,
      score: Math.round(f.score * 1000) / 1000,
      chars: f.chars,
      ranges: f.ranges,
    })),
    totalChars: r.totalChars,
    budget: r.budget,
    scannedFiles: r.scannedFiles,
    ms: r.ms,
  };
}

function why(f: ContextResult['files'][number]): string {
  const p = f.parts;
  if (!p) return '';
  const bits: string[] = [];
  if (p.content > 0) bits.push(`text ${p.content.toFixed(2)}`);
  if (p.path > 0) bits.push(`path ${p.path.toFixed(2)}`);
  if (p.symbol > 0) bits.push(`defines ${p.symbol.toFixed(2)}`);
  if (p.neighbour > 0) bits.push('imported by a top file');
  if (p.prior < 1) bits.push(`×${p.prior} test/doc`);
  return bits.length > 0 ? bits.join(', ') : 'no match (fallback)';
}

/** `text` cut to `width` characters with an ellipsis where it was cut (its start or its end). */
function fit(text: string, width: number, cut: 'start' | 'end'): string {
  if (text.length <= width) return text;
  return cut === 'start' ? `…${text.slice(text.length - width + 1)}` : `${text.slice(0, width - 1)}…`;
}

/**
 * The line shown before a request is sent: its size in characters and estimated tokens, what those
 * input tokens cost at the model's list price when it is known (USD), and the context's share.
 */
export function formatPromptEstimate(
  p: { chars: number; estimatedTokens: number; contextChars: number; budgetChars: number },
  inputCostUsd?: number | null,
): string {
  const n = (x: number): string => x.toLocaleString('en-US');
  const cost = inputCostUsd == null ? '' : `, ~$${inputCostUsd.toFixed(inputCostUsd < 0.01 ? 4 : 2)} in`;
  return `Sending ${n(p.chars)} chars (~${n(p.estimatedTokens)} tokens${cost}): context ${n(p.contextChars)} of ${n(p.budgetChars)} chars`;
}

/** Render the readable table of a context result (no colour: it may be piped). */
export function formatContextTable(r: ContextResult): string {
  const rows = r.files.map((f) => ({
    path: escapeTerminal(f.path, 'line'),
    score: f.score.toFixed(3),
    chars: String(f.chars),
    sent: f.ranges === null ? 'whole' : f.ranges.map(([a, b]) => `${a}-${b}`).join(','),
    why: why(f),
  }));
  const head = { path: 'file', score: 'score', chars: 'chars', sent: 'lines', why: 'why' };
  const all = [head, ...rows];
  const w = (k: keyof typeof head): number => Math.max(...all.map((row) => row[k].length));
  const [wp, ws, wc, wl] = [Math.min(w('path'), 60), w('score'), w('chars'), Math.min(w('sent'), 28)];
  // Capped columns cut their text (a path keeps its end, a range list its start) so the columns after them align.
  const line = (row: typeof head): string =>
    `${fit(row.path, wp, 'start').padEnd(wp)}  ${row.score.padStart(ws)}  ${row.chars.padStart(wc)}  ${fit(row.sent, wl, 'end').padEnd(wl)}  ${row.why}`.trimEnd();
  const out = [line(head), ...rows.map(line)];
  out.push('');
  out.push(
    `${r.files.length} files, ${r.totalChars} of ${r.budget} characters (outline ${r.outline.length}); scanned ${r.scannedFiles} files in ${r.ms} ms`,
  );
  for (const red of r.redactions)
    out.push(
      `redacted ${red.count} ${red.kind.replace(/_/g, ' ')}${red.count > 1 ? 's' : ''} in ${escapeTerminal(red.path, 'line')}`,
    );
  return `${out.join('\n')}\n`;
}

/**
 * Run `clawcode context`: build the context for `task` and write it to `stdout`.
 * @throws whatever buildContext throws (it does not throw for unreadable files)
 */
export async function runContextCommand(options: ContextCommandOptions): Promise<void> {
  // The same budget split as a task (agent/runner.ts): instructions are counted in the budget.
  const { context, instructions } = await gatherContext({
    rootDir: options.rootDir,
    task: options.task,
    budgetChars: options.budgetChars,
    homeDir: options.homeDir,
    extraIgnore: options.extraIgnore,
    files: options.files,
  });
  const result: ContextResult = {
    ...context,
    budget: options.budgetChars,
    totalChars: context.totalChars + instructions.chars,
  };
  if (options.json) {
    options.stdout.write(`${terminalJson(contextJson(result))}\n`);
    return;
  }
  const note =
    (instructions.files.length
      ? `instructions: ${instructions.files.map((f) => escapeTerminal(f, 'line')).join(', ')} (${instructions.chars} chars${instructions.truncated ? ', truncated' : ''})\n`
      : '') + (options.budget ? `${describeBudget(options.budget)}\n` : '');
  options.stdout.write(escapeTerminal(formatContextTable(result) + note, 'colored'));
}
