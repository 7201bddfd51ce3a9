import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gitDirFor, type BenchTask } from './context-data.js';

/**
 * `npm run bench:mine -- OUT_DIR owner+name...`: a fresh set of commit tasks for
 * `bench/context.ts` from bare clones (CLAWCODE_BENCH_REPOS), one `tasks-public-owner+name.jsonl`
 * per repository in OUT_DIR, in the format of the public sets. Commits a rule was diagnosed on no
 * longer tell how it carries over; a fresh sample does. On 418 commits mined so
 * (7 projects of the held-out set, 4 new ones) hunk recall @18k / @60k was 0.580 / 0.779, where the
 * held-out set, on which rules had been diagnosed for several rounds, gave 0.710 / 0.880.
 *
 * A commit is kept when it is a non-merge, first-parent commit that modifies (status M only) 1 to 4
 * source files that are not tests, changes at most 12 files, and has a subject of 20 code points or
 * more that is not chore, CI, docs, release, build, style, a bump, a typo, a merge, a version or a
 * bot's. Trailers (`Co-authored-by:`, `Signed-off-by:`) and a trailing `(#123)` are dropped. Subjects
 * are kept once, and `perRepo` commits are taken evenly spread over the history, newest first.
 * Env: CLAWCODE_BENCH_REPOS (folder of bare clones, required), CLAWCODE_MINE_PER_REPO (default 40),
 * CLAWCODE_MINE_SKIP (a file of commit ids to leave out, one per line: an existing set).
 */

// What counts as gold is the benchmark's definition, kept apart from the ranker's own test rule
// (`TEST_PATH` in agent/context/rank.ts) on purpose: tuning the ranker must not move the gold.
const SOURCE = /\.(py|pyx|js|jsx|mjs|cjs|ts|tsx|mts|cts|go|rs|rb|java|kt|c|h|cc|cpp|hpp|cs|php|swift|vue|svelte)$/;
const TEST =
  /(^|\/)(tests?|__tests__|__mocks__|spec|specs|fixtures?|e2e|testing|testdata|__snapshots__|mocks?)\/|(^|\/)test_[^/]*$|_test\.[a-z]+$|\.(test|spec)\.[a-z]+$|(^|\/)conftest\.py$/;
const GENERATED = /\.d\.ts$|(^|\/)(dist|vendor|node_modules|third_party)\/|\.min\.js$/;
const SKIP_SUBJECT =
  /^(chore|ci|docs?|release|bump|build|style)\b|dependabot|renovate|typo|^merge\b|^v?\d+\.\d+|^version\b|^aider: |^copy$|^wip\b/i;
const TRAILER = /^\s*[\w-]+-by:/i;

/**
 * The tasks of one repository.
 *
 * @param gitDir   a clone's git dir (bare or not)
 * @param repo     the `owner+name` written in each task
 * @param perRepo  how many to keep (all when fewer qualify)
 * @param skip     commit ids to leave out
 * @returns tasks newest first, each with `set: 'commits'`
 * @throws when git fails on `gitDir`
 */
export function mineCommits(
  gitDir: string,
  repo: string,
  perRepo: number,
  skip: ReadonlySet<string> = new Set(),
): BenchTask[] {
  const log = execFileSync(
    'git',
    [
      '--git-dir',
      gitDir,
      'log',
      '--no-merges',
      '--first-parent',
      '--format=%x00%H %P%x01%B%x02',
      '--name-status',
      '--no-renames',
      'HEAD',
    ],
    { maxBuffer: 2 ** 30 },
  ).toString('utf8');
  const seen = new Set<string>();
  const found: BenchTask[] = [];
  for (const record of log.split('\0').slice(1)) {
    const [head = '', rest = ''] = record.split('\x01');
    const [message = '', names = ''] = rest.split('\x02');
    const ids = head.split(' ').filter((s) => s !== '');
    if (ids.length !== 2 || skip.has(ids[0]!)) continue;
    const [sha, parent] = ids as [string, string];
    const files = names
      .split('\n')
      .filter((l) => l.includes('\t'))
      .map((l) => l.split('\t') as [string, string]);
    if (files.length === 0 || files.length > 12) continue;
    const source = files.filter(([, p]) => SOURCE.test(p) && !TEST.test(p) && !GENERATED.test(p));
    if (source.length < 1 || source.length > 4 || source.some(([status]) => status !== 'M')) continue;
    const lines = message
      .trim()
      .split('\n')
      .filter((l) => !TRAILER.test(l));
    const subject = (lines[0] ?? '').trim().replace(/\s*\(#\d+\)\s*$/, '');
    if ([...subject].length < 20 || SKIP_SUBJECT.test(subject) || seen.has(subject.toLowerCase())) continue;
    seen.add(subject.toLowerCase());
    const body = lines.slice(1).join('\n').trim();
    found.push({
      repo,
      sha,
      parent,
      task: body ? `${subject}\n\n${body}` : subject,
      subject,
      gold: source.map(([, p]) => p).sort(),
      allChanged: files.map(([, p]) => p).sort(),
      set: 'commits',
    });
  }
  if (found.length <= perRepo) return found;
  // Evenly spread over the history, counted from the oldest.
  const oldestFirst = [...found].reverse();
  return Array.from(
    { length: perRepo },
    (_, i) => oldestFirst[Math.floor((i * oldestFirst.length) / perRepo)]!,
  ).reverse();
}

function main(): void {
  const [outDir, ...repos] = process.argv.slice(2);
  const reposDir = process.env.CLAWCODE_BENCH_REPOS;
  if (!outDir || repos.length === 0 || !reposDir) {
    console.error('usage: CLAWCODE_BENCH_REPOS=DIR npm run bench:mine -- OUT_DIR owner+name...');
    process.exitCode = 2;
    return;
  }
  const perRepo = Number(process.env.CLAWCODE_MINE_PER_REPO ?? 40);
  const skipFile = process.env.CLAWCODE_MINE_SKIP;
  const skip = new Set(
    skipFile
      ? readFileSync(skipFile, 'utf8')
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l !== '')
      : [],
  );
  mkdirSync(outDir, { recursive: true });
  for (const repo of repos) {
    const tasks = mineCommits(gitDirFor(resolve(reposDir), repo), repo, perRepo, skip);
    const lines = tasks.map(({ set: _set, ...t }) => JSON.stringify(t));
    writeFileSync(join(outDir, `tasks-public-${repo}.jsonl`), lines.length ? `${lines.join('\n')}\n` : '');
    console.log(`${repo}: ${tasks.length} tasks`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    main();
  } catch (e) {
    console.error(`bench:mine: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
    process.exitCode = 1;
  }
}
