import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gitDirFor, type BenchTask } from './context-data.js';
import { globMatches, guessesFromLine, importsOnly, pathspecsFor, type RuleGuess } from './codemod-infer.js';
import { rewriteFile } from '../utils/patch/rewrite.js';
import { languageOfPath } from '../utils/patch/rewrite-lang.js';
import { checkTemplateVars } from '../utils/rule-vars.js';

/**
 * `npm run bench:mine-codemods -- OUT_DIR owner+name...`: the public codemod set, real commits whose whole
 * change one rule reproduces exactly, written to OUT_DIR/tasks-public-codemods.jsonl (one task a line,
 * `CodemodTask`). A commit qualifies when it is a first-parent non-merge commit that modifies (never adds,
 * deletes or renames) 1 to 80 files of one extension a grammar covers, each with as many lines removed as
 * added, 400 changed lines at most; and when a rule guessed from its changed lines (bench/codemod-infer.ts),
 * applied by the rewrite engine to every file of a pathspec that names more files than the commit changed,
 * changes exactly the commit's files into exactly their new bytes, at two sites or more. A literal
 * replaced must look like a module path (no spaces, not a version number). Newest first.
 * Env: CLAWCODE_BENCH_REPOS (folder of clones, required), CLAWCODE_MINE_PER_REPO (default 12),
 * CLAWCODE_MINE_SCAN (commits looked at per repository, default 3000), CLAWCODE_SG (an ast-grep CLI
 * binary: each kept commit is also replayed with `sg run -U`, recorded as `sgExact`), CLAWCODE_MINE_JUDGE=sg
 * (keep the commits ast-grep's CLI reproduces, not clawcode's engine: a set chosen without our engine).
 */

/** One line of tasks-public-codemods.jsonl: a commit task (`gold` = every file it changed) with its rule. */
export interface CodemodTask extends Omit<BenchTask, 'set' | 'hunks' | 'id' | 'allChanged'> {
  allChanged: string[];
  kind: RuleGuess['kind'];
  /** files the pathspec names at `parent` (more than `gold`) */
  pathspecFiles: number;
  /** the plan holding the one rule, as `clawcode apply` reads it */
  plan: {
    analysis: string;
    files_to_edit: { path: string; reason: string }[];
    patches: {
      file: string;
      operation: 'rewrite';
      find: string;
      replace: string;
      replace_all: null;
      occurrence: null;
    }[];
    commands: string[];
    agent_notes: string[];
  };
  /** whether ast-grep's CLI (`sg run -p find -r replace -U` on the same files) gives the same bytes */
  sgExact?: boolean;
}

const git = (gitDir: string, args: string[]): string =>
  execFileSync('git', ['--git-dir', gitDir, ...args], { maxBuffer: 2 ** 30 }).toString('utf8');

/** Blobs by `rev:path`, read with one `git cat-file --batch`; a missing one maps to undefined. */
function readBlobs(gitDir: string, refs: readonly string[]): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  if (refs.length === 0) return out;
  const res = spawnSync('git', ['--git-dir', gitDir, 'cat-file', '--batch'], {
    input: refs.join('\n') + '\n',
    maxBuffer: 2 ** 31 - 1,
  });
  const buf = res.stdout;
  let at = 0;
  for (const ref of refs) {
    const nl = buf.indexOf(10, at);
    const header = buf.subarray(at, nl).toString('utf8');
    at = nl + 1;
    if (header.endsWith(' missing')) {
      out.set(ref, undefined);
      continue;
    }
    const size = Number(header.split(' ')[2]);
    out.set(ref, buf.subarray(at, at + size).toString('utf8'));
    at += size + 1;
  }
  return out;
}

interface Candidate {
  sha: string;
  parent: string;
  subject: string;
  files: string[];
}

/**
 * Commits whose shape fits a mechanical change (see the module comment), newest first. A snapshot mirror
 * lacking a blob fails `git log --numstat` as a whole: then the log is read with `--raw` (no blob read) and
 * each commit that only modifies files is counted alone, a commit whose blobs are missing being skipped.
 */
