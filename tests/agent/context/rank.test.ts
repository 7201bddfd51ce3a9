import { describe, expect, it } from 'vitest';
import { indexText } from '../../../agent/context/search-index.js';
import { pathPrior } from '../../../agent/context/path-prior.js';
import { rankFiles, type RankDoc } from '../../../agent/context/rank.js';
import { rankAndPack } from '../../../agent/context/select.js';
import { commitScopes, scopeScores } from '../../../agent/context/score.js';

function docs(files: Record<string, string>): { list: RankDoc[]; texts: Map<string, string> } {
  const texts = new Map(Object.entries(files));
  return { list: [...texts].map(([path, text]) => ({ path, doc: indexText(text, 0, text.length) })), texts };
}

const TREE = {
  'src/router.ts': 'export class Router {\n  addRoute(path: string) {\n    this.routes.push(path);\n  }\n}\n',
  'src/cookies.ts':
    'export function parseCookie(header: string) {\n  return header.split(";").map((c) => c.trim());\n}\nexport function serializeCookie(name: string, value: string) {\n  return `${name}=${value}`;\n}\n',
  'src/session.ts':
    'import { parseCookie } from "./cookies";\nexport function loadSession(header: string) {\n  return parseCookie(header)[0];\n}\n',
  'test/cookies.test.ts':
    'import { parseCookie } from "../src/cookies";\ntest("parse cookie", () => parseCookie("a=1; b=2"));\ntest("cookie cookie cookie", () => 1);\n',
  'docs/cookies.md': '# Cookies\nparseCookie reads the cookie header. Cookie cookie cookie.\n',
};

