import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gitDirFor } from './context-data.js';
import type { EditCase } from './mine-edits.js';

/**
 * `npm run bench:mine-transcripts -- OUT.json owner+name...`: real find/replace edits that agent sessions
 * made, from bare clones (CLAWCODE_BENCH_REPOS), written in the format of edits-public.json for
 * `CLAWCODE_EDITS_BENCH=OUT.json npm run bench:edits`. Two sources per repository:
 * - aider: the `.aider.chat.history.md` the repository committed (its largest version) and the commits aider
 *   made; the file at the moment of an edit is the parent of the commit that holds its result;
 * - Claude Code: committed session transcripts (`*.jsonl` whose lines carry `toolUseResult`): an `Edit`
 *   call's result holds the whole file before it (`originalFile`), and a failed call is read against the
 *   file as the session last knew it (a full `Read`, or the previous edit applied), when it knows it.
 * Kinds:
 * - `verbatim`: SEARCH occurs exactly once in that file: the expected result is the exact replacement;
 * - `drifted`: SEARCH does not occur as written, and the commit made this one change to the file (one hunk,
 *   one block): the expected result is the commit's file;
 * - `failed_made_good`: the tool reported the edit as not matching, and a later edit of the session with the
 *   same replacement applied: the expected result is that later edit's (the model's own correction).
 * Blocks whose file cannot be found in the history are left out. Data is never committed (bench/README).
 */

const HISTORY = '.aider.chat.history.md';

interface Block {
  path: string;
  search: string;
  replace: string;
  failed: boolean;
}

/** SEARCH/REPLACE blocks of a chat history, in order, each marked failed when aider said it did not match. */
export function parseHistory(md: string): Block[] {
  const lines = md.split('\n');
  const blocks: Block[] = [];
  let pending: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // Aider's report that a block did not match, followed by the block echoed (`> `-quoted in older versions).
    const failed = /SEARCH block failed to exactly match lines in (.+?)\s*$/.exec(line);
    if (failed) {
      const path = normalPath(failed[1]!);
      const echoed = collectEcho(lines, i + 1);
      for (const b of pending) if (b.path === path && echoed !== undefined && b.search === echoed) b.failed = true;
      i = skipEcho(lines, i + 1);
      continue;
    }
    if (line.startsWith('> ')) continue;
    if (line.startsWith('#### ')) {
      pending = [];
      continue;
    }
    if (!/^<{5,9} SEARCH\s*$/.test(line)) continue;
    const path = fileNameBefore(lines, i);
    const sep = lines.findIndex((l, j) => j > i && /^={5,9}\s*$/.test(l));
    const end = lines.findIndex((l, j) => j > sep && /^>{5,9} REPLACE\s*$/.test(l));
    if (!path || sep < 0 || end < 0) continue;
    const block = {
      path,
      search: lines.slice(i + 1, sep).join('\n'),
      replace: lines.slice(sep + 1, end).join('\n'),
      failed: false,
    };
    blocks.push(block);
    pending.push(block);
    i = end;
  }
  return blocks;
}

/** The SEARCH text aider echoes in its failure report (`<<<<<<< SEARCH` … `=======`, maybe `> `-quoted). */
function collectEcho(lines: readonly string[], from: number): string | undefined {
  const start = lines.findIndex((l, j) => j >= from && j < from + 4 && /^(> )?<{5,9} SEARCH/.test(l));
  if (start < 0) return undefined;
  const quoted = lines[start]!.startsWith('> ');
  const out: string[] = [];
  for (let j = start + 1; j < lines.length; j++) {
    const l = quoted ? lines[j]!.replace(/^> ?/, '') : lines[j]!;
    if (/^={5,9}\s*$/.test(l)) return out.join('\n');
    out.push(l);
  }
  return undefined;
}

/** The line after an echoed block (its `>>>>>>> REPLACE`), or `from` when there is none. */
function skipEcho(lines: readonly string[], from: number): number {
  const start = lines.findIndex((l, j) => j >= from && j < from + 4 && /^(> )?<{5,9} SEARCH/.test(l));
  if (start < 0) return from - 1;
  const end = lines.findIndex((l, j) => j > start && /^(> )?>{5,9} REPLACE/.test(l));
  return end < 0 ? from - 1 : end;
}

function normalPath(p: string): string {
  return p.trim().replace(/\\/g, '/').replace(/^\.\//, '');
}

/** The file name written above a block: the nearest line before it that is not a fence or blank. */
function fileNameBefore(lines: readonly string[], at: number): string | undefined {
  for (let j = at - 1; j >= Math.max(0, at - 3); j--) {
    const l = lines[j]!.trim();
    if (l === '' || l.startsWith('```')) continue;
    return /^[\w./\\@+-]+$/.test(l) && l.includes('.') ? normalPath(l) : undefined;
  }
  return undefined;
}

function git(gitDir: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', ['--git-dir', gitDir, ...args], {
      maxBuffer: 2 ** 28,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).toString('utf8');
  } catch {
    return undefined;
  }
}

