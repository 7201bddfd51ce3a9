import { CODE_FILE, TEST_FILE, type IssueEvidence } from './issue.js';

/**
 * Resolving a task's evidence (`readIssue`, agent/context/issue.ts) against the project's files: frames
 * and paths to project files, dotted names to modules and definitions, literals to the lines that hold
 * them. Each place found becomes an anchor line with a weight, which block scoring raises.
 */

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
 * Anchor weight of a definition the title names (`_print_SingularityFunction() got an unexpected keyword
 * argument`): the title says which function misbehaves, more weakly than a frame (which gets 1).
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
