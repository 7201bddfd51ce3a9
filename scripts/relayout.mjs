#!/usr/bin/env node
// Apply the folder layout of docs/architecture.md: move files with `git mv` and rewrite every relative
// import that points at a moved file, in every .ts/.tsx/.mts/.mjs/.js file of the repository (and the
// moved paths where comments or Markdown name them).
//
//   node scripts/relayout.mjs            move and rewrite (run from anywhere inside the repository)
//   node scripts/relayout.mjs --dry-run  print what it would do, change nothing
//
// Target mapping (source → destination). Exact rows first; the prefix rules then catch files added
// since this table was written (e.g. a new utils/journal-foo.ts becomes utils/journal/foo.ts).
//
// | from                        | to                                  |
// |-----------------------------|-------------------------------------|
// | utils/scanner.ts            | agent/context/scan.ts               |
// | utils/tokenize.ts           | agent/context/tokenize.ts           |
// | agent/context-index.ts      | agent/context/index.ts              |
// | agent/selector.ts           | agent/context/rank.ts               |
// | agent/context-symbols.ts    | agent/context/symbols.ts            |
// | agent/context-pack.ts       | agent/context/pack.ts               |
// | agent/context-regions.ts    | agent/context/regions.ts            |
// | agent/context-outline.ts    | agent/context/outline.ts            |
// | agent/instructions.ts       | agent/context/instructions.ts       |
// | agent/context-<x>.ts        | agent/context/<x>.ts                |
// | utils/patch-<x>.ts          | utils/patch/<x>.ts                  |
// | utils/journal.ts            | utils/journal/journal.ts            |
// | utils/journal-<x>.ts        | utils/journal/<x>.ts  (store, undo) |
// | utils/lock.ts               | utils/journal/lock.ts               |
//
// Stays: utils/patch.ts (the contract benchmarks import; dist/utils/patch.js), agent/context.ts (the
// context stage's entry, beside its folder), agent/prompt-context.ts.
//
// Tests move with their modules: tests/<dir>/<name>.test.ts and tests/<dir>/<name>.<kind>.test.ts of a
// moved <dir>/<name>.ts go to the mirrored path; tests/utils/journal-<x>.test.ts (suites of the
// journal without a module of that name) go to tests/utils/journal/<x>.test.ts.
//
// Idempotent: a row whose source is gone and whose destination exists is reported as done. A second run
// moves nothing and rewrites nothing.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';

const EXACT = [
  ['utils/scanner.ts', 'agent/context/scan.ts'],
  ['utils/tokenize.ts', 'agent/context/tokenize.ts'],
  ['agent/context-index.ts', 'agent/context/index.ts'],
  ['agent/selector.ts', 'agent/context/rank.ts'],
  ['agent/instructions.ts', 'agent/context/instructions.ts'],
  ['utils/journal.ts', 'utils/journal/journal.ts'],
  ['utils/lock.ts', 'utils/journal/lock.ts'],
  // Engines in rooms of their own (utils/policy, utils/shell), the cli grouped by surface.
  ['utils/path-policy.ts', 'utils/policy/paths.ts'],
  ['utils/path-real.ts', 'utils/policy/real-path.ts'],
  ['utils/plan-check.ts', 'utils/policy/plan-check.ts'],
  ['utils/secrets.ts', 'utils/policy/secrets.ts'],
  ['utils/secret-rules.ts', 'utils/policy/secret-rules.ts'],
  ['utils/commands.ts', 'utils/shell/run.ts'],
  ['utils/command-approval.ts', 'utils/shell/approval.ts'],
  ['utils/command-safety.ts', 'utils/shell/safety.ts'],
  ['utils/command-rules.ts', 'utils/shell/rules.ts'],
  ['utils/shell-parse.ts', 'utils/shell/parse.ts'],
  ['utils/sandbox.ts', 'utils/shell/sandbox.ts'],
  ['utils/durable-write.ts', 'utils/journal/durable-write.ts'],
  ['agent/context.ts', 'agent/context/build.ts'],
  ['agent/prompt-context.ts', 'agent/context/gather.ts'],
  ['agent/executor.ts', 'agent/prepare.ts'],
  ['agent/context/index.ts', 'agent/context/search-index.ts'],
  ['cli/flow.ts', 'cli/task/flow.ts'],
  ['cli/task-command.ts', 'cli/task/command.ts'],
  ['cli/write-console.ts', 'cli/task/write-console.ts'],
  ['cli/commands-step.ts', 'cli/task/commands-step.ts'],
  ['cli/after-write.ts', 'cli/task/after-write.ts'],
  ['cli/review.ts', 'cli/task/review.ts'],
  ['cli/review-terminal.ts', 'cli/task/review-terminal.ts'],
  ['cli/editor.ts', 'cli/task/editor.ts'],
  ['cli/report-changes.ts', 'cli/task/report-changes.ts'],
  ['cli/report-cost.ts', 'cli/task/report-cost.ts'],
  ['cli/print-prompt.ts', 'cli/task/print-prompt.ts'],
  ['cli/wide-flow.ts', 'cli/wide/flow.ts'],
  ['cli/wide-report.ts', 'cli/wide/report.ts'],
  ['cli/config.ts', 'cli/config/command.ts'],
  ['cli/config-onboarding.ts', 'cli/config/onboarding.ts'],
  ['cli/config-show.ts', 'cli/config/show.ts'],
  ['cli/trust-prompt.ts', 'cli/config/trust-prompt.ts'],
  ['cli/home-permissions.ts', 'cli/config/home-permissions.ts'],
  ['cli/undo.ts', 'cli/commands/undo.ts'],
  ['cli/undo-commit.ts', 'cli/commands/undo-commit.ts'],
  ['cli/history.ts', 'cli/commands/history.ts'],
  ['cli/apply-command.ts', 'cli/commands/apply.ts'],
  ['cli/context.ts', 'cli/commands/context.ts'],
  ['cli/init-command.ts', 'cli/commands/init.ts'],
  ['cli/memory-command.ts', 'cli/commands/memory.ts'],
  ['cli/interactive.ts', 'cli/interactive/start.ts'],
  ['cli/repl.ts', 'cli/interactive/repl.ts'],
  ['cli/session.ts', 'cli/interactive/session.ts'],
  ['cli/projects.ts', 'cli/interactive/projects.ts'],
  ['cli/history-file.ts', 'cli/interactive/history-file.ts'],
  ['cli/ask.ts', 'cli/console/ask.ts'],
  ['cli/closed-pipe.ts', 'cli/console/closed-pipe.ts'],
  ['cli/interrupt.ts', 'cli/console/interrupt.ts'],
  ['cli/render.ts', 'cli/console/render.ts'],
];
/** Prefix rules for source files: [regex over the repo-relative path, replacement]. */
const RULES = [
  [/^agent\/context-([\w.-]+)\.(tsx?)$/, 'agent/context/$1.$2'],
  [/^utils\/patch-([\w.-]+)\.(tsx?)$/, 'utils/patch/$1.$2'],
  [/^utils\/journal-([\w.-]+)\.(tsx?)$/, 'utils/journal/$1.$2'],
];
/** Test suites named after a folder but not after one module. */
const TEST_RULES = [[/^tests\/utils\/journal-([\w.-]+)\.test\.ts$/, 'tests/utils/journal/$1.test.ts']];

