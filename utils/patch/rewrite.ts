/**
 * The rewrite engine of codemod rules (`operation: "rewrite"`): one ast-grep pattern and one rewrite
 * template applied to one file's text, in memory. Matching is @ast-grep/napi's (tree-sitter grammars;
 * JavaScript, TypeScript, TSX, HTML and CSS built in, Python, Go and Rust from the `@ast-grep/lang-*`
 * packages); the template expansion is utils/patch/rewrite-template.ts. Nothing of ast-grep is loaded until
 * the first file is rewritten, so a plan without rules never pays for it.
 */
import { createRequire } from 'node:module';
import type { SgNode } from '@ast-grep/napi';
import type { PatchEdit } from './edits.js';
import { DYNAMIC_LANGUAGES, languageLabel, languageOfPath, type RewriteLanguage } from './rewrite-lang.js';
import { compileTemplate, expandTemplate, type CompiledTemplate } from './rewrite-template.js';
import type { MetaVar } from '../rule-vars.js';

type Napi = typeof import('@ast-grep/napi');

/**
 * Stable codes of a file a rule did not rewrite:
 * - `rewrite_no_match`: the pattern matched nothing in the file;
 * - `rewrite_parse_error`: the file does not parse in its language (tree-sitter found an error), so it is
 *   left out rather than rewritten around a part the grammar did not understand;
 * - `rewrite_bad_pattern`: the pattern is not one piece of code in the language (ast-grep refused it);
 * - `rewrite_no_grammar`: no grammar covers the file's extension, or its grammar package failed to load.
 */
export type RewriteFailureCode =
  'rewrite_no_match' | 'rewrite_parse_error' | 'rewrite_bad_pattern' | 'rewrite_no_grammar';

/** One file, one rule. */
export interface RewriteInput {
  /** project-relative path with `/` separators; its extension picks the language unless `language` is set */
  path: string;
  /** the file's current text */
  content: string;
  /** an ast-grep pattern: code of the language with `$NAME`, `$$$NAME` and `$_` metavariables */
  find: string;
  /** the rewrite template: `$NAME` and `$$$NAME` stand for what the pattern captured */
  replace: string;
  language?: RewriteLanguage;
}

/** A file a rule rewrote: its new text, how many nodes were replaced, and the spans written. */
export interface RewriteSuccess {
  ok: true;
  content: string;
  /** nodes replaced (a match inside a replaced one is not counted: it was replaced with it) */
  matches: number;
  /** the spans replaced, ascending, in UTF-16 offsets of the input text */
  edits: PatchEdit[];
  language: RewriteLanguage;
}

/** A file a rule did not rewrite, and why. */
export interface RewriteFailure {
  ok: false;
  code: RewriteFailureCode;
  /** one line naming the file, e.g. `src/a.ts: does not parse as TypeScript (line 12)` */
  message: string;
  language?: RewriteLanguage;
}

/** What one rule did to one file: its new text, or why it was left as it was. */
export type RewriteOutcome = RewriteSuccess | RewriteFailure;

const require = createRequire(import.meta.url);
let napi: Napi | undefined;
/** Grammar packages by language; `null` once a package failed to load. */
const dynamicLoaded = new Map<RewriteLanguage, boolean>();

const LANG_PACKAGES: Readonly<Record<string, string>> = {
  Python: '@ast-grep/lang-python',
  Go: '@ast-grep/lang-go',
  Rust: '@ast-grep/lang-rust',
};

function loadNapi(): Napi {
  napi ??= require('@ast-grep/napi') as Napi;
  return napi;
}

/** What an `@ast-grep/lang-*` package exports, as `registerDynamicLanguage` takes it. */
interface LangRegistration {
  libraryPath: string;
  extensions: string[];
  languageSymbol?: string;
  expandoChar?: string;
}

/** The metavariable character of each loaded grammar package (`µ` stands for `$` where `$` is not an identifier). */
const expando = new Map<RewriteLanguage, string>();

/**
 * Make the grammar of `lang` usable. The three packages are registered together, once: @ast-grep/napi
 * takes one `registerDynamicLanguage` call per process.
 * @returns false when its package is missing or has no build for this platform
 */
