/**
 * Reading a task the way a developer reads an issue report: stack frames (Python, IPython, JS/TS,
 * Go, Rust and plain `path:line` mentions), error messages worth searching for literally, dotted
 * `module.Class.method` names and `@path` mentions. Pure text in, evidence out; resolving it against
 * the project's files is `locateEvidence`. Frames and literal hits name places, which is stronger
 * evidence than words the task shares with a file (Wong et al., ICSME 2014, stack-trace parsing for
 * bug localization; a maintainer reading a traceback opens the frames first).
 */

import { diagnosticMessages } from './report.js';

/** One stack frame or `path:line` mention: `path` as written (may be absolute or from another machine). */
export interface Frame {
  path: string;
  /** 1-based, as written; may not match the project's current lines */
  line?: number;
  /** the function the frame names, when it names one */
  func?: string;
}

/** What `readIssue` found in a task's text. */
export interface IssueEvidence {
  frames: Frame[];
  /** error messages and quoted strings, searched for literally (by word windows) in source files */
  literals: string[];
  /** dotted names split into parts (`astropy.io.fits.Card` → ['astropy','io','fits','Card']) */
  dotted: string[][];
  /** `@path` mentions, as written (without the `@`) */
  mentions: string[];
  /** command-line options the task names (`--fixtures`, `--recursive=y` → `--recursive`) */
  options: string[];
  /** names its title (first line) writes like code: `name()`, in backticks, snake_case or camelCase */
  titleNames: string[];
}

const SOURCE_EXT = 'py|pyx|[cm]?[jt]sx?|go|rs|rb|java|kt|scala|php|cs|c|cc|cpp|h|hpp|swift|ex|exs|lua|vue|svelte';
/** A source file's name (by extension). */
export const CODE_FILE = new RegExp(`\\.(?:${SOURCE_EXT})$`, 'i');
/** A test or fixture path. */
export const TEST_FILE =
  /(^|\/)(tests?|testing|__tests__|spec|specs|fixtures?|e2e|testdata)\/|(^|\/)test_[^/]*$|_test\.[a-z]+$|\.(test|spec)\.[a-z]+$|(^|\/)conftest\.py$/i;
const PY_FRAME = /File "([^"\n]+)", line (\d+)(?:, in ([\w<>.]+))?/g;
const IPY_FRAME = new RegExp(`(?:^|\\s)(\\S+\\.(?:py|pyx)) in ([\\w<>]+)\\(`, 'gm');
const JS_FRAME = new RegExp(
  `\\bat (?:(?:async |new )?([\\w$.<>\\[\\] ]+?) \\()?(?:file://)?([^\\s()'"]+?\\.(?:${SOURCE_EXT})):(\\d+)(?::\\d+)?\\)?`,
  'g',
);
const PATH_LINE = new RegExp(`(?:^|[\\s('"\`])((?:[\\w.~-]+/)*[\\w.-]+\\.(?:${SOURCE_EXT})):(\\d+)(?::\\d+)?`, 'gm');
const GO_FUNC = /^\s*(?:[\w./-]+\/)?[\w-]+\.(?:\(\*?(\w+)\)\.)?(\w+)\(.*\)\s*$/;
const ERROR_LINE =
  /^\s*(?:[\w.]*(?:Error|Exception|Warning|Failure|Fault)|panic|error|fatal|FATAL|ERROR)(?:\[\w+\])?:\s+(.{8,300})$/gm;
// A single quote next to a letter is an apostrophe ("don't … it's"), not a string delimiter.
const QUOTED = /"([^"\n]{12,200})"|(?<![A-Za-z])'([^'\n]{12,200})'(?![A-Za-z])|`([^`\n]{16,200})`/g;
const DOTTED = /\b[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*){1,8}\b/g;
const MENTION = /(?:^|\s)@((?:[\w.-]+\/)*[\w.-]*[\w-])/g;
const OPTION = /(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?![\w])/g;
const MAX_OPTIONS = 8;

const MAX_FRAMES = 60;
const MAX_LITERALS = 12;
const MAX_DOTTED = 80;
const MAX_TITLE_NAMES = 6;

