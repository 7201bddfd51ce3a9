/**
 * Secrets are never sent to a provider (docs/architecture.md, "Invariants"). Two guards: secret *files* are never
 * candidates for context (the path policy decides which), and secret-looking *strings* inside what is sent are
 * replaced by a `[REDACTED:<kind>]` marker.
 *
 * The strings are found by two rule sets, run over the same text and merged: our own (secret-own-rules.ts:
 * issuer formats we must never miss, and rules by structure: private key material as PEM or as bare base64,
 * any printable high-entropy value assigned to a secret-like name, connection-string passwords, URL passwords,
 * HTTP Basic and bearer credentials, an AWS secret key beside its key id) and the maintained gitleaks default
 * rule set, vendored as data in `secret-rules.ts` (keyword prefilter, entropy floor and allow-lists as gitleaks
 * applies them). Everything is synchronous: redaction runs on every request that is sent.
 */
import { GITLEAKS_RULES } from './secret-rules.js';
import { OWN_RULES, type CompiledAllow, type Rule } from './secret-own-rules.js';
import { PASSWORD_RULES, passwordName, weakPassword } from './secret-passwords.js';
import { COMMAND_RULES } from './secret-commands.js';
import { fileNamedSecret, shannonEntropy } from './secret-values.js';
import { keywordWindows, presentKeywords } from './secret-scan.js';
import { derivedViews } from './secret-views.js';

/** Which files are secrets is the path policy's decision (one rule for context, plans and the journal). */

/** An allow-list of a gitleaks rule (or the global one): a finding it matches is not a secret. */
export interface SecretAllowList {
  regexes?: { regex: string; flags: string }[];
  /** what the regexes are tested against (gitleaks' `regexTarget`); default the secret */
  target?: 'secret' | 'match' | 'line';
  /** a secret containing one of these (lower case) is not one */
  stopwords?: string[];
}

/** One rule of the vendored set: a JavaScript regex source and flags, and gitleaks' filters. */
export interface SecretRuleData {
  id: string;
  regex: string;
  flags: string;
  /** lower-case words, one of which must occur in the text for the rule to run; empty = always run */
  keywords: string[];
  /** least Shannon entropy (bits per character) of the secret */
  entropy?: number;
  /** capture group holding the secret; default the first non-empty group, else the whole match */
  secretGroup?: number;
  allow?: SecretAllowList[];
}

/** The vendored rule set: its source, global allow-list, rules and the rules left out (with why). */
export interface SecretRuleSet {
  source: string;
  allow: SecretAllowList;
  rules: SecretRuleData[];
  excluded: { id: string; why: string }[];
}

/** One kind of secret found in a text and how many times it was replaced. */
export interface Redaction {
  kind: string;
  count: number;
}

function compileAllow(allow: SecretAllowList): CompiledAllow {
  return {
    regexes: (allow.regexes ?? []).map((r) => new RegExp(r.regex, r.flags)),
    target: allow.target ?? 'secret',
    stopwords: allow.stopwords ?? [],
  };
}

/** The compiled rules, their distinct keywords, and which rules each keyword (or none) calls for. */
interface CompiledRules {
  rules: Rule[];
  globalAllow: CompiledAllow;
  keywords: string[];
  /** keyword → indexes in `rules` of the rules that list it, ascending */
  byKeyword: Map<string, number[]>;
  /** indexes of rules without keywords: they always run */
  always: number[];
}

let compiled: CompiledRules | undefined;
/** Rules before this index are ours (no global allow-list); the vendored gitleaks rules follow. */
const OWN_COUNT = OWN_RULES.length + PASSWORD_RULES.length + COMMAND_RULES.length;