describe('rankFiles', () => {
  it('ranks the defining source file above its tests and docs', () => {
    const { list } = docs(TREE);
    const r = rankFiles('parseCookie drops empty cookie values', list);
    expect(r.ranked[0]?.path).toBe('src/cookies.ts');
    const order = r.ranked.map((x) => x.path);
    expect(order.indexOf('test/cookies.test.ts')).toBeGreaterThan(order.indexOf('src/session.ts'));
    expect(r.ranked[0]?.parts.symbol).toBeGreaterThan(0);
  });

  it('lifts the test penalty when the task is about tests', () => {
    const { list } = docs(TREE);
    const r = rankFiles('add tests for cookie parsing', list);
    expect(r.ranked.find((x) => x.path === 'test/cookies.test.ts')?.parts.prior).toBe(1);
    expect(pathPrior('test/cookies.test.ts', 'fix cookie parsing')).toBeLessThan(1);
    expect(pathPrior('docs/cookies.md', 'document cookies in the docs')).toBe(1);
  });

  it('puts code before a Markdown page that shares the request words, unless the task asks for docs or names it', () => {
    const { list } = docs({
      'docs/retry-delay.md':
        '# Retry delay\nThe retry delay doubles after each failed attempt. The retry delay is capped: a retry never waits\nlonger than the cap, and every retry delay is logged.\n',
      'src/retry.ts':
        'export function nextDelay(attempt: number): number {\n  return Math.min(1000 * 2 ** attempt, 60_000);\n}\nexport const retry = (f: () => void) => f();\n',
      'src/log.ts': 'export function log(line: string): void {\n  console.log(line);\n}\n',
    });
    const order = (task: string): string[] => rankFiles(task, list).ranked.map((x) => x.path);
    expect(order('cap the retry delay at 30 seconds')[0]).toBe('src/retry.ts');
    expect(order('document the retry delay cap')[0]).toBe('docs/retry-delay.md');
    expect(order('reword retry-delay.md: the delay cap')[0]).toBe('docs/retry-delay.md');
  });

  it('tells prose (READMEs, licences, plain-text docs) from code and build files kept beside it', () => {
    const task = 'cap the retry delay';
    const prose = pathPrior('docs/retry-delay.md', task);
    const docsCode = pathPrior('docs/conf.py', task);
    expect(prose).toBeLessThan(docsCode);
    expect(docsCode).toBeLessThan(1);
    for (const p of [
      'README',
      'examples/README',
      'LICENSE-APACHE',
      'NOTICE',
      'CHANGELOG',
      'docs/HISTORY.rst',
      'docs/api.txt',
    ])
      expect(pathPrior(p, task)).toBe(prose);
    // Code named like a prose file is code; text files a build reads keep the docs prior.
    for (const p of ['src/history.py', 'cmd/license_gpl_2.go', 'lib/news.ts']) expect(pathPrior(p, task)).toBe(1);
    for (const p of ['requirements/dev.txt', 'requirements-dev.txt', 'CMakeLists.txt'])
      expect(pathPrior(p, task)).toBe(docsCode);
    // Words about docs lift the prior.
    expect(pathPrior('README.md', 'fix the install instructions')).toBe(1);
  });

  it('lifts any path prior when the task names the file', () => {
    expect(pathPrior('.eslintrc.js', 'enable no-shadow in .eslintrc.js')).toBe(1);
    expect(pathPrior('.eslintrc.js', 'enable no-shadow')).toBeLessThan(1);
    expect(pathPrior('tests/conftest.py', 'share the tmp_path setup in conftest.py')).toBe(1);
    // The base name must stand alone: `notes.md` is not named by `release-notes.md`.
    expect(pathPrior('notes.md', 'reword release-notes.md')).toBeLessThan(1);
    expect(pathPrior('CONTRIBUTING.md', 'Reword CONTRIBUTING.MD.')).toBe(1);
  });

  it('demotes CI, build scripts and config files unless the task is about them', () => {
    for (const p of [
      '.github/workflows/test.yml',
      'scripts/build.go',
      'package.json',
      'Makefile',
      'vite.config.ts',
      '.eslintrc.cjs',
    ]) {
      expect(pathPrior(p, 'handle cookie parsing errors')).toBeLessThan(1);
    }
    expect(pathPrior('.github/workflows/test.yml', 'run the CI workflow on node 22')).toBe(1);
    expect(pathPrior('package.json', 'update dependencies')).toBe(1);
    for (const p of ['src/flask/config.py', 'src/build/index.ts', 'lib/tools/parse.js'])
      expect(pathPrior(p, 'handle cookie parsing errors')).toBe(1);
  });

  it('matches a singular task word to a plural path word, below the word itself', () => {
    const same = 'export function change(extensions) {\n  return extensions;\n}\n';
    const { list } = docs({ 'src/_models.py': same, 'src/_types.py': same, 'src/type.py': same });
    const r = rankFiles('change extensions type', list);
    const part = (p: string): number => r.ranked.find((x) => x.path === p)!.parts.path;
    // `_types.py` names "type" in the plural: it matches, at less than `type.py`, which names it.
    expect(part('src/_models.py')).toBe(0);
    expect(part('src/_types.py')).toBeGreaterThan(0);
    expect(part('src/_types.py')).toBeLessThan(part('src/type.py'));
    expect(r.ranked.map((x) => x.path).indexOf('src/_types.py')).toBeLessThan(
      r.ranked.map((x) => x.path).indexOf('src/_models.py'),
    );
  });

  it('uses path tokens: a task naming the router finds router.ts', () => {
    const { list } = docs(TREE);
    expect(rankFiles('router should dedupe paths', list).ranked[0]?.path).toBe('src/router.ts');
  });

  it('scores folder names right when lowercasing changes the length of the path (İ)', () => {
    const { list } = docs({ 'İab/x.ts': 'export const x = 1;\n', 'other/y.ts': 'export const y = 1;\n' });
    const top = rankFiles('fix ab handling', list).ranked[0]!;
    expect(top.path).toBe('İab/x.ts');
    expect(top.parts.path).toBe(1);
  });

  it('matches a method named in words ("add route") to its definition', () => {
    const { list } = docs(TREE);
    const r = rankFiles('add route twice', list);
    expect(r.ranked[0]?.path).toBe('src/router.ts');
    expect(r.ranked[0]?.parts.symbol).toBeGreaterThan(0);
  });

  it('matches a verb the task inflects to the base form the code uses, ignoring made-up forms', () => {
    const { list } = docs({
      'src/termui.py': 'def pause(info=None):\n    echo(info)\n    getchar()\n',
      'src/progress.py': 'def render_progress(bar):\n    return bar.render()\n',
      'src/core.py': 'def invoke(ctx):\n    return ctx.invoke()\n',
    });
    const r = rankFiles('Fixed up pausing tests', list);
    expect(r.ranked[0]?.path).toBe('src/termui.py');
    expect(r.ranked[0]?.parts.symbol).toBeGreaterThan(0);
    // `paus` occurs in no file: it is dropped, not kept with the top idf of a word found nowhere.
    expect(r.terms.map((t) => t.term)).toContain('pause');
    expect(r.terms.map((t) => t.term)).not.toContain('paus');
    expect(rankFiles('Fixed up pausing tests', list, { plainBm25: true }).terms.some((t) => t.variant)).toBe(false);
  });

  it('reads the scopes of a Conventional Commits subject', () => {
    expect(commitScopes('fix(worker): make output consistent')).toEqual([['worker']]);
    expect(commitScopes('perf(bash-v2)!: standard completion optimizations')).toEqual([['bash', 'v2']]);
    expect(commitScopes('feat(css,html): inline styles')).toEqual([['css'], ['html']]);
    expect(commitScopes('fix: no scope here')).toEqual([]);
    expect(commitScopes('Fix the worker (again): text')).toEqual([]);
    // The component prefix of Go, git and Linux style subjects; a Conventional type alone is no scope.
    expect(commitScopes('walk: Use a bounded queue.')).toEqual([['walk']]);
    expect(commitScopes('cmd/gitleaks: exit code on leaks')).toEqual([['cmd', 'gitleaks']]);
    expect(commitScopes('feat: add support for debug IDs')).toEqual([]);
    expect(commitScopes('BUG: maximum recursion depth in cosh')).toEqual([]);
    const paths = ['src/moduleRunner.ts', 'src/module/other.ts', 'src/runner/module.ts', 'src/modules.ts'];
    const list = paths.map((path) => ({ path, doc: indexText('x', 0, 1) }));
    // Every word of a scope, among folder and file-name words split like identifiers.
    expect(scopeScores(list, [['module', 'runner']])).toEqual([1, 0, 1, 0]);
  });

  it('ranks the file a commit scope names above files that only share more words with the subject', () => {
    const { list } = docs({
      'src/server/graph.ts':
        'export function clientGraph(client, ssr) {\n  return { client, ssr, output: client.output, consistent: ssr };\n}\n',
      'src/plugins/worker.ts':
        'export function workerPlugin(config) {\n  return { name: "worker", output: config.output };\n}\n',
      'src/plugins/css.ts': 'export function cssPlugin() {\n  return { name: "css" };\n}\n',
    });
    const task = 'make worker output consistent with client and ssr';
    expect(rankFiles(task, list).ranked[0]!.path).toBe('src/server/graph.ts');
    const scoped = rankFiles(`fix(worker): ${task}`, list).ranked;
    expect(scoped[0]!.path).toBe('src/plugins/worker.ts');
    expect(scoped[0]!.parts.scope).toBe(1);
    expect(scoped.find((r) => r.path === 'src/server/graph.ts')!.parts.scope).toBe(0);
  });

  it('gives import neighbours of top files a bonus below the top ranks', () => {
    const { list } = docs({
      ...TREE,
      'src/a.ts': 'loadSession loadSession',
      'src/b.ts': 'x',
      'src/c.ts': 'y',
      'src/d.ts': 'z',
      'src/e.ts': 'w',
    });
    const r = rankFiles('loadSession', list, { importsOf: (p) => (p === 'src/session.ts' ? ['src/cookies.ts'] : []) });
    const cookies = r.ranked.find((x) => x.path === 'src/cookies.ts');
    expect(cookies?.parts.neighbour).toBeGreaterThan(0);
  });

  it('gives files that import a top file the neighbour bonus too, checking only files naming its module', () => {
    const { list } = docs({
      'pkg/termui.py': 'def edit(text):\n    # edit the text in an editor\n    return editor(text)\n',
      'pkg/__init__.py': 'from .termui import prompt\nfrom .core import run\n',
      'pkg/core.py': 'def run():\n    return 1\n',
      'pkg/other.py': 'def other():\n    return 2\n',
      'pkg/a.py': 'value = 1\nother = value + 1\nthird = other * 2\n# edit\n',
      'pkg/b.py': 'value = 2\nother = value + 1\nthird = other * 2\n# edit\n',
      'pkg/c.py': 'value = 3\nother = value + 1\nthird = other * 2\n# edit\n',
      'pkg/d.py': 'value = 4\nother = value + 1\nthird = other * 2\n# edit\n',
    });
    const imports: Record<string, string[]> = {
      'pkg/__init__.py': ['pkg/termui.py', 'pkg/core.py'],
      // Lacks the word `termui`, so it cannot import pkg/termui.py and is never read.
      'pkg/other.py': ['pkg/termui.py'],
    };
    const read: string[] = [];
    const r = rankFiles('Added an edit function', list, {
      importsOf: (p) => {
        read.push(p);
        return imports[p] ?? [];
      },
    });
    expect(r.ranked[0]?.path).toBe('pkg/termui.py');
    const init = r.ranked.find((x) => x.path === 'pkg/__init__.py')!;
    expect(init.parts.neighbour).toBeGreaterThan(0);
    expect(init.score).toBeLessThan(r.ranked[0]!.score);
    expect(r.ranked.find((x) => x.path === 'pkg/core.py')?.parts.neighbour).toBe(0);
    expect(r.ranked.find((x) => x.path === 'pkg/other.py')?.parts.neighbour).toBe(0);
    expect(read).not.toContain('pkg/other.py');
  });
});

