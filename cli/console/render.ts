import { realpathSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import chalk from 'chalk';
import type { PatchOutcome } from '../../utils/patch/plan-apply.js';
import { diffStats } from '../../utils/diff.js';
import { escapeControls } from '../../utils/terminal-text.js';

/**
 * Colour a unified diff for the terminal: headers bold, hunks cyan, additions green, removals red.
 * Control characters in the text (from the model or the files) are shown escaped, never sent raw.
 */
export function colorDiff(diff: string): string {
  return diff
    .split('\n')
    .map((raw) => {
      const line = escapeControls(raw.replace(/\r$/, ''));
      if (line.startsWith('+++') || line.startsWith('---')) return chalk.bold(line);
      if (line.startsWith('@@')) return chalk.cyan(line);
      if (line.startsWith('+')) return chalk.green(line);
      if (line.startsWith('-')) return chalk.red(line);
      if (line.startsWith('\\')) return chalk.dim(line);
      return line;
    })
    .join('\n');
}

/** One line per patch: ✓ file (strategy) or ✗ file: why (did you mean lines a–b?). */
export function formatPatchResults(results: readonly PatchOutcome[]): string {
  return results
    .map((r) => {
      const where = `#${r.index + 1} ${escapeControls(r.file)}`;
      if (r.applied) {
        const how = r.strategy && r.strategy !== 'exact' ? chalk.yellow(` (matched: ${r.strategy})`) : '';
        return `${chalk.green('✓')} ${where}${r.startLine ? chalk.dim(`:${r.startLine}`) : ''}${how}`;
      }
      return `${chalk.red('✗')} ${where}: ${escapeControls(r.error ?? 'not applied')}`;
    })
    .join('\n');
}

/** One line per refused path of a plan. */
export function formatPathIssues(issues: readonly { file: string; message: string }[]): string {
  return issues.map((i) => `${chalk.red('✗')} ${escapeControls(i.file)}: ${escapeControls(i.message)}`).join('\n');
}

/** "path  +a −r" lines for the files a run changes. */
export function formatChangeList(changes: readonly { path: string; diff: string; before: unknown }[]): string {
  return changes
    .map((c) => {
      const { added, removed } = diffStats(c.diff);
      const tag = c.before === null ? chalk.green(' (new)') : '';
      return `  ${escapeControls(c.path)}${tag}  ${chalk.green(`+${added}`)} ${chalk.red(`-${removed}`)}`;
    })
    .join('\n');
}

/** Format a token count and optional cost: "1,234 in / 567 out tokens (~$0.0012)". */
export function formatUsage(
  usage: { inputTokens: number; outputTokens: number } | undefined,
  costUsd?: number,
): string {
  if (!usage) return 'usage not reported';
  const cost = costUsd === undefined ? '' : ` (~$${costUsd < 0.01 ? costUsd.toFixed(4) : costUsd.toFixed(2)})`;
  return `${usage.inputTokens.toLocaleString('en-US')} in / ${usage.outputTokens.toLocaleString('en-US')} out tokens${cost}`;
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
