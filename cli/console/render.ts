import { realpathSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import chalk from 'chalk';
import type { PatchOutcome } from '../../utils/patch/plan-apply.js';
import type { PatchOp } from '../../utils/plan.js';
import type { PlannedChange } from '../../agent/prepare.js';
import { diffStats } from '../../utils/diff.js';
import { escapeTerminal } from '../../utils/terminal-text.js';

/**
 * Colour a unified diff for the terminal: headers bold, hunks cyan, additions green, removals red.
 * Control characters in the text (from the model or the files) are shown escaped, never sent raw.
 */
export function colorDiff(diff: string): string {
  return diff
    .split('\n')
    .map((raw) => {
      const line = escapeTerminal(raw.replace(/\r$/, ''));
      if (line.startsWith('+++') || line.startsWith('---')) return chalk.bold(line);
      if (line.startsWith('@@')) return chalk.cyan(line);
      if (line.startsWith('+')) return chalk.green(line);
      if (line.startsWith('-')) return chalk.red(line);
      if (line.startsWith('\\')) return chalk.dim(line);
      return line;
    })
    .join('\n');
}

/**
 * One line per patch: ✓ file (strategy), ✗ file: why (did you mean lines a–b?), a rule as
 * "rewrite `find` → `replace`: 143 matches in 37 files", a dropped patch with its note.
 * @param patches  the plan's patches (rules are shown by their pattern); omitted: every patch by its file
 */
export function formatPatchResults(results: readonly PatchOutcome[], patches?: readonly PatchOp[]): string {
  return results
    .map((r) => {
      const where = `#${r.index + 1} ${escapeTerminal(r.file, 'line')}`;
      const patch = patches?.[r.index];
      if (r.dropped) return `${chalk.yellow('–')} ${where}: ${escapeTerminal(r.note ?? 'dropped', 'line')}`;
      if (r.applied && r.files) {
        const n = r.files.length;
        const what =
          patch?.operation === 'rewrite'
            ? `rewrite \`${shortCode(patch.find)}\` → \`${shortCode(patch.replace)}\``
            : `replace all \`${shortCode(patch?.find ?? '')}\` in ${escapeTerminal(r.file, 'line')}`;
        const unparsed = r.unparsed?.length
          ? chalk.yellow(
              `; ${r.unparsed.length} file${r.unparsed.length === 1 ? '' : 's'} did not parse: ${r.unparsed
                .slice(0, 3)
                .map((p) => escapeTerminal(p, 'line'))
                .join(', ')}${r.unparsed.length > 3 ? ', …' : ''}`,
            )
          : '';
        const note = r.note ? chalk.dim(` (${escapeTerminal(r.note, 'line')})`) : '';
        return `${chalk.green('✓')} #${r.index + 1} ${what}: ${r.matchCount ?? 0} match${r.matchCount === 1 ? '' : 'es'} in ${n} file${n === 1 ? '' : 's'}${unparsed}${note}`;
      }
      if (r.applied) {
        const how = r.strategy && r.strategy !== 'exact' ? chalk.yellow(` (matched: ${r.strategy})`) : '';
        return `${chalk.green('✓')} ${where}${r.startLine ? chalk.dim(`:${r.startLine}`) : ''}${how}`;
      }
      return `${chalk.red('✗')} ${where}: ${escapeTerminal(r.error ?? 'not applied', 'line')}`;
    })
    .join('\n');
}

/** Code of a rule on one line, cut to 60 characters. */
function shortCode(code: string): string {
  const line = escapeTerminal(code.replace(/\s*\n\s*/g, ' ').trim(), 'line');
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

/** Group changed files by folder: `folder/  N files  +added −removed`, for the review's first screen. */
export function folderSummary(changes: readonly Pick<PlannedChange, 'path' | 'diff'>[]): string {
  const byFolder = new Map<string, { files: number; added: number; removed: number }>();
  for (const c of changes) {
    const folder = escapeTerminal(c.path.includes('/') ? c.path.slice(0, c.path.lastIndexOf('/') + 1) : './', 'line');
    const row = byFolder.get(folder) ?? { files: 0, added: 0, removed: 0 };
    row.files++;
    for (const line of c.diff.split('\n')) {
      if (line.startsWith('+') && !line.startsWith('+++')) row.added++;
      else if (line.startsWith('-') && !line.startsWith('---')) row.removed++;
    }
    byFolder.set(folder, row);
  }
  const width = Math.max(...[...byFolder.keys()].map((k) => k.length));
  return [...byFolder]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(
      ([folder, r]) =>
        `  ${folder.padEnd(width)}  ${String(r.files).padStart(3)} file${r.files === 1 ? ' ' : 's'}  +${r.added} −${r.removed}`,
    )
    .join('\n');
}

/** One line per refused path of a plan. */
export function formatPathIssues(issues: readonly { file: string; message: string }[]): string {
  return issues
    .map((i) => `${chalk.red('✗')} ${escapeTerminal(i.file, 'line')}: ${escapeTerminal(i.message, 'line')}`)
    .join('\n');
}

/** "path  +a −r" lines for the files a run changes. */
export function formatChangeList(changes: readonly { path: string; diff: string; before: unknown }[]): string {
  return changes
    .map((c) => {
      const { added, removed } = diffStats(c.diff);
      const tag = c.before === null ? chalk.green(' (new)') : '';
      return `  ${escapeTerminal(c.path, 'line')}${tag}  ${chalk.green(`+${added}`)} ${chalk.red(`-${removed}`)}`;
    })
    .join('\n');
}

/**
 * Format a token count and optional cost: "1,234 in / 567 out tokens (~$0.0012)". Counts the server did not
 * report (estimated from text length) read "~1,234 in / ~567 out tokens, estimated (~$0.0012)".
 */
export function formatUsage(
  usage: { inputTokens: number; outputTokens: number; estimated?: boolean } | undefined,
  costUsd?: number,
): string {
  if (!usage) return 'usage not reported';
  const cost = costUsd === undefined ? '' : ` (~$${costUsd < 0.01 ? costUsd.toFixed(4) : costUsd.toFixed(2)})`;
  const n = (tokens: number): string => `${usage.estimated ? '~' : ''}${tokens.toLocaleString('en-US')}`;
  return `${n(usage.inputTokens)} in / ${n(usage.outputTokens)} out tokens${usage.estimated ? ', estimated' : ''}${cost}`;
}

/** Format milliseconds for people: "850 ms", "4.2 s". */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** `1 file`, `2 files`: a count and its noun, plural unless the count is 1 (`many` for irregular plurals). */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? word : many}`;
}

/**
 * The `clawcode undo <runId>` command that works from `cwd`: with `--dir` (relative when that is shorter,
 * quoted for a POSIX shell when needed) unless `cwd` is the project root, since a run is looked up in the
 * project of the folder the command runs in.
 *
 * @param rootDir  the run's project root (absolute)
 * @param cwd      where the person types the command (default: this process's folder)
 */
export function undoCommand(runId: string, rootDir: string, cwd = process.cwd()): string {
  if (sameFolder(rootDir, cwd)) return `clawcode undo ${runId}`;
  const rel = relative(cwd, rootDir);
  const dir = rel && rel.length < rootDir.length ? rel : rootDir;
  return `clawcode undo ${runId} --dir ${shellWord(dir)}`;
}

function sameFolder(a: string, b: string): boolean {
  const real = (p: string): string => {
    try {
      return realpathSync.native(p);
    } catch {
      return resolve(p);
    }
  };
  return real(a) === real(b);
}

/** `word` as one POSIX shell word: as is when it holds only safe characters, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./~-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