function addFrame(out: Frame[], frame: Frame): void {
  if (/^<.*>$/.test(frame.path)) return; // <stdin>, <ipython-input-…>
  if (frame.func && /^<.*>$/.test(frame.func)) frame.func = undefined;
  if (!out.some((f) => f.path === frame.path && f.line === frame.line && f.func === frame.func)) out.push(frame);
}

/**
 * Find the evidence in a task's text.
 *
 * @param task  the person's request or a pasted issue report
 * @returns frames in the order written (a Python traceback's innermost frame last), literals, dotted
 *          names and `@path` mentions; every list may be empty
 * @throws never
 */
export function readIssue(task: string): IssueEvidence {
  const frames: Frame[] = [];
  for (const m of task.matchAll(PY_FRAME)) addFrame(frames, { path: m[1]!, line: Number(m[2]), func: m[3] });
  for (const m of task.matchAll(IPY_FRAME)) {
    // IPython marks the frame's current line with `-> 1354` in the lines below the header.
    const after = task.slice(m.index! + m[0].length, m.index! + m[0].length + 1500);
    const arrow = /^-+>\s*(\d+)/m.exec(after);
    addFrame(frames, { path: m[1]!, line: arrow ? Number(arrow[1]) : undefined, func: m[2] });
  }
  for (const m of task.matchAll(JS_FRAME)) {
    const func = m[1]?.trim().split(/[.\s]/).pop();
    addFrame(frames, { path: m[2]!, line: Number(m[3]), func: func && /^[\w$]+$/.test(func) ? func : undefined });
  }
  const lines = task.split('\n');
  for (let i = 0; i < lines.length; i++) {
    // Go: `pkg.(*T).Method(...)` on one line, `\t/path/file.go:12 +0x1d` on the next.
    const loc = /^\s+(\S+\.go):(\d+)/.exec(lines[i + 1] ?? '');
    const fn = GO_FUNC.exec(lines[i] ?? '');
    if (loc && fn) addFrame(frames, { path: loc[1]!, line: Number(loc[2]), func: fn[2] });
  }
  for (const m of task.matchAll(PATH_LINE)) {
    if (!frames.some((f) => f.path.endsWith(m[1]!) && f.line === Number(m[2])))
      addFrame(frames, { path: m[1]!, line: Number(m[2]) });
  }
  const literals: string[] = [];
  const addLiteral = (s: string): void => {
    const t = s.trim();
    if (t.length >= 12 && /[A-Za-z]{3,}.*\s.*[A-Za-z]{3,}/.test(t) && !literals.includes(t)) literals.push(t);
  };
  for (const m of task.matchAll(ERROR_LINE)) addLiteral(m[1]!);
  for (const message of diagnosticMessages(task)) addLiteral(message);
  for (const m of task.matchAll(QUOTED)) addLiteral(m[1] ?? m[2] ?? m[3] ?? '');
  const dotted: string[][] = [];
  for (const m of task.matchAll(DOTTED)) {
    const parts = m[0].split('.');
    // `e.g`, `i.e`, file names (`setup.py`) and version-like runs are not module paths.
    if (
      parts.some((p) => p.length < 2) ||
      /^(py|js|ts|txt|md|rst|json|html|org|com|io)$/.test(parts[parts.length - 1]!)
    )
      continue;
    if (!dotted.some((d) => d.join('.') === m[0])) dotted.push(parts);
  }
  const mentions: string[] = [];
  for (const m of task.matchAll(MENTION)) if (/[/.]/.test(m[1]!) && !mentions.includes(m[1]!)) mentions.push(m[1]!);
  // A pasted log can hold thousands of lines: the first ones say the most and each costs index lookups.
  return {
    frames: frames.slice(0, MAX_FRAMES),
    literals: literals.slice(0, MAX_LITERALS),
    dotted: dotted.slice(0, MAX_DOTTED),
    mentions,
    options: [...new Set([...task.matchAll(OPTION)].map((m) => m[0]).filter((o) => o.length >= 5))].slice(
      0,
      MAX_OPTIONS,
    ),
    titleNames: titleNames(task),
  };
}

/**
 * Code-like names in the first line of `task` (at most MAX_TITLE_NAMES): `name(`, `` `name` ``,
 * snake_case, camelCase; at least 4 characters, dunders skipped.
 */