const CODE = /\.(ts|tsx|mts|mjs|js)$/;
const SKIP = /^(node_modules|dist|coverage|bench\/\.cache)\//;

const dryRun = process.argv.includes('--dry-run');
const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();
const git = (...args) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' });

const files = git('ls-files', '--cached', '--others', '--exclude-standard', '-z')
  .split('\0')
  .filter((f) => f && !SKIP.test(f) && existsSync(join(root, f)));
const fileSet = new Set(files);

// 1. The moves: exact rows, prefix rules, then the tests of moved modules.
const moves = new Map();
let done = 0;
const plan = (from, to) => {
  if (moves.has(from) || from === to) return;
  if (fileSet.has(from)) {
    if (existsSync(join(root, to))) throw new Error(`relayout: ${to} already exists; cannot move ${from} there`);
    moves.set(from, to);
  } else if (existsSync(join(root, to))) done++;
};
for (const [from, to] of EXACT) plan(from, to);
for (const f of files) for (const [re, to] of RULES) if (re.test(f)) plan(f, f.replace(re, to));
for (const [from, to] of [...moves]) {
  const [base, newBase] = [from.replace(/\.tsx?$/, ''), to.replace(/\.tsx?$/, '')];
  for (const f of files) {
    const suffix = f.startsWith(`tests/${base}.`) ? f.slice(`tests/${base}`.length) : '';
    // name.test.ts, name.property.test.ts, name.test.tsx …
    if (/^(\.[\w-]+)?\.test\.tsx?$/.test(suffix)) plan(f, `tests/${newBase}${suffix}`);
  }
}
for (const f of files) for (const [re, to] of TEST_RULES) if (re.test(f) && !moves.has(f)) plan(f, f.replace(re, to));