function candidates(gitDir: string, scan: number): Candidate[] {
  const args = ['log', '--no-merges', '--first-parent', '--no-renames', `-n${scan}`, '--format=%x00%H %P%x01%s'];
  let log: string;
  let raw = false;
  try {
    log = git(gitDir, [...args, '--numstat', 'HEAD']);
  } catch {
    log = git(gitDir, [...args, '--raw', 'HEAD']);
    raw = true;
  }
  const out: Candidate[] = [];
  for (const record of log.split('\0').slice(1)) {
    const [head = '', rest = ''] = record.split('\x01');
    const [subject = '', ...lines] = rest.split('\n');
    const ids = head.trim().split(' ');
    if (ids.length !== 2) continue;
    let stats = lines.filter((l) => l.includes('\t')).map((l) => l.split('\t'));
    if (raw) {
      // `:100644 100644 a b M\tpath`: only commits that modify files in place are worth counting.
      const inPlace = stats.every(([meta, p]) => / M$/.test(meta ?? '') && p && languageOfPath(p));
      if (stats.length === 0 || stats.length > 80 || !inPlace) continue;
      try {
        stats = git(gitDir, ['diff', '--numstat', '--no-renames', ids[1]!, ids[0]!])
          .split('\n')
          .filter((l) => l.includes('\t'))
          .map((l) => l.split('\t'));
      } catch {
        continue;
      }
    }
    if (stats.length === 0 || stats.length > 80) continue;
    let total = 0;
    const ok = stats.every(([add, del, p]) => {
      total += Number(add);
      return add === del && add !== '0' && add !== '-' && p !== undefined && languageOfPath(p) !== undefined;
    });
    if (!ok || total > 400) continue;
    const files = stats.map((s) => s[2]!);
    if (pathspecsFor(files).length === 0) continue;
    out.push({ sha: ids[0]!, parent: ids[1]!, subject: subject.trim(), files });
  }
  return out;
}

/** Rule guesses from every in-place changed line of a commit, most frequent first. */
function guessesOf(gitDir: string, c: Candidate): RuleGuess[] {
  const diff = git(gitDir, ['diff', '-U0', '--no-color', '--no-renames', c.parent, c.sha]);
  const counts = new Map<string, { g: RuleGuess; n: number }>();
  const changedLines = diff
    .split('\n')
    .filter((l) => /^[-+](?![-+]{2} )/.test(l))
    .map((l) => l.slice(1));
  const moves = importsOnly(changedLines);
  for (const hunk of diff.split(/^@@ /m).slice(1)) {
    const body = hunk.split('\n').slice(1);
    const removed = body.filter((l) => l.startsWith('-')).map((l) => l.slice(1));
    const added = body.filter((l) => l.startsWith('+')).map((l) => l.slice(1));
    if (removed.length !== added.length) continue;
    removed.forEach((line, i) => {
      for (const guess of guessesFromLine(line, added[i]!)) {
        const g: RuleGuess = moves ? { ...guess, kind: 'import-move' } : guess;
        const key = `${g.find}\0${g.replace}`;
        const e = counts.get(key) ?? { g, n: 0 };
        e.n++;
        counts.set(key, e);
      }
    });
  }
  return [...counts.values()]
    .sort((a, b) => b.n - a.n)
    .slice(0, 8)
    .map((e) => e.g);
}

