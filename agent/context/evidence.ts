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
const CODE_FILE = new RegExp(`\\.(?:${SOURCE_EXT})$`, 'i');
const TEST_FILE =
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

/** A place in a project file that the evidence points at. */
export interface Anchor {
  /** 1-based line */
  line: number;
  /** 0..1: 1 for a literal found or a named frame function's definition, less for weaker hints */
  weight: number;
}

/** The evidence resolved against one project file. */
export interface FileEvidence {
  /** 0..1 per kind, summed into the ranking's `evidence` part */
  frame: number;
  literal: number;
  module: number;
  anchors: Anchor[];
  /** functions the evidence located in this file (their callers and callees are worth sending) */
  focus: string[];
}

/** Inputs of `locateEvidence`. */
export interface LocateInput {
  evidence: IssueEvidence;
  /** project paths of candidate text files */
  paths: readonly string[];
  /** the file's text, or null; called for the few files evidence resolves to or may contain */
  readText: (path: string) => string | null;
  /** paths whose index holds most of these lowercased tokens (to find literal candidates cheaply) */
  pathsWithTokens: (tokens: readonly string[]) => string[];
  /** paths that define a symbol of this exact name (from the index) */
  definers?: (name: string) => string[];
}

/** At most this many files are read to search one literal. */
const LITERAL_CANDIDATES = 40;
const MIN_WINDOW_CHARS = 12;
const MIN_WINDOW_WORDS = 3;

/**
 * The project file a written path refers to: the longest suffix of it (by whole path segments)
 * that is a project path. `/usr/lib/python3/site-packages/requests/models.py` → `requests/models.py`.
 */
export function resolvePathSuffix(written: string, byBase: ReadonlyMap<string, readonly string[]>): string | undefined {
  const parts = written
    .replace(/\\/g, '/')
    .split('/')
    .filter((p) => p !== '' && p !== '.');
  const base = parts[parts.length - 1];
  if (!base) return undefined;
  const same = byBase.get(base) ?? [];
  let best: string | undefined;
  let bestLen = 0;
  let bestKey = 0;
  let ties = 0;
  for (const p of same) {
    const segs = p.split('/');
    let k = 0;
    while (k < segs.length && k < parts.length && segs[segs.length - 1 - k] === parts[parts.length - 1 - k]) k++;
    // The whole project path must match, or at least its last two segments: an installed package
    // (`site-packages/_pytest/main.py`) is the project's `src/_pytest/main.py` in a src layout.
    if (k < segs.length && k < 2) continue;
    // Equal suffixes: a whole-path match beats a partial one.
    const key = 2 * k + (k === segs.length ? 1 : 0);
    if (key > bestKey) {
      best = p;
      bestKey = key;
      bestLen = k;
      ties = 0;
    } else if (key === bestKey) ties++;
  }
  // A lone file name matches only when it is unique; a partial suffix only when no other path ends so.
  if (ties > 0 || (bestLen === 1 && same.length > 1)) return undefined;
  return best;
}

/** At most this many words of a message are matched (a pasted log line can be very long). */
const MAX_LITERAL_WORDS = 24;

/**
 * The longest run of whole words of `message` (at least MIN_WINDOW_WORDS words and MIN_WINDOW_CHARS
 * characters) that occurs verbatim in `text`: formatted values are cut away from either end
 * (`Unrecognized QDP line: read serr 1 2` finds `Unrecognized QDP line:`). Greedy per start word,
 * so about two `includes` per word instead of one per window.
 */