function ensureLanguage(lang: RewriteLanguage): boolean {
  if (!DYNAMIC_LANGUAGES.has(lang)) return true;
  if (dynamicLoaded.size === 0) {
    const registrations: Record<string, LangRegistration> = {};
    for (const [name, pkg] of Object.entries(LANG_PACKAGES)) {
      try {
        const reg = require(pkg) as LangRegistration;
        // Reading libraryPath finds the platform's prebuilt parser (it throws when there is none). The
        // symbol must be passed: napi's default, tree_sitter_<name>, aborts the process when absent.
        if (typeof reg.languageSymbol !== 'string') throw new Error(`${pkg} names no language symbol`);
        registrations[name] = {
          libraryPath: reg.libraryPath,
          extensions: reg.extensions,
          languageSymbol: reg.languageSymbol,
          expandoChar: reg.expandoChar,
        };
        if (reg.expandoChar) expando.set(name as RewriteLanguage, reg.expandoChar);
      } catch {
        dynamicLoaded.set(name as RewriteLanguage, false);
      }
    }
    try {
      loadNapi().registerDynamicLanguage(registrations);
      for (const name of Object.keys(registrations)) dynamicLoaded.set(name as RewriteLanguage, true);
    } catch {
      for (const name of Object.keys(LANG_PACKAGES)) dynamicLoaded.set(name as RewriteLanguage, false);
    }
  }
  return dynamicLoaded.get(lang) === true;
}

/** A rule prepared for one language: its template and the words every match must contain. */
interface PreparedRule {
  template: CompiledTemplate;
  /** texts of the pattern's named leaves; a file lacking one cannot match, and is not parsed */
  anchors: string[];
  /** why ast-grep refused the pattern, when it did */
  patternError?: string;
}

const prepared = new Map<string, PreparedRule>();

function prepareRule(find: string, replace: string, lang: RewriteLanguage): PreparedRule {
  const key = `${lang}\0${find}\0${replace}`;
  let rule = prepared.get(key);
  if (rule) return rule;
  const api = loadNapi();
  rule = { template: compileTemplate(replace), anchors: [] };
  try {
    // An empty document compiles the pattern without searching anything: a pattern ast-grep refuses throws here.
    api.parse(lang, '').root().findAll(find);
    rule.anchors = patternAnchors(api, find, lang);
  } catch (error) {
    rule.patternError = firstLine((error as Error).message);
  }
  if (prepared.size > 64) prepared.clear();
  prepared.set(key, rule);
  return rule;
}

/**
 * The named leaves of a pattern (identifiers, string contents, numbers), which ast-grep matches by exact
 * text: every match contains each of them. Metavariables and comments are left out. A pattern that does
 * not parse cleanly in `lang` (a bare name in Go, a TypeScript pattern met in a CSS file) gives the words
 * of its text instead: its leaves are still matched by text, so a file lacking one cannot match.
 */
function patternAnchors(api: Napi, find: string, lang: RewriteLanguage): string[] {
  const mark = expando.get(lang);
  const root = api.parse(lang, mark ? find.replaceAll('$', mark) : find).root();
  if (root.find({ rule: { kind: 'ERROR' } })) {
    return [...new Set([...find.matchAll(/(?<![$\w])[A-Za-z_]\w*/g)].map((m) => m[0]))];
  }
  const out = new Set<string>();
  const walk = (node: SgNode): void => {
    const children = node.children();
    if (children.length === 0) {
      const text = node.text();
      if (!node.isNamed() || String(node.kind()).includes('comment') || text === '') return;
      if (text.includes('$') || (mark !== undefined && text.includes(mark))) return;
      out.add(text);
      return;
    }
    for (const child of children) walk(child);
  };
  walk(root);
  return [...out];
}

/**
 * Whether ast-grep accepts `find` as a pattern of `lang`, without any file.
 * @returns why it refused it (one line), or undefined when it is a usable pattern
 * @throws never; a missing grammar is reported as a refusal
 */
export function checkRewritePattern(find: string, lang: RewriteLanguage): string | undefined {
  if (!ensureLanguage(lang)) return `no ${languageLabel(lang)} grammar is available on this platform`;
  return prepareRule(find, '', lang).patternError;
}