/** Files of `parent` a rule over `spec` would read: regular, under 1 MB, not minified or a snapshot. */
function filesOf(listing: string, spec: string): string[] {
  const out: string[] = [];
  for (const line of listing.split('\n')) {
    const m = /^(\d+) blob \S+\s+(\d+|-)\t(.*)$/.exec(line);
    if (!m || m[1] === '120000' || Number(m[2]) > 1_000_000) continue;
    const p = m[3]!;
    if (/\.(min|bundle)\.[cm]?js$|\.snap$|(^|\/)__snapshots__\//.test(p)) continue;
    if (globMatches(spec, p) && languageOfPath(p)) out.push(p);
  }
  return out;
}

/** What a rule does to some files: the new text of each file it changed, and how many nodes it replaced. */
type Engine = (texts: Map<string, string>, g: RuleGuess) => { changed: Map<string, string>; sites: number };

/** The rewrite engine of clawcode (utils/patch/rewrite.ts), in this process. */
const ourEngine: Engine = (texts, g) => {
  const changed = new Map<string, string>();
  let sites = 0;
  for (const [path, content] of texts) {
    const r = rewriteFile({ path, content, find: g.find, replace: g.replace });
    if (!r.ok || r.content === content) continue;
    sites += r.matches;
    changed.set(path, r.content);
  }
  return { changed, sites };
};

/** ast-grep's CLI on the same files written to a temporary folder (`sg run --json`, then `sg run -U`). */
function sgEngine(sg: string): Engine {
  return (texts, g) => {
    const dir = mkdtempSync(join(tmpdir(), 'clawcode-mine-sg-'));
    try {
      for (const [path, content] of texts) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), content);
      }
      const run = (...extra: string[]) =>
        spawnSync(sg, ['run', '-p', g.find, '-r', g.replace, ...extra], { cwd: dir, maxBuffer: 2 ** 30 });
      const found = run('--json=compact').stdout.toString('utf8').trim();
      const sites = found.startsWith('[') ? (JSON.parse(found) as unknown[]).length : 0;
      if (sites > 0) run('-U');
      const changed = new Map<string, string>();
      for (const [path, content] of texts) {
        const after = readFileSync(join(dir, path), 'utf8');
        if (after !== content) changed.set(path, after);
      }
      return { changed, sites };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

/**
 * The first guess and pathspec that turn `parent` into `sha` exactly, or undefined: `engine` changes the
 * commit's files into their new bytes and no other file of the pathspec, at two sites or more.
 */
function reproduce(gitDir: string, c: Candidate, guesses: RuleGuess[], engine: Engine) {
  const refs = c.files.flatMap((f) => [`${c.parent}:${f}`, `${c.sha}:${f}`]);
  const blobs = readBlobs(gitDir, refs);
  const exactly = (changed: Map<string, string>) =>
    changed.size === c.files.length && c.files.every((f) => changed.get(f) === blobs.get(`${c.sha}:${f}`));
  // First on the changed files alone (a few blobs): most guesses fail there, before any pathspec is read.
  const parentTexts = new Map<string, string>();
  for (const f of c.files) {
    const text = blobs.get(`${c.parent}:${f}`);
    if (text === undefined) return undefined;
    parentTexts.set(f, text);
  }
  const fits = guesses.filter((g) => !checkTemplateVars(g.find, g.replace) && exactly(engine(parentTexts, g).changed));
  if (fits.length === 0) return undefined;
  const listing = git(gitDir, ['ls-tree', '-r', '-l', c.parent]);
  for (const spec of pathspecsFor(c.files)) {
    const files = filesOf(listing, spec);
    if (files.length <= c.files.length || !c.files.every((f) => files.includes(f))) continue;
    const before = readBlobs(
      gitDir,
      files.map((f) => `${c.parent}:${f}`),
    );
    const texts = new Map<string, string>();
    for (const f of files) {
      const text = before.get(`${c.parent}:${f}`);
      if (text !== undefined) texts.set(f, text);
    }
    for (const g of fits) {
      const { changed, sites } = engine(texts, g);
      // A file the commit did not change must stay as it is; one site is an edit, not a codemod.
      if (exactly(changed) && sites >= 2) return { guess: g, spec, files, sites };
    }
  }
  return undefined;
}

/** Whether `sg run -U` with the rule, over the same files of the parent tree, gives the commit's bytes. */
function sgReproduces(sg: string, gitDir: string, task: CodemodTask, files: string[]): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'clawcode-mine-sg-'));
  try {
    const tar = join(dir, 'tree.tar');
    execFileSync('git', ['--git-dir', gitDir, 'archive', '-o', tar, task.parent, '--', ...files]);
    execFileSync('tar', ['-xf', tar, '-C', dir]);
    const rule = task.plan.patches[0]!;
    spawnSync(sg, ['run', '-p', rule.find, '-r', rule.replace, '-U', ...files], { cwd: dir });
    const after = readBlobs(
      gitDir,
      task.gold.map((f) => `${task.sha}:${f}`),
    );
    return task.gold.every((f) => readFileSync(join(dir, f), 'utf8') === after.get(`${task.sha}:${f}`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The codemod tasks of one repository.
 * @param gitDir   a clone's git dir (bare or not)
 * @param repo     `owner+name`, written in each task
 * @param perRepo  how many to keep
 * @param scan     how many commits to look at, newest first
 * @param sg       ast-grep's CLI binary: each kept task is replayed with it too (`sgExact`)
 * @param judge    which engine must reproduce a commit to keep it: clawcode's, or ast-grep's CLI (`sg`
 *                 required), which keeps commits chosen without clawcode's engine
 */
export function mineCodemods(
  gitDir: string,
  repo: string,
  perRepo: number,
  scan: number,
  sg?: string,
  judge: 'clawcode' | 'sg' = 'clawcode',
): CodemodTask[] {
  const engine = judge === 'sg' && sg ? sgEngine(sg) : ourEngine;
  const out: CodemodTask[] = [];
  for (const c of candidates(gitDir, scan)) {
    if (out.length >= perRepo) break;
    let found;
    try {
      const guesses = guessesOf(gitDir, c);
      if (guesses.length === 0) continue;
      found = reproduce(gitDir, c, guesses, engine);
    } catch {
      continue; // a commit whose objects the snapshot lacks
    }
    if (!found) continue;
    const task: CodemodTask = {
      repo,
      sha: c.sha,
      parent: c.parent,
      task: c.subject,
      subject: c.subject,
      gold: [...c.files].sort(),
      allChanged: [...c.files].sort(),
      kind: found.guess.kind,
      pathspecFiles: found.files.length,
      plan: {
        analysis: c.subject,
        files_to_edit: [],
        patches: [
          {
            file: found.spec,
            operation: 'rewrite',
            find: found.guess.find,
            replace: found.guess.replace,
            replace_all: null,
            occurrence: null,
          },
        ],
        commands: [],
        agent_notes: [],
      },
    };
    if (sg) task.sgExact = sgReproduces(sg, gitDir, task, found.files);
    out.push(task);
    process.stderr.write(
      `${repo} ${c.sha.slice(0, 10)} ${task.kind} ${found.spec}: ${found.guess.find} → ${found.guess.replace} (${found.sites} sites, ${c.files.length}/${found.files.length} files)\n`,
    );
  }
  return out;
}

function main(): void {
  const [outDir, ...repos] = process.argv.slice(2);
  const reposDir = process.env.CLAWCODE_BENCH_REPOS;
  if (!outDir || repos.length === 0 || !reposDir) {
    console.error('usage: CLAWCODE_BENCH_REPOS=DIR npm run bench:mine-codemods -- OUT_DIR owner+name...');
    process.exit(2);
  }
  const perRepo = Number(process.env.CLAWCODE_MINE_PER_REPO ?? 12);
  const scan = Number(process.env.CLAWCODE_MINE_SCAN ?? 3000);
  const sg = process.env.CLAWCODE_SG;
  const judge = process.env.CLAWCODE_MINE_JUDGE === 'sg' ? 'sg' : 'clawcode';
  if (judge === 'sg' && !sg) {
    console.error('CLAWCODE_MINE_JUDGE=sg needs CLAWCODE_SG (an ast-grep CLI binary)');
    process.exit(2);
  }
  mkdirSync(outDir, { recursive: true });
  const all: CodemodTask[] = [];
  for (const repo of repos) {
    try {
      all.push(...mineCodemods(gitDirFor(reposDir, repo), repo, perRepo, scan, sg, judge));
    } catch (error) {
      // A snapshot with missing objects (or no clone) costs that repository, not the run.
      console.error(`${repo}: skipped: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  const file = join(outDir, 'tasks-public-codemods.jsonl');
  writeFileSync(file, all.map((t) => JSON.stringify(t)).join('\n') + (all.length > 0 ? '\n' : ''));
  const kinds = new Map<string, number>();
  for (const t of all) kinds.set(t.kind, (kinds.get(t.kind) ?? 0) + 1);
  const sgLine = sg ? `; sg run -U gives the same bytes on ${all.filter((t) => t.sgExact).length}` : '';
  console.log(
    `${all.length} tasks (${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ')}) from ${repos.length} repositories → ${file}${sgLine}`,
  );
}

if (import.meta.url === pathToFileURL(resolve(process.argv[1] ?? '')).href) main();