function count(haystack: string, needle: string): number {
  if (needle === '') return 0;
  let n = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) n++;
  return n;
}

/** The edit of `before` that turns it into `after`, trimmed to the characters that change. */
function minimalEdit(before: string, after: string): NonNullable<EditCase['expect']> {
  let p = 0;
  while (p < before.length && p < after.length && before[p] === after[p]) p++;
  let s = 0;
  while (s < before.length - p && s < after.length - p && before[before.length - 1 - s] === after[after.length - 1 - s])
    s++;
  return { at: p, len: before.length - p - s, text: after.slice(p, after.length - s) };
}

/** 1 when the texts differ in one run of lines (no line of the old run is kept in the new one), else 2. */
function hunks(before: string, after: string): number {
  const a = before.split('\n');
  const b = after.split('\n');
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  // One contiguous region differs when prefix and suffix together cover all but one run.
  const mid = a.slice(p, a.length - s);
  const midNew = b.slice(p, b.length - s);
  return mid.some((l) => midNew.includes(l)) ? 2 : 1;
}

/** The cases of one repository. */
export function casesOfRepo(gitDir: string, repo: string, files: Record<string, string>): EditCase[] {
  let md = '';
  for (const c of (git(gitDir, ['log', '--all', '--format=%H', '--', HISTORY]) ?? '').split('\n').filter(Boolean)) {
    const text = git(gitDir, ['show', `${c}:${HISTORY}`]);
    if (text !== undefined && text.length > md.length) md = text;
  }
  const blocks = parseHistory(md);
  const out: EditCase[] = [];
  const history = new Map<string, { sha: string; before: string; after: string }[]>();
  const versions = (path: string) => {
    if (!history.has(path)) {
      const shas = (git(gitDir, ['log', '--all', '--format=%H %P', '--', path]) ?? '').split('\n').filter(Boolean);
      const list: { sha: string; before: string; after: string }[] = [];
      for (const line of shas) {
        const [sha, parent] = line.split(' ');
        if (!sha || !parent) continue;
        const before = git(gitDir, ['show', `${parent}:${path}`]);
        const after = git(gitDir, ['show', `${sha}:${path}`]);
        if (before !== undefined && after !== undefined && before !== after) list.push({ sha, before, after });
      }
      history.set(path, list);
    }
    return history.get(path)!;
  };
  const seen = new Set<string>();
  blocks.forEach((b, k) => {
    if (b.search.trim() === '' || b.search === b.replace) return;
    const key = `${b.path}\u0000${b.search}\u0000${b.replace}`;
    if (seen.has(key)) return;
    seen.add(key);
    const list = versions(b.path);
    const add = (kind: string, v: { sha: string; before: string }, expect: EditCase['expect']) => {
      const file = `${repo}@${v.sha}:${b.path}`;
      files[file] = v.before;
      out.push({ file, kind, find: b.search, replace: b.replace, expect });
    };
    if (!b.failed) {
      const v = list.find((x) => count(x.before, b.search) === 1 && (b.replace === '' || x.after.includes(b.replace)));
      if (v) {
        const at = v.before.indexOf(b.search);
        add('verbatim', v, { at, len: b.search.length, text: b.replace });
        return;
      }
      const d = list.find(
        (x) =>
          !x.before.includes(b.search) &&
          b.replace.trim() !== '' &&
          x.after.includes(b.replace) &&
          !x.before.includes(b.replace),
      );
      const alone = blocks.filter(
        (o) => o.path === b.path && o.replace !== '' && d?.after.includes(o.replace) && !d.before.includes(o.replace),
      );
      if (d && alone.length === 1 && hunks(d.before, d.after) === 1) add('drifted', d, minimalEdit(d.before, d.after));
      return;
    }
    // Failed in aider: made good by a later block of the session with the same REPLACE that applied.
    const later = blocks.slice(k + 1).find((o) => !o.failed && o.path === b.path && o.replace === b.replace);
    if (!later) return;
    const v = list.find((x) => count(x.before, later.search) === 1 && x.after.includes(later.replace));
    if (!v) return;
    const at = v.before.indexOf(later.search);
    add('failed_made_good', v, { at, len: later.search.length, text: later.replace });
  });
  return out;
}

interface ToolUse {
  name: string;
  input: Record<string, unknown>;
}

/**
 * The `Edit` calls of a Claude Code session transcript (JSON lines), each with the file as the session knew
 * it before the call, or none when it does not: `originalFile` of a successful edit; for a failed one, the
 * last full `Read` of that path, or the last successful edit's file with its replacement applied.
 */