function titleNames(task: string): string[] {
  const out = new Set<string>();
  for (const m of firstLine(task).matchAll(
    /`([A-Za-z_]\w{3,})`|\b([A-Za-z_]\w{3,})\(|\b(\w*[a-z0-9]_[a-z]\w*|[a-z]+[A-Z]\w*)\b/g,
  )) {
    const name = m[1] ?? m[2] ?? m[3]!;
    if (name.length >= 4 && !/^__\w+__$/.test(name)) out.add(name);
  }
  return [...out].slice(0, MAX_TITLE_NAMES);
}

/**
 * Headings of the common issue templates (GitHub's default bug report, pytest's, pylint's, Sphinx's…):
 * their words ("reproduce", "screenshots", "expected behavior") are the template's, not the reporter's.
 */
const TEMPLATE_HEADING =
  /^(?:describe the (?:bug|issue|solution you'd like|alternatives you've considered)|bug description|description|to reproduce|steps to reproduce|how to reproduce|minimal (?:reproducible )?example|code for reproduction|expected (?:behaviou?r|outcome|results?)|actual (?:behaviou?r|outcome|results?)|current (?:behaviou?r|outcome)|screenshots?|additional (?:context|information)|your project|feature request|problem|proposed solution|proposal|command used|configuration|pylint output|is your feature request related to a problem\??|checklist|bug|bugfix|detail|details|summary|motivation)\s*:?$/i;
/** A section heading that starts environment details (versions, OS, installed packages): not about the fault. */
const ENV_HEADING =
  /^(?:environment(?: info(?:rmation)?)?|versions?(?: info(?:rmation)?)?|system (?:info(?:rmation)?|details)|operating system|os|installation|installed packages|pip list|dependencies|python version|platform|output of .*versions?.*)\s*:?$/i;
/** A line of a package listing (`pip list`, `conda list`, `pkg==1.2`): names of installed packages, not code. */
const PACKAGE_LINE = /^\s*[-*]?\s*[A-Za-z][\w.[\]-]*\s*(?:==|>=|\s{2,}|:\s+|\s+v?)\d+(?:\.\w+)+[\w.+-]*(?:\s+\S+)?\s*$/;

/** The text of a heading line (`## X`, `**X**`, `X:` alone on a line), or undefined for other lines. */
function headingOf(line: string): string | undefined {
  const t = line.trim();
  const m = /^#{1,6}\s+(.+?)\s*#*$/.exec(t) ?? /^\*\*(.+?)\*\*\s*:?$/.exec(t) ?? /^__(.+?)__\s*:?$/.exec(t);
  if (m) return m[1]!.replace(/[*_`]/g, '').trim();
  return undefined;
}

/**
 * The part of an issue report that says what is wrong and where, as a developer skims it: HTML
 * comments (template instructions), issue-template headings, environment sections (versions, OS,
 * installed packages, until the next heading) and package-listing lines are dropped; everything
 * else is kept verbatim, line for line. A short request comes back unchanged.
 *
 * @param task  the person's request or a pasted issue report
 * @returns the text to read evidence and query words from
 * @throws never
 */
export function issueText(task: string): string {
  if (!/<!--|\n\s*(?:#{1,6}\s|\*\*|__)|\n[^\n]*\d+\.\d+/.test(task)) return task;
  const out: string[] = [];
  let inEnv = false;
  for (const line of task.replace(/<!--[\s\S]*?(?:-->|$)/g, '').split('\n')) {
    const head = headingOf(line);
    const plain = line.trim().replace(/:$/, '');
    if (head !== undefined || ENV_HEADING.test(plain)) {
      const h = head ?? plain;
      inEnv = ENV_HEADING.test(h);
      if (inEnv || TEMPLATE_HEADING.test(h)) continue;
    }
    if (inEnv || PACKAGE_LINE.test(line)) continue;
    out.push(line);
  }
  return out.join('\n');
}

/**
 * The words a long issue report uses to say what kind of change it asks for: its title (first line)
 * when the report is long, else the whole task. A report mentions tests, docs and examples in passing
 * ("see the example below"); whether it is about them is said in its title.
 */
export function issueTitle(task: string): string {
  return task.length < 300 ? task : firstLine(task);
}

/** The text before the first line break (all of it when there is none). */
function firstLine(task: string): string {
  const nl = task.indexOf('\n');
  return nl === -1 ? task : task.slice(0, nl);
}
