import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gitDirFor } from './context-data.js';
import { mineCommits } from './mine-commits.js';

/**
 * `npm run bench:mine-edits -- OUT.json owner+name...`: a drifted find/replace set in the format of
 * ../shared/bench/edits-public.json, built from the history of bare clones (CLAWCODE_BENCH_REPOS), for
 * `CLAWCODE_EDITS_BENCH=OUT.json npm run bench:edits`. Commits are chosen as `bench:mine` chooses them;
 * each hunk of each modified source file becomes one exact edit (the old lines with 2 unchanged lines
 * around them as find, the new ones as replace, the commit's bytes as the expected result) and the same
 * edit drifted the way models drift it: trailing whitespace, a shifted or dropped indentation level,
 * tabs for spaces (or spaces for tabs), a blank line left out, typographic quotes, an elided middle; plus
 * a short one-line edit, and two that must be refused (a made-up word; a line the file has twice).
 * Env: CLAWCODE_BENCH_REPOS (required), CLAWCODE_MINE_PER_REPO (commits per repository, default 40).
 */

/** One case, as in edits-public.json: `expect` null means the engine must refuse. */
export interface EditCase {
  file: string;
  kind: string;
  find: string;
  replace: string;
  expect: { at: number; len: number; text: string } | null;
}

const CONTEXT = 2;
const MAX_FILE_CHARS = 400_000;

/**
 * The cases of one file changed by a commit.
 *
 * @param file    key of the old content in the output's `files`
 * @param before  the file at the parent commit (raw)
 * @param after   the file at the commit (raw)
 * @param hunks   the changed regions (as `git diff -U0` gives them, see `parseHunks`)
 * @returns the cases, every `expect` in UTF-16 offsets of `before`
 */