// 2. Rewrite relative specifiers in every code file, as seen from its new place.
const SPECIFIER = [
  /(\bfrom\s*)(['"])(\.{1,2}\/[^'"]*)\2/g, // import … from '…', export … from '…'
  /(\bimport\s*)(['"])(\.{1,2}\/[^'"]*)\2/g, // import '…' (side effects)
  /(\bimport\s*\(\s*)(['"])(\.{1,2}\/[^'"]*)\2/g, // import('…')
  /(\b(?:vi\.importActual|vi\.mock|vi\.doMock|require|require\.resolve)\s*(?:<[^>]*>)?\(\s*)(['"])(\.{1,2}\/[^'"]*)\2/g,
  /(\bnew\s+URL\(\s*)(['"])(\.{1,2}(?:\/[^'"]*)?)\2(?=\s*,\s*import\.meta\.url)/g, // new URL('…', import.meta.url)
];
const newPath = (p) => moves.get(p) ?? p;

/**
 * The repo file (or folder) a specifier names, as [path, how to turn a new path back into a specifier], or
 * [undefined] when it names neither.
 */
function resolveTarget(fromFile, spec) {
  const joined = posix.normalize(posix.join(posix.dirname(fromFile), spec.replace(/\/$/, '')));
  const target = joined === '.' ? '' : joined;
  const ext = /\.(m?js)$/.exec(target)?.[1];
  const candidates = [target];
  if (ext === 'js') candidates.push(target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx'));
  if (ext === 'mjs') candidates.push(target.replace(/\.mjs$/, '.mts'));
  for (const c of candidates) {
    if (fileSet.has(c)) {
      // Keep the specifier's own extension (.js for a .ts source under NodeNext).
      const back = (p) => (c === target ? p : p.replace(/\.(tsx?|mts)$/, `.${ext}`));
      return [c, back];
    }
  }
  // A folder of the repository (e.g. new URL('../..', import.meta.url)); anything else (a name inside a test
  // fixture's text, a file outside git) is left exactly as written.
  const isDir = existsSync(join(root, target)) && statSync(join(root, target)).isDirectory();
  return isDir ? [target, (p) => p] : [undefined, undefined];
}

function rewrite(file, text) {
  const to = newPath(file);
  const changes = [];
  let out = text;
  for (const re of SPECIFIER) {
    out = out.replace(re, (whole, head, quote, spec) => {
      const [target, back] = resolveTarget(file, spec);
      if (target === undefined) return whole;
      const movedTarget = newPath(target);
      if (movedTarget === target && to === file) return whole;
      let rel = posix.relative(posix.dirname(to), back(movedTarget)) || '.';
      if (!rel.startsWith('.')) rel = `./${rel}`;
      if (spec.endsWith('/') && !rel.endsWith('/')) rel += '/';
      if (rel === spec) return whole;
      changes.push(`${spec} → ${rel}`);
      return `${head}${quote}${rel}${quote}`;
    });
  }
  return { out, changes };
}

// Mentions of a moved source path in comments (and anywhere in Markdown) follow it too.
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const MENTIONS = [...moves]
  .filter(([from]) => !from.startsWith('tests/'))
  .map(([from, to]) => [new RegExp(`(?<![\\w./-])${escape(from)}(?![\\w/-])`, 'g'), to, from]);
function rewriteMentions(file, text) {
  const changes = [];
  if (file === 'scripts/relayout.mjs') return { out: text, changes }; // its own table names the old paths
  const markdown = file.endsWith('.md');
  const out = text
    .split('\n')
    .map((line) => {
      if (!markdown && !/^\s*(\/\/|\/?\*)/.test(line)) return line;
      let next = line;
      for (const [re, to, from] of MENTIONS) {
        if (next.search(re) !== -1) changes.push(`${from} → ${to} (mention)`);
        next = next.replace(re, to);
      }
      return next;
    })
    .join('\n');
  return { out, changes };
}

const writes = [];
for (const f of files) {
  if (!(CODE.test(f) || f.endsWith('.md')) || !statSync(join(root, f)).isFile()) continue;
  const text = readFileSync(join(root, f), 'utf8');
  const imports = CODE.test(f) ? rewrite(f, text) : { out: text, changes: [] };
  const mentions = rewriteMentions(f, imports.out);
  const changes = [...imports.changes, ...mentions.changes];
  if (changes.length > 0) writes.push({ from: f, to: newPath(f), out: mentions.out, changes });
}

// 3. Report, move, write.
process.stdout.on('error', () => undefined); // a closed pipe (| head) must not stop the moves half way
const say = (line) => process.stdout.write(`${line}\n`);
say(
  `${dryRun ? '[dry run] ' : ''}relayout: ${moves.size} file(s) to move, ${writes.length} file(s) with imports to rewrite${done ? `, ${done} row(s) already done` : ''}`,
);
for (const [from, to] of moves) say(`  git mv ${from} ${to}`);
for (const w of writes) say(`  rewrite ${w.to}: ${w.changes.join(', ')}`);
if (dryRun) process.exit(0);
for (const [from, to] of moves) {
  mkdirSync(dirname(join(root, to)), { recursive: true });
  git('mv', from, to);
}
for (const w of writes) writeFileSync(join(root, w.to), w.out);

// Paths built from import.meta.dirname/url other than `new URL` are not rewritten: show them for a look.
for (const to of moves.values()) {
  const text = readFileSync(join(root, to), 'utf8');
  text.split('\n').forEach((line, i) => {
    if (/import\.meta\.(dirname|filename)|__dirname/.test(line)) say(`  check by hand: ${to}:${i + 1}: ${line.trim()}`);
  });
}
say('relayout: done. Next: npm run build && npm run lint && npx vitest run');