/** Compile both rule sets once, on first use (about 220 regexes). */
function rules(): CompiledRules {
  if (compiled) return compiled;
  const gitleaks: Rule[] = GITLEAKS_RULES.rules.map((r) => ({
    kind: r.id,
    re: new RegExp(r.regex, `gd${r.flags}`),
    keywords: r.keywords,
    group: r.secretGroup,
    entropy: r.entropy,
    allow: (r.allow ?? []).map(compileAllow),
    multiline: r.flags.includes('s') || /\\s\\S|\\[rn]/.test(r.regex),
  }));
  const all = [...OWN_RULES, ...PASSWORD_RULES, ...COMMAND_RULES, ...gitleaks];
  compiled = {
    rules: all,
    globalAllow: compileAllow(GITLEAKS_RULES.allow),
    keywords: [...new Set(all.flatMap((r) => r.keywords))],
    byKeyword: new Map(),
    always: [],
  };
  for (const [index, rule] of all.entries()) {
    if (rule.keywords.length === 0) compiled.always.push(index);
    for (const k of rule.keywords) {
      const list = compiled.byKeyword.get(k);
      if (list === undefined) compiled.byKeyword.set(k, [index]);
      else if (list[list.length - 1] !== index) list.push(index);
    }
  }
  return compiled;
}

function allowed(allow: CompiledAllow, secret: string, match: string, line: string): boolean {
  const lower = secret.toLowerCase();
  if (allow.stopwords.some((w) => lower.includes(w))) return true;
  const target = allow.target === 'match' ? match : allow.target === 'line' ? line : secret;
  return allow.regexes.some((re) => re.test(target));
}

interface Finding {
  start: number;
  end: number;
  rule: number;
}

/** The secret's offset and text in a match: the rule's group, the first non-empty group, or the whole match. */
function secretOf(m: RegExpExecArray, group: number | undefined): { at: number; text: string } | undefined {
  let index = group;
  if (index === undefined) index = m.findIndex((g, i) => i > 0 && g !== undefined && g !== '');
  if (index === undefined || index < 0) index = 0;
  const text = m[index];
  const span = m.indices?.[index];
  if (text === undefined || text === '' || span === undefined) return undefined;
  return { at: span[0], text };
}

/**
 * Where a file that holds one bare value holds it, when the file is named as a password (`db_password.txt`, a
 * Compose secret): the value is a password of any strength, as if assigned to that name.
 */
