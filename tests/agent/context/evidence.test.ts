import { describe, expect, it } from 'vitest';
import { definitionLines, locateEvidence, resolvePathSuffix } from '../../../agent/context/evidence.js';
import { issueText, issueTitle, readIssue } from '../../../agent/context/issue.js';
import { noisePrior } from '../../../agent/context/noise.js';
import type { RankDoc } from '../../../agent/context/rank.js';
import { rankAndPack } from '../../../agent/context/select.js';
import { indexText } from '../../../agent/context/search-index.js';

describe('readIssue', () => {
  it('reads Python, IPython, JS, Go and Rust frames', () => {
    const text = [
      'Traceback (most recent call last):',
      '  File "/usr/lib/python3/site-packages/pkg/models.py", line 42, in send',
      '~/code/pkg/pkg/wcs.py in wcs_pix2world(self, *args)',
      '-> 1354             return x',
      '    at parseOptions (src/options.ts:12:5)',
      'main.(*Server).Serve(0xc000)',
      '\t/home/me/app/server.go:88 +0x1d',
      "thread 'main' panicked at src/lib.rs:7:9:",
    ].join('\n');
    const { frames } = readIssue(text);
    expect(frames).toEqual(
      expect.arrayContaining([
        { path: '/usr/lib/python3/site-packages/pkg/models.py', line: 42, func: 'send' },
        { path: '~/code/pkg/pkg/wcs.py', line: 1354, func: 'wcs_pix2world' },
        { path: 'src/options.ts', line: 12, func: 'parseOptions' },
        { path: '/home/me/app/server.go', line: 88, func: 'Serve' },
        { path: 'src/lib.rs', line: 7 },
      ]),
    );
  });

  it('takes error messages and quoted strings as literals, not apostrophes', () => {
    const ev = readIssue(
      'I don\'t think it\'s right.\nValueError: Unrecognized QDP line: read serr 1 2\nIt says "File must be opened in binary mode".',
    );
    expect(ev.literals).toEqual(['Unrecognized QDP line: read serr 1 2', 'File must be opened in binary mode']);
  });

  it('reads the names a title writes like code, and only the title', () => {
    const ev = readIssue(
      "_print_SingularityFunction() got an unexpected keyword argument 'exp'\nThe body calls other_name() and `Helper`.",
    );
    expect(ev.titleNames).toEqual(['_print_SingularityFunction']);
    expect(readIssue('`Permutation` fails in parseArgs; __init__() and `ab` are ignored').titleNames).toEqual([
      'Permutation',
      'parseArgs',
    ]);
    expect(readIssue('Plain words only in this title').titleNames).toEqual([]);
  });

  it('reads dotted names and @path mentions', () => {
    const ev = readIssue('See astropy.io.fits.Card.fromstring, e.g. in @src/cli.ts and mail me@example.com');
    expect(ev.dotted).toContainEqual(['astropy', 'io', 'fits', 'Card', 'fromstring']);
    expect(ev.mentions).toEqual(['src/cli.ts']);
  });
});

describe('issueText', () => {
  it('drops template comments, template headings, environment sections and package lists', () => {
    const report = [
      'Dynamically adding xfail marker no longer ignores failure',
      '<!--',
      "Thanks for submitting an issue! Here's a quick checklist.",
      '-->',
      '**Describe the bug**',
      'request.node.add_marker(mark) raises.',
      '',
      '## Versions',
      'aioftp                        0.13.0',
      '- OS: Ubuntu 18.04',
      '',
      '### Expected behavior',
      'The test is reported as xfailed.',
      'numpy==1.19.2',
    ].join('\n');
    expect(issueText(report)).toBe(
      [
        'Dynamically adding xfail marker no longer ignores failure',
        '',
        'request.node.add_marker(mark) raises.',
        '',
        'The test is reported as xfailed.',
      ].join('\n'),
    );
  });

  it('keeps a short request and a heading that says something unchanged', () => {
    expect(issueText('fix retry in src/a.ts')).toBe('fix retry in src/a.ts');
    expect(issueText('Title\n### Traceback in Card.fromstring\nx')).toBe('Title\n### Traceback in Card.fromstring\nx');
  });

  it("takes a long report's title as the words that say what kind of change it is", () => {
    const long = `Crash in parser\n${'see the example in the docs and the test below. '.repeat(10)}`;
    expect(issueTitle(long)).toBe('Crash in parser');
    expect(issueTitle('update the docs')).toBe('update the docs');
  });
});