/**
 * Apply one rule to one file's text: every node the pattern matches is replaced by the template expanded
 * with its captures (ast-grep's own expansion and re-indentation), in one pass over the original text;
 * a match inside an earlier (outer) match is left to it. A statement's `;` the pattern leaves out is kept.
 * In a file whose every line ends in CRLF, the template's line breaks are written as CRLF.
 *
 * @returns the new text with the count and spans of the replacements, or why the file was not rewritten
 *          (no match, a parse error, a refused pattern, no grammar); never throws for a bad rule or file
 */
export function rewriteFile(input: RewriteInput): RewriteOutcome {
  const { path, content } = input;
  const lang = input.language ?? languageOfPath(path);
  if (!lang) return fail('rewrite_no_grammar', `${path}: no grammar covers this file type`);
  if (!ensureLanguage(lang)) {
    return fail('rewrite_no_grammar', `${path}: no ${languageLabel(lang)} grammar is available on this platform`, lang);
  }
  const crlf = content.includes('\r\n') && !/(^|[^\r])\n/.test(content);
  const rule = prepareRule(input.find, crlf ? toCrlf(input.replace) : input.replace, lang);
  if (rule.patternError) return fail('rewrite_bad_pattern', `${path}: ${rule.patternError}`, lang);
  if (!rule.anchors.every((a) => content.includes(a))) return noMatch(path, lang);
  const api = loadNapi();
  const root = api.parse(lang, content).root();
  const error = root.find({ rule: { kind: 'ERROR' } });
  if (error) {
    const line = error.range().start.line + 1;
    return fail('rewrite_parse_error', `${path}: does not parse as ${languageLabel(lang)} (line ${line})`, lang);
  }
  const keepSemicolon = !input.find.trimEnd().endsWith(';');
  const found = root.findAll(input.find).map((node) => {
    const range = node.range();
    return { node, start: range.start.index, end: keepSemicolon ? endBeforeSemicolon(node) : range.end.index };
  });
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const edits: PatchEdit[] = [];
  let reached = 0;
  for (const m of found) {
    if (m.start < reached) continue;
    edits.push({
      start: m.start,
      end: m.end,
      text: expandTemplate(rule.template, content, m.start, captureOf(m.node)),
    });
    reached = m.end;
  }
  if (edits.length === 0) return noMatch(path, lang);
  let out = '';
  let at = 0;
  for (const e of edits) {
    out += content.slice(at, e.start) + e.text;
    at = e.end;
  }
  out += content.slice(at);
  return { ok: true, content: out, matches: edits.length, edits, language: lang };
}

/**
 * Where a match ends when its pattern leaves out the statement's closing `;`: before the `;` (and the
 * space before it), so `let $A = $B` → `const $A = $B` keeps it. This is ast-grep's core rule (trailing
 * tokens the pattern did not match are not replaced); its CLI's `run` replaces the whole statement instead.
 */
function endBeforeSemicolon(node: SgNode): number {
  const end = node.range().end.index;
  let last = node;
  for (let child = last.children().at(-1); child; child = child.children().at(-1)) last = child;
  if (last === node || last.isNamed() || last.text() !== ';') return end;
  const before = last.prev();
  return before ? before.range().end.index : end;
}

/** Where a metavariable of a match was captured: one node, or the span of a `$$$` run from first to last. */
function captureOf(node: SgNode) {
  return (v: MetaVar) => {
    if (v.multi) {
      const nodes = node.getMultipleMatches(v.name);
      const first = nodes[0];
      const last = nodes[nodes.length - 1];
      return first && last ? { start: first.range().start.index, end: last.range().end.index } : undefined;
    }
    const one = node.getMatch(v.name);
    if (!one) return undefined;
    const range = one.range();
    return { start: range.start.index, end: range.end.index };
  };
}

const toCrlf = (text: string): string => text.replace(/\r?\n/g, '\r\n');
const firstLine = (text: string): string => text.split('\n')[0]!.trim();

function noMatch(path: string, lang: RewriteLanguage): RewriteFailure {
  return fail('rewrite_no_match', `${path}: the pattern matches nothing`, lang);
}

function fail(code: RewriteFailureCode, message: string, language?: RewriteLanguage): RewriteFailure {
  return { ok: false, code, message, language };
}