function fileNamedPassword(text: string, path: string): [number, number] | undefined {
  const m = /^\s*(\S{1,200})\s*$/d.exec(text);
  const span = m?.indices?.[1];
  const base = path.slice(path.lastIndexOf('/') + 1);
  // A value file has no extension or `.txt`; `password.ts` holding one word is source.
  if (!/^[^.]+(?:\.txt)?$/i.test(base)) return undefined;
  if (!m || !span || !passwordName(base.replace(/\.txt$/i, '')) || /[{}[\]()<>"'`,;]/.test(m[1]!)) return undefined;
  return weakPassword(m[1]!, 'bare') ? [span[0], span[1]] : undefined;
}

/**
 * Every finding of every rule in `text` (unmerged, in rule order), markers excepted.
 */
function scan(text: string): Finding[] {
  const { rules: all, globalAllow, keywords, byKeyword, always } = rules();
  const lower = text.toLowerCase();
  const inText = presentKeywords(lower, keywords);
  // Only the rules one of whose keywords occurs can match (a handful of 250), in rule order.
  const run = new Set(always);
  for (const k of inText) for (const index of byKeyword.get(k) ?? []) run.add(index);
  const findings: Finding[] = [];
  // A marker is never a finding, nor part of one, so text redacted once comes out of a second pass unchanged
  // (`https://[REDACTED:url_token]@host` reads as a user `[REDACTED` with a password `url_token]`).
  const markers = !text.includes('[REDACTED:')
    ? []
    : [...text.matchAll(/\[REDACTED:[\w.-]*\]/g)].map((m) => [m.index, m.index + m[0].length] as const);
  const inMarker = (start: number, end: number): boolean => markers.some(([a, b]) => start < b && end > a);
  for (const index of [...run].sort((a, b) => a - b)) {
    const rule = all[index]!;
    for (const [from, to] of keywordWindows(text, lower, rule, inText)) {
      const part = from === 0 && to === text.length ? text : text.slice(from, to);
      rule.re.lastIndex = 0;
      for (let m = rule.re.exec(part); m !== null; m = rule.re.exec(part)) {
        if (m[0] === '') {
          rule.re.lastIndex++;
          continue;
        }
        const secret = secretOf(m, rule.group);
        if (!secret || inMarker(from + secret.at, from + secret.at + secret.text.length)) continue;
        if (rule.entropy !== undefined && shannonEntropy(secret.text) < rule.entropy) continue;
        if (rule.keep && !rule.keep(secret.text, m)) continue;
        if (rule.allow.length > 0 || index >= OWN_COUNT) {
          const lineStart = part.lastIndexOf('\n', m.index) + 1;
          const lineEnd = part.indexOf('\n', m.index + m[0].length);
          const line = part.slice(lineStart, lineEnd === -1 ? part.length : lineEnd);
          const allowLists = index >= OWN_COUNT ? [globalAllow, ...rule.allow] : rule.allow;
          if (allowLists.some((a) => allowed(a, secret.text, m[0], line))) continue;
        }
        findings.push({ start: from + secret.at, end: from + secret.at + secret.text.length, rule: index });
      }
    }
  }
  return findings;
}

/**
 * Replace secret-looking strings with `[REDACTED:<kind>]`. Line structure is preserved (a multi-line
 * private key block keeps its line count) so line numbers of the rest of the text stay true.
 * Kinds are our own (`aws_access_key`, `url_password`, `secret_assignment`...) or gitleaks rule ids.
 *
 * @param text  any text about to be sent (file content, instructions)
 * @param path  when `text` is a whole file, its project-relative path: a file holding one bare value is read as
 *              that value assigned to the file's name (`.vault-token`, `secrets/db_password.txt`)
 * @returns the redacted text and one entry per kind found, in rule order (empty when nothing was found)
 * @throws never
 */
export function redactSecrets(text: string, path?: string): { text: string; redactions: Redaction[] } {
  const named = path === undefined ? undefined : (fileNamedSecret(text, path) ?? fileNamedPassword(text, path));
  if (named) {
    const [start, end] = named;
    const kind = 'secret_assignment';
    return { text: `${text.slice(0, start)}[REDACTED:${kind}]${text.slice(end)}`, redactions: [{ kind, count: 1 }] };
  }
  const { rules: all } = rules();
  const findings = scan(text);
  // What the text says as well as how it is written: joined and decoded literals, decoded runs, no invisible
  // characters (secret-views.ts). A finding in a view is redacted over the original characters it came from.
  for (const view of derivedViews(text)) {
    for (const f of scan(view.text))
      findings.push({ start: view.starts[f.start]!, end: view.ends[f.end - 1]!, rule: f.rule });
  }
  if (findings.length === 0) return { text, redactions: [] };
  // Overlapping findings become one replacement, named after the rule listed first.
  findings.sort((a, b) => a.start - b.start || a.rule - b.rule);
  const merged: Finding[] = [];
  for (const f of findings) {
    const last = merged[merged.length - 1];
    if (last && f.start < last.end) {
      last.end = Math.max(last.end, f.end);
      last.rule = Math.min(last.rule, f.rule);
    } else merged.push({ ...f });
  }
  // Counted by kind, in the order of the first rule of each kind (two own rules can share one).
  const counts = new Map<string, { rule: number; count: number }>();
  let out = '';
  let at = 0;
  for (const f of merged) {
    const kind = all[f.rule]!.kind;
    const newlines = text.slice(f.start, f.end).split('\n').length - 1;
    out += text.slice(at, f.start) + `[REDACTED:${kind}]` + '\n'.repeat(newlines);
    at = f.end;
    const seen = counts.get(kind);
    if (seen) {
      seen.count++;
      seen.rule = Math.min(seen.rule, f.rule);
    } else counts.set(kind, { rule: f.rule, count: 1 });
  }
  out += text.slice(at);
  const redactions = [...counts.entries()]
    .sort((a, b) => a[1].rule - b[1].rule)
    .map(([kind, { count }]) => ({ kind, count }));
  return { text: out, redactions };
}
