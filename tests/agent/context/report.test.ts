import { describe, expect, it } from 'vitest';
import { indexText } from '../../../agent/context/search-index.js';
import { locateEvidence } from '../../../agent/context/evidence.js';
import { readIssue } from '../../../agent/context/issue.js';
import { rankFiles, type RankDoc } from '../../../agent/context/rank.js';
import { diagnosticMessages, reportTerms, reportTitle } from '../../../agent/context/report.js';
import { tokenizeQuery } from '../../../agent/context/tokenize.js';

function docs(files: Record<string, string>): RankDoc[] {
  return Object.entries(files).map(([path, text]) => ({ path, doc: indexText(text, 0, text.length) }));
}

/** A long body whose prose words are spread over many files of the project (the usual noise). */
const BODY =
  'Steps: run sphinx-quickstart, set the theme in the config, build the HTML output into the build directory, ' +
  'then open the index page in a browser and search for the class. The config has the default theme and the ' +
  'search index is built with the output. Environment: the build runs on Linux with the default config ' +
  'and the theme options unchanged; the index page and the search page both show it in the output directory.';

const noise = (words: string): string =>
  words
    .split(' ')
    .map((w, i) => `def ${w}_${i}(${w}):\n    return ${w}\n`)
    .join('');

const PROJECT = {
  'pkg/settings.py': noise('config theme default options config'),
  'pkg/writers/base.py': noise('build output directory html page index build'),
  'pkg/finder.py': noise('search index page search class'),
  'pkg/cmd/start.py': noise('quickstart config build directory theme'),
  'pkg/looks.py': noise('theme options default theme page'),
  'pkg/ext/napoleon/docstring.py':
    'class NumpyDocstring:\n    def _escape_args_and_kwargs(self, name):\n        if name.endswith("_"):\n' +
    '            name = name[:-1] + r"\\_"  # escape a trailing underscore\n        return name\n',
  'pkg/builders/manpage.py':
    'from pkg.writers.manpage import ManualPageWriter\n\nclass ManualPageBuilder:\n' +
    '    def write(self, docname):\n        return self.outdir / (docname + ".1")\n',
};

const FILES = Object.keys(PROJECT).map((path) => ({ path }));

describe('reportTitle', () => {
  it('is the first line of a long report, empty for a short task or a title-less paste', () => {
    expect(reportTitle(`overescaped underscore with napoleon\n${BODY}`)).toBe('overescaped underscore with napoleon');
    expect(reportTitle('overescaped underscore with napoleon')).toBe('');
    expect(reportTitle(`${'x '.repeat(150)}\n${BODY}`)).toBe('');
  });
});

describe('reportTerms', () => {
  it('leaves a short task (a commit subject) unchanged', () => {
    const terms = tokenizeQuery('napoleon escapes trailing underscore');
    expect(reportTerms('napoleon escapes trailing underscore', terms, FILES)).toEqual(terms);
  });

  it('weighs title words above body words', () => {
    const task = `Trailing underscore overescaped with napoleon\n${BODY}`;
    const terms = reportTerms(task, tokenizeQuery(task), FILES);
    const w = (t: string): number | undefined => terms.find((x) => x.term === t)?.weight;
    expect(w('napoleon')).toBeGreaterThan(w('output')!);
    expect(w('underscore')).toBeGreaterThan(w('theme')!);
  });

  it('joins two title words that a file name joins ("man page" → manpage.py), only then', () => {
    const task = `Generate man page section directories\n${BODY}`;
    const terms = reportTerms(task, tokenizeQuery(task), FILES).map((t) => t.term);
    expect(terms).toContain('manpage');
    expect(terms).not.toContain('generateman');
    expect(terms).not.toContain('pagesection');
  });
});

describe('rankFiles on a long report', () => {
  it('ranks the file the title names above the file the body talks about', () => {
    const r = rankFiles(`Trailing underscore overescaped with napoleon\n${BODY}`, docs(PROJECT));
    expect(r.ranked[0]?.path).toBe('pkg/ext/napoleon/docstring.py');
  });

  it('finds manpage.py from "man page" in the title', () => {
    const r = rankFiles(`Generate man page section directories\n${BODY}`, docs(PROJECT));
    expect(r.ranked[0]?.path).toBe('pkg/builders/manpage.py');
  });

  it('plain BM25 ignores the title', () => {
    const task = `Generate man page section directories\n${BODY}`;
    expect(rankFiles(task, docs(PROJECT), { plainBm25: true }).terms.map((t) => t.term)).not.toContain('manpage');
  });
});

describe('diagnostic lines', () => {
  const LOG =
    'Sphinx 3.2 complains:\n```\nWarning, treated as error:\n' +
    '../../docs/qemu-option-trace.rst.inc:4:' +
    'Malformed option description \'[enable=]PATTERN\', should look like "opt"\n' +
    'src/a.c:12:5: error: expected declaration before return here\n' +
    'index.rst:3: WARNING: duplicate label intro, other instance in usage\n```\n' +
    'See http://example.org:80/x and the run at 12:30:45 for details.\n';

  it('reads the message of path:line[:col]: [severity:] message lines, nothing else', () => {
    expect(diagnosticMessages(LOG)).toEqual([
      `Malformed option description '[enable=]PATTERN', should look like "opt"`,
      'expected declaration before return here',
      'duplicate label intro, other instance in usage',
    ]);
  });

  it('finds where the message is printed', () => {
    const texts: Record<string, string> = {
      'pkg/domains/std.py':
        'def handle(sig):\n    if not m:\n        logger.warning("Malformed option description %r, should "\n' +
        '                       "look like ...", sig)\n',
      'pkg/domains/other.py': 'def option(desc):\n    return describe(desc)\n',
    };
    const ev = locateEvidence({
      evidence: readIssue(LOG),
      paths: Object.keys(texts),
      readText: (p) => texts[p] ?? null,
      pathsWithTokens: () => Object.keys(texts),
    });
    expect(ev.get('pkg/domains/std.py')?.literal).toBeGreaterThan(0);
    expect(ev.get('pkg/domains/std.py')?.anchors.map((a) => a.line)).toContain(3);
    expect(ev.has('pkg/domains/other.py')).toBe(false);
  });
});