export function casesOfFile(file: string, before: string, after: string, hunks: readonly LineHunk[]): EditCase[] {
  const oldLines = before.split('\n');
  const newLines = after.split('\n');
  const out: EditCase[] = [];
  hunks.forEach((h, k) => {
    // Context must be unchanged lines, not another hunk's.
    const prevEnd = k > 0 ? hunks[k - 1]!.oldEnd : 0;
    const nextStart = k + 1 < hunks.length ? hunks[k + 1]!.oldStart : oldLines.length;
    const a = Math.max(prevEnd, h.oldStart - CONTEXT);
    const b = Math.min(nextStart, h.oldEnd + CONTEXT);
    const lead = h.oldStart - a;
    const trail = b - h.oldEnd;
    const findLines = oldLines.slice(a, b);
    const replLines = newLines.slice(h.newStart - lead, h.newEnd + trail);
    const [find, replace] = [findLines.join('\n'), replLines.join('\n')].map((s) => s.replace(/\r/g, '')) as [
      string,
      string,
    ];
    if (find.trim() === '' || find === replace || count(before.replace(/\r/g, ''), find) !== 1) return;
    if (before.includes('\r')) return; // the drift kinds below are defined on LF text
    const start = offsetOfLine(oldLines, a);
    const end = start + findLines.join('\n').length;
    const expect = minimalEdit(before, start, end, newLines.slice(h.newStart - lead, h.newEnd + trail).join('\n'));
    const seed = hash(`${file}#${k}`);
    const flat = before.replace(/\r/g, '');
    const push = (kind: string, f: string, r: string, e: EditCase['expect'] = expect) => {
      // A drift that quotes other text of the file exactly is an exact find of that text: not this edit.
      if (kind !== 'exact' && (f === find || (e !== null && kind !== 'short_unique' && flat.includes(f)))) return;
      out.push({ file, kind, find: f, replace: r, expect: e });
    };
    push('exact', find, replace);
    push(
      'trailing_ws',
      mapLines(find, (l, j) => (j % 2 === 0 ? `${l}  ` : l)),
      replace,
    );
    const tabs = /^\t/m.test(find);
    const shift = (s: string) => mapLines(s, (l) => (l.trim() === '' ? l : `  ${l}`));
    push('indent_shift', shift(find), shift(replace));
    const depth = Math.min(
      ...[find, replace]
        .flatMap((s) => s.split('\n'))
        .filter(nonBlank)
        .map(indentWidth),
    );
    if (depth > 0 && depth < Infinity) {
      const dedent = (s: string) => mapLines(s, (l) => (l.trim() === '' ? l : l.slice(depth)));
      push('dedent_uniform', dedent(find), dedent(replace));
    }
    const unit = indentUnit(oldLines);
    const swap = (s: string) =>
      mapLines(s, (l) =>
        tabs
          ? l.replace(/^\t+/, (t) => '    '.repeat(t.length))
          : l.replace(/^ +/, (sp) => '\t'.repeat(Math.floor(sp.length / unit)) + ' '.repeat(sp.length % unit)),
      );
    if (unit > 0 || tabs) push('tabs_spaces', swap(find), swap(replace));
    const lines = find.split('\n');
    const blank = lines.findIndex((l, j) => j > 0 && j < lines.length - 1 && l.trim() === '');
    if (blank > 0) push('blank_line_dropped', lines.filter((_, j) => j !== blank).join('\n'), replace);
    if (/['"]/.test(find)) push('smart_quotes', curlyQuotes(find), replace);
    if (lines.length >= 6) {
      const middle = lines.slice(2, -2);
      const at = middle.find(nonBlank) ?? '';
      push('elided_middle', [...lines.slice(0, 2), `${leading(at)}...`, ...lines.slice(-2)].join('\n'), replace);
    }
    const made = madeUp(find, seed);
    if (made) push('hallucinated', made, replace, null);
    const removed = oldLines.slice(h.oldStart, h.oldEnd);
    const added = newLines.slice(h.newStart, h.newEnd);
    if (removed.length === 1 && added.length === 1) {
      const line = removed[0]!.replace(/\r$/, '');
      const at = offsetOfLine(oldLines, h.oldStart);
      if (line.trim().length >= 10 && count(flat, line) === 1) {
        const e = minimalEdit(before, at, at + removed[0]!.length, added[0]!);
        push('short_unique', line, added[0]!.replace(/\r$/, ''), e);
      }
    }
    const twice = removed.map((l) => l.replace(/\r$/, '')).find((l) => l.trim().length >= 10 && count(before, l) > 1);
    if (twice) push('ambiguous', twice, added.join('\n').replace(/\r/g, '') || '', null);
  });
  return out;
}

/** A changed region, 0-based half-open line ranges on both sides. */
export interface LineHunk {
  oldStart: number;
  oldEnd: number;
  newStart: number;
  newEnd: number;
}

/** The hunks of `git diff -U0` output (`@@ -a,b +c,d @@` headers; a count of 0 names the line before). */
export function parseHunks(diff: string): LineHunk[] {
  const out: LineHunk[] = [];
  for (const m of diff.matchAll(/^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/gm)) {
    const [a, b, c, d] = [m[1], m[2] ?? '1', m[3], m[4] ?? '1'].map(Number) as [number, number, number, number];
    const oldStart = b === 0 ? a : a - 1;
    const newStart = d === 0 ? c : c - 1;
    out.push({ oldStart, oldEnd: oldStart + b, newStart, newEnd: newStart + d });
  }
  return out;
}

/** The edit of `before` that writes `text` over start..end, trimmed to the characters that change. */
function minimalEdit(before: string, start: number, end: number, text: string): EditCase['expect'] {
  const old = before.slice(start, end);
  let p = 0;
  while (p < old.length && p < text.length && old[p] === text[p]) p++;
  let s = 0;
  while (s < old.length - p && s < text.length - p && old[old.length - 1 - s] === text[text.length - 1 - s]) s++;
  return { at: start + p, len: old.length - p - s, text: text.slice(p, text.length - s) };
}

function offsetOfLine(lines: readonly string[], n: number): number {
  let at = 0;
  for (let i = 0; i < n; i++) at += lines[i]!.length + 1;
  return at;
}

function mapLines(s: string, f: (line: string, j: number) => string): string {
  return s
    .split('\n')
    .map((l, j) => f(l, j))
    .join('\n');
}

const nonBlank = (l: string) => l.trim() !== '';
const leading = (l: string) => /^[ \t]*/.exec(l)![0];
const indentWidth = (l: string) => leading(l).length;

/** The file's space indentation step: the smallest non-zero run of leading spaces (0 when none). */
function indentUnit(lines: readonly string[]): number {
  let unit = 0;
  for (const l of lines) {
    const n = /^ */.exec(l)![0].length;
    if (n > 0 && nonBlank(l) && (unit === 0 || n < unit)) unit = n;
  }
  return Math.min(unit, 8);
}

function curlyQuotes(s: string): string {
  let single = 0;
  let double = 0;
  return s.replace(/['"]/g, (q) =>
    q === "'" ? (single++ % 2 === 0 ? '\u2018' : '\u2019') : double++ % 2 === 0 ? '\u201C' : '\u201D',
  );
}

/** Find with one word of 4+ letters made up (`Xq` appended), on a line past the first when there is one. */
function madeUp(find: string, seed: number): string | undefined {
  const words = [...find.matchAll(/[A-Za-z_]{4,}/g)];
  if (words.length === 0) return undefined;
  const w = words[seed % words.length]!;
  const at = w.index + w[0].length;
  return `${find.slice(0, at)}Xq${find.slice(at)}`;
}

function count(haystack: string, needle: string): number {
  if (needle === '') return 0;
  let n = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) n++;
  return n;
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h;
}

function show(gitDir: string, rev: string, path: string): string | undefined {
  try {
    return execFileSync('git', ['--git-dir', gitDir, 'show', `${rev}:${path}`], { maxBuffer: 2 ** 28 }).toString(
      'utf8',
    );
  } catch {
    return undefined;
  }
}

function main(): void {
  const [out, ...repos] = process.argv.slice(2);
  const reposDir = process.env.CLAWCODE_BENCH_REPOS;
  if (!out || repos.length === 0 || !reposDir) {
    console.error('usage: CLAWCODE_BENCH_REPOS=DIR npm run bench:mine-edits -- OUT.json owner+name...');
    process.exitCode = 2;
    return;
  }
  const perRepo = Number(process.env.CLAWCODE_MINE_PER_REPO ?? 40);
  const files: Record<string, string> = {};
  const cases: EditCase[] = [];
  for (const repo of repos) {
    const gitDir = gitDirFor(resolve(reposDir), repo);
    let n = 0;
    for (const task of mineCommits(gitDir, repo, perRepo)) {
      for (const path of task.gold) {
        const before = show(gitDir, task.parent, path);
        const after = show(gitDir, task.sha, path);
        if (before === undefined || after === undefined || before.length > MAX_FILE_CHARS) continue;
        const key = `${repo}@${task.sha}:${path}`;
        const diff = execFileSync(
          'git',
          ['--git-dir', gitDir, 'diff', '-U0', '--no-color', task.parent, task.sha, '--', path],
          {
            maxBuffer: 2 ** 28,
          },
        ).toString('utf8');
        const found = casesOfFile(key, before, after, parseHunks(diff));
        if (found.length === 0) continue;
        files[key] = before;
        cases.push(...found);
        n += found.length;
      }
    }
    console.log(`${repo}: ${n} cases`);
  }
  const about =
    'Drifted find/replace edits built by bench/mine-edits.ts from real commits. expect=null: the engine must refuse. ' +
    'Otherwise expected file = content.slice(0,at)+text+content.slice(at+len).';
  writeFileSync(out, JSON.stringify({ about, files, cases }));
  console.log(`${cases.length} cases in ${out}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    main();
  } catch (e) {
    console.error(`bench:mine-edits: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
    process.exitCode = 1;
  }
}