describe('rankAndPack', () => {
  it('returns nothing it cannot fit and never exceeds the budget', () => {
    const { list, texts } = docs(TREE);
    for (const budget of [0, 10, 100, 200, 400, 800, 5000]) {
      const sel = rankAndPack('cookie parse session router', list, {
        budgetChars: budget,
        readText: (p) => texts.get(p) ?? null,
      });
      expect(sel.usedChars).toBeLessThanOrEqual(budget);
      expect(sel.usedChars).toBe(sel.files.reduce((a, f) => a + f.text.length, 0));
    }
  });

  it('applies the transform (redaction) before measuring', () => {
    const { list, texts } = docs(TREE);
    const sel = rankAndPack('parseCookie', list, {
      budgetChars: 5000,
      readText: (p) => texts.get(p) ?? null,
      transform: (_p, t) => t.replace(/cookie/gi, 'c'),
    });
    expect(sel.files[0]?.text.split('\n').slice(1).join('\n')).not.toMatch(/cookie/i);
    expect(sel.files[0]?.chars).toBe(sel.files[0]?.text.length);
  });

  it('lets the one file the request names by its file name take more than the top share of the budget', () => {
    const fns = Array.from(
      { length: 400 },
      (_, i) => `def send_${i}(request):\n    return request.generic_${i % 7}()\n`,
    );
    const client = `import typing\n\n${fns.join('\n')}`;
    const files = { 'pkg/_client.py': client, 'pkg/_models.py': 'class Generic:\n    pass\n' };
    const budget = 8000;
    const first = (tree: Record<string, string>): { path: string; chars: number } => {
      const { list, texts } = docs(tree);
      const sel = rankAndPack('Add parameters to generics in `_client.py`', list, {
        budgetChars: budget,
        readText: (p) => texts.get(p) ?? null,
      });
      return sel.files[0]!;
    };
    expect(client.length).toBeGreaterThan(2 * budget);
    const named = first(files);
    expect(named.path).toBe('pkg/_client.py');
    expect(named.chars).toBeGreaterThan(0.75 * budget);
    // A second `_client.py` (here a test helper, ranked lower) makes the name ambiguous: the top share holds.
    const twice = first({ ...files, 'tests/_client.py': 'def fake():\n    pass\n' });
    expect(twice.path).toBe('pkg/_client.py');
    expect(twice.chars).toBeLessThanOrEqual(0.75 * budget);
  });

  it('falls back to shallow source files when nothing matches the task', () => {
    const { list, texts } = docs({ 'README.md': '# hi\n', 'deep/a/b/c.ts': 'x\n', 'src/index.ts': 'y\n' });
    const sel = rankAndPack('zzz qqq', list, { budgetChars: 5000, readText: (p) => texts.get(p) ?? null });
    expect(sel.files.map((f) => f.path)).toEqual(['src/index.ts', 'deep/a/b/c.ts', 'README.md']);
  });

  it('fills budget the matches leave with unmatched source files, after every match', () => {
    const { list, texts } = docs({ ...TREE, 'src/unrelated.ts': 'export const nothing = 0;\n' });
    const sel = rankAndPack('parseCookie', list, { budgetChars: 50_000, readText: (p) => texts.get(p) ?? null });
    const paths = sel.files.map((f) => f.path);
    expect(paths).toContain('src/unrelated.ts');
    const minMatched = Math.min(
      ...sel.files.filter((f) => f.path !== 'src/unrelated.ts' && f.path !== 'src/router.ts').map((f) => f.score),
    );
    expect(sel.files.find((f) => f.path === 'src/unrelated.ts')!.score).toBeLessThan(minMatched);
  });
});