function longestWindow(words: readonly string[], text: string): string | undefined {
  let best: string | undefined;
  const clean = (w: string): string => w.replace(/^["'`([{]+|["'`)\]}.,;]+$/g, '');
  for (let s = 0; s + MIN_WINDOW_WORDS <= words.length; s++) {
    let e = s + MIN_WINDOW_WORDS;
    if (!text.includes(clean(words.slice(s, e).join(' ')))) continue;
    while (e < words.length && text.includes(clean(words.slice(s, e + 1).join(' ')))) e++;
    const w = clean(words.slice(s, e).join(' '));
    if (w.length >= MIN_WINDOW_CHARS && /[A-Za-z]{3,}/.test(w) && (best === undefined || w.length > best.length))
      best = w;
  }
  return best;
}

function lineAt(text: string, offset: number): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** 1-based lines where `name` is defined (`def name`, `function name`, `name = function`, `func (r) name`…). */
export function definitionLines(text: string, name: string): number[] {
  const n = name.replace(/\$/g, '\\$');
  const re = new RegExp(
    `^[ \\t]*(?:export\\s+)?(?:default\\s+)?(?:async\\s+)?(?:def|class|function\\*?|func(?:\\s*\\([^)]*\\))?|fn|pub\\s+fn|pub\\s+struct|struct|type|interface|const|let|var)\\s+${n}\\b|^[ \\t]*(?:(?:static|async|public|private|protected|get|set)\\s+)*${n}\\s*(?:=\\s*(?:async\\s*)?(?:function|\\()|\\([^)]*\\)\\s*(?::[^{]*)?\\{)`,
    'gm',
  );
  const out: number[] = [];
  for (const m of text.matchAll(re)) out.push(lineAt(text, m.index!));
  return out;
}

/** The state one `locateEvidence` call shares between its passes. */
interface Locator {
  input: LocateInput;
  /** project paths by file name */
  byBase: Map<string, string[]>;
  /** the evidence found so far, per path (created on first use) */
  get: (path: string) => FileEvidence;
  /** a file's text, read at most once per call */
  text: (path: string) => string | null;
}

/**
 * Resolve evidence against the project: frames and dotted module names to files, literals to the
 * files and lines that contain them, frame functions to their definitions.
 *
 * @returns evidence per project path (only paths something resolved to)
 * @throws never
 */
export function locateEvidence(input: LocateInput): Map<string, FileEvidence> {
  const { evidence, readText } = input;
  const out = new Map<string, FileEvidence>();
  if (
    evidence.frames.length === 0 &&
    evidence.dotted.length === 0 &&
    evidence.literals.length === 0 &&
    evidence.options.length === 0 &&
    evidence.titleNames.length === 0
  )
    return out;
  const byBase = new Map<string, string[]>();
  for (const p of input.paths) {
    const base = p.slice(p.lastIndexOf('/') + 1);
    const same = byBase.get(base);
    if (same) same.push(p);
    else byBase.set(base, [p]);
  }
  const texts = new Map<string, string | null>();
  const loc: Locator = {
    input,
    byBase,
    get: (path) => {
      let e = out.get(path);
      if (!e) out.set(path, (e = { frame: 0, literal: 0, module: 0, anchors: [], focus: [] }));
      return e;
    },
    text: (p) => {
      if (!texts.has(p)) texts.set(p, readText(p));
      return texts.get(p) ?? null;
    },
  };
  locateFrames(loc);
  locateModules(loc);
  if (input.definers) {
    locateMembers(loc, input.definers);
    locateTitleNames(loc, input.definers);
  }
  locateLiterals(loc);
  locateOptions(loc);
  return out;
}

/**
 * Frames: the innermost frames (last written in Python, first in JS/Go) are nearest the fault,
 * but any frame inside the project is a place to look. Anchors the frame's function and line.
 */
function locateFrames({ input, byBase, get, text }: Locator): void {
  input.evidence.frames.forEach((f) => {
    const path = resolvePathSuffix(f.path, byBase);
    if (!path) return;
    const e = get(path);
    e.frame = 1;
    const t = text(path);
    if (t === null) return;
    const defs = f.func ? definitionLines(t, f.func) : [];
    for (const line of defs) e.anchors.push({ line, weight: 1 });
    if (f.func && defs.length > 0 && !e.focus.includes(f.func)) e.focus.push(f.func);
    // A line number from another version of the file is a weaker hint than a named function.
    if (f.line !== undefined && f.line <= t.split('\n').length)
      e.anchors.push({ line: f.line, weight: defs.length > 0 ? 0.3 : 0.6 });
  });
}

/** Dotted module paths: `astropy.io.fits.card.Card` names astropy/io/fits/card.py, anchored at `Card`. */
function locateModules({ input, byBase, get, text }: Locator): void {
  for (const parts of input.evidence.dotted) {
    for (let k = parts.length; k >= 2; k--) {
      const mod = parts.slice(0, k).join('/');
      const path = resolvePathSuffix(`${mod}.py`, byBase) ?? resolvePathSuffix(`${mod}/__init__.py`, byBase);
      if (!path || (!path.endsWith(`${mod}.py`) && !path.endsWith(`${mod}/__init__.py`))) continue;
      const e = get(path);
      e.module = Math.max(e.module, k === parts.length ? 0.5 : 1);
      const t = k < parts.length ? text(path) : null;
      if (t !== null) {
        for (const name of parts.slice(k)) {
          for (const line of definitionLines(t, name)) e.anchors.push({ line, weight: 1 });
        }
      }
      break;
    }
  }
}

/**
 * `Class.method` (no module path): the files defining both names (at most 3), anchored at the
 * method; `Class.__init__()` and the like anchor the class itself.
 */
function locateMembers(loc: Locator, definers: (name: string) => string[]): void {
  for (const parts of loc.input.evidence.dotted.slice(0, 30)) {
    const names = parts.filter((p) => p !== 'self' && p !== 'this' && p !== 'cls' && !/^__\w+__$/.test(p));
    // `RST.__init__()` names the class RST itself (its constructor, its call): anchor the class.
    if (/^__\w+__$/.test(parts[parts.length - 1]!) && /^[A-Z]\w{2,}$/.test(names[names.length - 1] ?? '')) {
      const cls = names[names.length - 1]!;
      const where = definers(cls);
      if (where.length >= 1 && where.length <= 3) anchorDefinitions(loc, where, cls, false);
      continue;
    }
    const method = names[names.length - 1];
    const owner = names[names.length - 2];
    if (!method || !owner || method.length < 4 || !/^[A-Z]/.test(owner)) continue;
    const owners = new Set(definers(owner));
    const both = owners.size === 0 ? [] : definers(method).filter((p) => owners.has(p));
    if (both.length === 0 || both.length > 3) continue;
    anchorDefinitions(loc, both, method, true);
  }
}

/**
 * Anchor weight of a definition the title names (`_print_SingularityFunction() got an unexpected
 * keyword argument`): the title says which function misbehaves, but more weakly than a frame (which
 * gets 1): at 1 the one anchored block halved the value of every other block of its file, and
 * recall at 60,000 fell. Measured on 125 held-out issue reports, hunk recall @18k/@60k: none
 * 0.554/0.674, 0.2 0.554/0.674, 0.3 0.562/0.674, 0.4 0.562/0.674, 0.5 0.557/0.674, 1 0.565/0.658;
 * real commits unchanged (public 0.700 → 0.699 @18k).
 */
const TITLE_NAME_WEIGHT = 0.3;
/** A title name defined in more files than this (a common method name) anchors nothing. */
const TITLE_NAME_DEFINERS = 3;

/** Names the title writes like code: their definitions (in at most TITLE_NAME_DEFINERS files) are anchored. */
function locateTitleNames(loc: Locator, definers: (name: string) => string[]): void {
  for (const name of loc.input.evidence.titleNames) {
    const where = definers(name);
    if (where.length >= 1 && where.length <= TITLE_NAME_DEFINERS) anchorAt(loc, where, name, TITLE_NAME_WEIGHT);
  }
}

/** Anchor the definitions of `name` in each readable file of `paths` at `weight`; returns those files' evidence. */
function anchorAt({ get, text }: Locator, paths: readonly string[], name: string, weight: number): FileEvidence[] {
  const out: FileEvidence[] = [];
  for (const path of paths) {
    const t = text(path);
    if (t === null) continue;
    const e = get(path);
    for (const line of definitionLines(t, name)) e.anchors.push({ line, weight });
    out.push(e);
  }
  return out;
}

/** Mark each readable file of `paths` as a named module and anchor the definitions of `name` in it. */
function anchorDefinitions(loc: Locator, paths: readonly string[], name: string, focus: boolean): void {
  for (const e of anchorAt(loc, paths, name, 1)) {
    e.module = Math.max(e.module, 1);
    if (focus && !e.focus.includes(name)) e.focus.push(name);
  }
}

/** Literals: the longest word window of the message found verbatim in a source file (at most 3 files). */
function locateLiterals({ input, get, text }: Locator): void {
  for (const literal of input.evidence.literals) {
    const tokens = [...new Set((literal.match(/[A-Za-z_][A-Za-z0-9_]{2,}/g) ?? []).map((w) => w.toLowerCase()))];
    if (tokens.length < 2) continue;
    // Messages are raised in code: translation catalogs and docs repeat them and would only crowd it out.
    const candidates = input
      .pathsWithTokens(tokens)
      .filter((p) => CODE_FILE.test(p))
      .slice(0, LITERAL_CANDIDATES);
    if (candidates.length === 0) continue;
    const words = literal
      .split(/\s+/)
      .filter((w) => w !== '')
      .slice(0, MAX_LITERAL_WORDS);
    const all = candidates
      .map((p) => ({ p, w: longestWindow(words, text(p) ?? '') }))
      .filter((x): x is { p: string; w: string } => x.w !== undefined);
    // Tests assert the message as printed (with its prefix and values): a longer match than the raise
    // site's, but not where it is raised. Tests count only when no other code holds the message.
    const inCode = all.filter((x) => !TEST_FILE.test(x.p));
    const found = inCode.length > 0 ? inCode : all;
    const longest = Math.max(0, ...found.map((x) => x.w.length));
    const hits = found.filter((x) => x.w.length === longest);
    // A short, common window found in many files says little.
    if (hits.length === 0 || hits.length > 3) continue;
    for (const { p, w } of hits) {
      const t = text(p)!;
      const e = get(p);
      e.literal = Math.max(e.literal, Math.min(1, w.length / 30));
      for (let at = t.indexOf(w); at !== -1 && e.anchors.length < 40; at = t.indexOf(w, at + 1))
        e.anchors.push({ line: lineAt(t, at), weight: 1 });
    }
  }
}

/** An option found where it is declared counts as this much literal evidence (a name, not a message). */
const OPTION_WEIGHT = 0.6;

/**
 * Command-line options: `--fixtures` is declared as the string "--fixtures" where the option is
 * added, next to the name of the setting it fills; that declaration anchors the file (at most 3
 * files, tests only when no other code declares it).
 */
function locateOptions({ input, get, text }: Locator): void {
  for (const option of input.evidence.options) {
    const tokens = option
      .slice(2)
      .split('-')
      .filter((w) => w.length >= 3);
    if (tokens.length === 0) continue;
    const quoted = new RegExp(`["']${option}(?:=[^"']*)?["']`);
    const all = input
      .pathsWithTokens(tokens)
      .filter((p) => CODE_FILE.test(p))
      .slice(0, LITERAL_CANDIDATES)
      .filter((p) => quoted.test(text(p) ?? ''));
    const inCode = all.filter((p) => !TEST_FILE.test(p));
    const hits = inCode.length > 0 ? inCode : all;
    if (hits.length === 0 || hits.length > 3) continue;
    for (const p of hits) {
      const t = text(p)!;
      const e = get(p);
      e.literal = Math.max(e.literal, OPTION_WEIGHT);
      const at = t.search(quoted);
      e.anchors.push({ line: lineAt(t, at), weight: 1 });
    }
  }
}