describe('noisePrior', () => {
  it('lowers translation catalogs and vendored builds unless the task asks about them', () => {
    expect(noisePrior('sphinx/locale/ja/LC_MESSAGES/sphinx.po', 'warning: no number is assigned')).toBeLessThan(1);
    expect(noisePrior('sphinx/locale/ja/LC_MESSAGES/sphinx.po', 'Update the Japanese translation')).toBe(1);
    expect(noisePrior('sphinx/themes/basic/static/jquery-3.5.1.js', 'search box breaks')).toBeLessThan(1);
    expect(noisePrior('sphinx/themes/basic/static/jquery-3.5.1.js', 'upgrade jQuery to 3.6')).toBe(1);
    expect(noisePrior('web/vendor/lib.js', 'x')).toBeLessThan(1);
    expect(noisePrior('src/app.min.js', 'x')).toBeLessThan(1);
    expect(noisePrior('sphinx/builders/manpage.py', 'x')).toBe(1);
  });
});

describe('locateEvidence', () => {
  const files: Record<string, string> = {
    'pkg/models.py': 'import os\n\n\ndef send(request):\n    return request\n',
    'pkg/qdp.py': 'def line_type(line):\n    if bad:\n        raise ValueError(f"Unrecognized QDP line: {line}")\n',
    'pkg/fits/card.py': 'class Card:\n    def fromstring(cls, s):\n        return s\n',
  };
  const paths = Object.keys(files);
  const run = (task: string) =>
    locateEvidence({
      evidence: readIssue(task),
      paths,
      readText: (p) => files[p] ?? null,
      pathsWithTokens: () => paths,
    });

  it('resolves a frame from another machine by path suffix, anchored at the frame function', () => {
    const r = run('File "/opt/venv/lib/site-packages/pkg/models.py", line 99, in send');
    expect(r.get('pkg/models.py')).toMatchObject({ frame: 1, focus: ['send'] });
    expect(r.get('pkg/models.py')!.anchors).toContainEqual({ line: 4, weight: 1 });
  });

  it('finds the raise site of a formatted error message', () => {
    const r = run('ValueError: Unrecognized QDP line: read serr 1 2');
    expect(r.get('pkg/qdp.py')!.literal).toBeGreaterThan(0);
    expect(r.get('pkg/qdp.py')!.anchors).toContainEqual({ line: 3, weight: 1 });
  });

  it('resolves a dotted module path and anchors the named method', () => {
    const r = run('pkg.fits.card.Card.fromstring fails');
    expect(r.get('pkg/fits/card.py')!.module).toBe(1);
    expect(r.get('pkg/fits/card.py')!.anchors).toContainEqual({ line: 2, weight: 1 });
  });

  it('anchors the class a constructor error names (RST.__init__())', () => {
    const texts: Record<string, string> = {
      'pkg/rst.py': 'import x\n\nclass RST(Base):\n    def __init__(self):\n        pass\n',
      'pkg/ui.py': 'def write():\n    RST()\n',
    };
    const r = locateEvidence({
      evidence: readIssue("TypeError: RST.__init__() got an unexpected keyword argument 'header_rows'"),
      paths: Object.keys(texts),
      readText: (p) => texts[p] ?? null,
      pathsWithTokens: () => [],
      definers: (name) => (name === 'RST' ? ['pkg/rst.py'] : []),
    });
    expect(r.get('pkg/rst.py')).toMatchObject({ module: 1, anchors: [{ line: 3, weight: 1 }] });
    expect(r.has('pkg/ui.py')).toBe(false);
  });

  it('resolves an installed package path to a src-layout project path, never ambiguously', () => {
    const byBase = new Map([
      ['saferepr.py', ['src/_pytest/_io/saferepr.py']],
      ['utils.py', ['src/a/utils.py', 'lib/a/utils.py', 'a/utils.py']],
    ]);
    expect(resolvePathSuffix('/usr/lib/python3.8/site-packages/_pytest/_io/saferepr.py', byBase)).toBe(
      'src/_pytest/_io/saferepr.py',
    );
    // Two paths end in `a/utils.py` beyond the whole-path match: the whole-path match wins.
    expect(resolvePathSuffix('/venv/site-packages/a/utils.py', byBase)).toBe('a/utils.py');
    expect(resolvePathSuffix('/venv/site-packages/b/saferepr.py', byBase)).toBeUndefined();
  });

  it('searches a quoted message in code, not in translation catalogs that repeat it', () => {
    const texts: Record<string, string> = {
      'pkg/std.py': 'def numref(node):\n    logger.warning(__("no number is assigned for %s: %s"), t, n)\n',
      'pkg/locale/de/LC_MESSAGES/pkg.po': 'msgid "no number is assigned for %s: %s"\nmsgstr ""\n',
      'pkg/locale/fr/LC_MESSAGES/pkg.po': 'msgid "no number is assigned for %s: %s"\nmsgstr ""\n',
      'pkg/locale/ja/LC_MESSAGES/pkg.po': 'msgid "no number is assigned for %s: %s"\nmsgstr ""\n',
    };
    const r = locateEvidence({
      evidence: readIssue('Builds now print `WARNING: no number is assigned for table:` warnings'),
      paths: Object.keys(texts),
      readText: (p) => texts[p] ?? null,
      pathsWithTokens: () => Object.keys(texts).reverse(),
    });
    expect([...r.keys()]).toEqual(['pkg/std.py']);
    expect(r.get('pkg/std.py')!.anchors).toContainEqual({ line: 2, weight: 1 });
  });

  it('takes the raise site over a test that asserts the printed message', () => {
    const texts: Record<string, string> = {
      'tests/test_build.py': "def test_warn(app):\n    assert 'WARNING: no number is assigned for section' in out\n",
      'pkg/std.py': 'def numref(node):\n    logger.warning(__("no number is assigned for %s: %s"), t, n)\n',
    };
    const r = locateEvidence({
      evidence: readIssue('Builds print "WARNING: no number is assigned for table" now'),
      paths: Object.keys(texts),
      readText: (p) => texts[p] ?? null,
      pathsWithTokens: () => Object.keys(texts),
    });
    expect([...r.keys()]).toEqual(['pkg/std.py']);
  });

  it('anchors where a command-line option the task names is declared', () => {
    const texts: Record<string, string> = {
      'src/pkg/python.py':
        'def pytest_addoption(parser):\n    group.addoption(\n        "--fixtures",\n        dest="showfixtures",\n    )\n',
      'src/pkg/main.py': 'def main(config):\n    return config.option.fixtures_per_test\n',
    };
    const ev = readIssue('Display fixture scope with `pytest --fixtures` and --fixtures-per-test');
    expect(ev.options).toEqual(['--fixtures', '--fixtures-per-test']);
    const r = locateEvidence({
      evidence: ev,
      paths: Object.keys(texts),
      readText: (p) => texts[p] ?? null,
      pathsWithTokens: () => Object.keys(texts),
    });
    expect([...r.keys()]).toEqual(['src/pkg/python.py']);
    expect(r.get('src/pkg/python.py')!.anchors).toContainEqual({ line: 3, weight: 1 });
  });

  it('anchors, weakly, the definition of a function the title names, unless many files define it', () => {
    const printer = [
      'class Printer:',
      '    def _print_Add(self, expr):',
      '        return 1',
      '',
      '    def _print_Step(self, expr):',
      '        return 2',
      '',
    ].join('\n');
    const texts: Record<string, string> = { 'pkg/latex.py': printer, 'pkg/str.py': printer };
    const defs: Record<string, string[]> = {
      _print_Step: ['pkg/latex.py', 'pkg/str.py'],
      common_name: ['a', 'b', 'c', 'd'],
    };
    const locate = (task: string): ReturnType<typeof locateEvidence> =>
      locateEvidence({
        evidence: readIssue(task),
        paths: Object.keys(texts),
        readText: (p) => texts[p] ?? null,
        pathsWithTokens: () => [],
        definers: (name) => defs[name] ?? [],
      });
    const r = locate('_print_Step() got an unexpected keyword argument\nsteps to reproduce');
    expect([...r.keys()]).toEqual(['pkg/latex.py', 'pkg/str.py']);
    // A hint for the regions, weaker than a frame (1); it adds nothing to the file's ranking evidence.
    expect(r.get('pkg/latex.py')).toMatchObject({ anchors: [{ line: 5, weight: 0.3 }], module: 0, focus: [] });
    expect(locate('common_name() breaks').size).toBe(0);
  });

  it('refuses an ambiguous bare file name', () => {
    const byBase = new Map([['utils.py', ['a/utils.py', 'b/utils.py']]]);
    expect(resolvePathSuffix('utils.py', byBase)).toBeUndefined();
    expect(resolvePathSuffix('/x/y/b/utils.py', byBase)).toBe('b/utils.py');
  });

  it('finds definitions in several languages', () => {
    expect(definitionLines('x = 1\ndef go(a):\n  pass\n', 'go')).toEqual([2]);
    expect(definitionLines('const a = 1;\nexport async function go() {}\n', 'go')).toEqual([2]);
    expect(definitionLines('package m\nfunc (s *S) go() {}\n', 'go')).toEqual([2]);
  });
});