export function claudeEdits(
  jsonl: string,
): { path: string; content: string | undefined; find: string; replace: string; ok: boolean }[] {
  const uses = new Map<string, ToolUse>();
  const known = new Map<string, string>();
  const out: { path: string; content: string | undefined; find: string; replace: string; ok: boolean }[] = [];
  for (const line of jsonl.split('\n')) {
    let entry: { message?: { content?: unknown }; toolUseResult?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    const content = Array.isArray(entry.message?.content) ? (entry.message!.content as Record<string, unknown>[]) : [];
    for (const part of content) {
      if (part.type === 'tool_use' && typeof part.id === 'string')
        uses.set(part.id, { name: String(part.name), input: (part.input ?? {}) as Record<string, unknown> });
      if (part.type !== 'tool_result' || typeof part.tool_use_id !== 'string') continue;
      const use = uses.get(part.tool_use_id);
      const result = entry.toolUseResult as Record<string, unknown> | string | undefined;
      if (!use) continue;
      const path = String(use.input.file_path ?? '');
      if (use.name === 'Read' && result && typeof result === 'object') {
        const file = result.file as Record<string, unknown> | undefined;
        if (file && file.startLine === 1 && file.numLines === file.totalLines && typeof file.content === 'string')
          known.set(path, file.content);
      }
      if (use.name !== 'Edit' || use.input.replace_all === true) continue;
      const find = String(use.input.old_string ?? '');
      const replace = String(use.input.new_string ?? '');
      if (result && typeof result === 'object' && typeof result.originalFile === 'string') {
        out.push({ path, content: result.originalFile, find, replace, ok: true });
        const at = result.originalFile.indexOf(find);
        if (at >= 0)
          known.set(path, result.originalFile.slice(0, at) + replace + result.originalFile.slice(at + find.length));
      } else if (part.is_error === true || (typeof result === 'string' && /not found|did not match/i.test(result))) {
        out.push({ path, content: known.get(path), find, replace, ok: false });
      }
    }
  }
  return out;
}

/** The Claude Code edits of a repository's committed transcripts (see `claudeEdits`), as cases. */
function claudeCases(gitDir: string, repo: string, files: Record<string, string>): EditCase[] {
  const out: EditCase[] = [];
  const names = (git(gitDir, ['ls-tree', '-r', '--name-only', 'HEAD']) ?? '')
    .split('\n')
    .filter((n) => n.endsWith('.jsonl'));
  for (const name of names) {
    const text = git(gitDir, ['show', `HEAD:${name}`]) ?? '';
    if (!text.includes('toolUseResult')) continue;
    const edits = claudeEdits(text);
    edits.forEach((e, k) => {
      if (e.content === undefined || e.find === '' || e.find === e.replace) return;
      const file = `${repo}:${name}#${k}`;
      if (e.ok && count(e.content, e.find) === 1) {
        files[file] = e.content;
        out.push({
          file,
          kind: 'verbatim',
          find: e.find,
          replace: e.replace,
          expect: { at: e.content.indexOf(e.find), len: e.find.length, text: e.replace },
        });
        return;
      }
      if (e.ok) return;
      const later = edits
        .slice(k + 1)
        .find((o) => o.ok && o.path === e.path && o.replace === e.replace && o.content === e.content);
      if (!later || count(e.content, later.find) !== 1) return;
      files[file] = e.content;
      out.push({
        file,
        kind: 'failed_made_good',
        find: e.find,
        replace: e.replace,
        expect: { at: e.content.indexOf(later.find), len: later.find.length, text: later.replace },
      });
    });
  }
  return out;
}

function main(): void {
  const [outFile, ...repos] = process.argv.slice(2);
  const reposDir = process.env.CLAWCODE_BENCH_REPOS;
  if (!outFile || repos.length === 0 || !reposDir) {
    console.error('usage: CLAWCODE_BENCH_REPOS=DIR npm run bench:mine-transcripts -- OUT.json owner+name...');
    process.exitCode = 2;
    return;
  }
  const files: Record<string, string> = {};
  const cases: EditCase[] = [];
  for (const repo of repos) {
    let found: EditCase[] = [];
    try {
      const gitDir = gitDirFor(resolve(reposDir), repo);
      found = [...casesOfRepo(gitDir, repo, files), ...claudeCases(gitDir, repo, files)];
    } catch (e) {
      console.error(`${repo}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
    }
    cases.push(...found);
    if (found.length > 0) console.log(`${repo}: ${found.length} edits`);
  }
  const about =
    'Real find/replace edits from aider sessions (bench/mine-transcripts.ts). expect: see edits-public.json.';
  writeFileSync(outFile, JSON.stringify({ about, files, cases }));
  console.log(`${cases.length} edits in ${outFile}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