describe('rankAndPack with evidence', () => {
  it('sends the region of a large file where the quoted error is raised, not the regions sharing words', () => {
    const blocks: string[] = [];
    for (let i = 0; i < 120; i++)
      blocks.push(
        `def parse_${i}(line):\n    # parse the line of the table\n    table = line.split()\n    return table\n`,
      );
    blocks.splice(
      90,
      0,
      'def check(line):\n    if not line:\n        raise ValueError(f"Unrecognized QDP line: {line}")\n    return line\n',
    );
    const big = blocks.join('\n');
    const docs: RankDoc[] = [{ path: 'pkg/qdp.py', doc: indexText(big, 0, big.length) }];
    const task =
      'Reading a table fails: the parser does not parse lines.\n\nValueError: Unrecognized QDP line: read serr 1 2\n';
    const sel = rankAndPack(task, docs, { budgetChars: 3000, readText: () => big });
    const raise = big.split('\n').findIndex((l) => l.includes('raise ValueError')) + 1;
    expect(sel.files[0]!.ranges!.some(([a, b]) => a <= raise && raise <= b)).toBe(true);
  });

  it('sends pinned files first, whole, even when they match nothing', () => {
    const texts: Record<string, string> = {
      'src/a.ts': 'export const retry = 1;\n',
      'src/b.ts': 'export const unrelated = 2;\n',
    };
    const docs: RankDoc[] = Object.entries(texts).map(([path, t]) => ({ path, doc: indexText(t, 0, t.length) }));
    const sel = rankAndPack('fix retry', docs, {
      budgetChars: 5000,
      readText: (p) => texts[p] ?? null,
      pinned: ['src/b.ts'],
    });
    expect(sel.files[0]).toMatchObject({ path: 'src/b.ts', ranges: null });
    expect(sel.files[0]!.parts?.pinned).toBe(2);
  });
});
