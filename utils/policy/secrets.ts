/**
 * Secrets are never sent to a provider (docs/architecture.md, "Invariants"). Two guards: secret *files* are never
 * candidates for context (the path policy decides which), and secret-looking *strings* inside files that
 * are sent are replaced by a `[REDACTED:<kind>]` marker.
 *
 * The strings are found by two rule sets, run over the same text and merged: a few of our own (issuer
 * formats we must never miss, an AWS secret key beside its key id, passwords in URLs, high-entropy values
 * assigned to names like `secret`, `token`, `password`, `key`) and the maintained gitleaks default rule
 * set, vendored as data in `secret-rules.ts` (keyword prefilter, entropy floor and allow-lists as gitleaks
 * applies them). Everything is synchronous: redaction runs on every file that is sent.
 */
import { GITLEAKS_RULES } from './secret-rules.js';

/** Which files are secrets is the path policy's decision (one rule for context, plans and the journal). */
export { isSecretPath } from './paths.js';

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

interface CompiledAllow {
  regexes: RegExp[];
  target: 'secret' | 'match' | 'line';
  stopwords: string[];
}

interface Rule {
  kind: string;
  re: RegExp;
  keywords: readonly string[];
  /** group holding the secret (0 = whole match); undefined = first non-empty group, else 0 */
  group?: number;
  entropy?: number;
  allow: CompiledAllow[];
  /** a match can span many lines: run on the whole text, not on the lines around its keywords */
  multiline?: boolean;
  /** extra test on the secret (own rules) */
  keep?: (secret: string, match: RegExpExecArray) => boolean;
}

/** Shannon entropy of a string in bits per character (as gitleaks computes it). */
export function shannonEntropy(s: string): number {
  if (s.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** Names whose value is a credential: `secret`, `token`, `password`, `passwd`, `pwd`, `key`, `credential`, `auth`. */
const SECRET_NAME = /secret|token|passw(?:or)?d|pwd|key|credential|auth|private/i;
/** Names that contain a hint word but hold no credential. */
const NOT_SECRET_NAME =
  /key(?:board|word|code|s?name|path|file|id|length|size|up|down|press)|tokens?(?:izer|count|len|type)|author|public/i;
/** Template placeholders are not values: `${X}`, `{{ x }}`, `<password>`, `$VAR`, `%VAR%`. */
const PLACEHOLDER = /^(?:\$\{.*\}|\{\{.*\}\}|<.*>|\$[A-Za-z_]\w*|%\w+%)$/;

/** Whether a match is a whole `NAME=value` / `name: value` line (maybe after `export `, before a `# comment`). */
function configLine(m: RegExpExecArray): boolean {
  const before = m.input.slice(m.input.lastIndexOf('\n', m.index) + 1, m.index);
  const end = m.index + m[0].length;
  const eol = m.input.indexOf('\n', end);
  const after = m.input.slice(end, eol === -1 ? m.input.length : eol);
  return /^[ \t]*(?:export[ \t]+|-[ \t]+)?["']?$/.test(before) && /^[ \t]*(?:#.*)?\r?$/.test(after);
}

// Own rules: issuer formats we must never miss, and what gitleaks leaves to a generic rule.
const OWN_RULES: Rule[] = [
  {
    kind: 'private_key',
    re: /-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/dg,
    keywords: ['-----begin'],
    group: 0,
    allow: [],
    multiline: true,
  },
  // An AWS secret access key (40 base64 characters) within a few lines after its key id: a credentials
  // file, a CSV export, two environment lines.
  {
    kind: 'aws_secret_key',
    re: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b[\s\S]{0,300}?(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/dg,
    keywords: ['akia', 'asia', 'abia', 'acca'],
    group: 1,
    multiline: true,
    allow: [],
    keep: (secret) =>
      shannonEntropy(secret) >= 3.5 && /[0-9+/]/.test(secret) && /[a-z]/.test(secret) && /[A-Z]/.test(secret),
  },
  {
    kind: 'aws_access_key',
    re: /\b(AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/dg,
    keywords: ['akia', 'asia', 'abia', 'acca'],
    group: 0,
    allow: [],
  },
  {
    kind: 'github_token',
    re: /\b(gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/dg,
    keywords: ['gh', 'github_pat_'],
    group: 0,
    allow: [],
  },
  {
    kind: 'openai_key',
    re: /\bsk-(proj-|svcacct-|admin-)?(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Z])[A-Za-z0-9_-]{20,}\b/dg,
    keywords: ['sk-'],
    group: 0,
    allow: [],
  },
  { kind: 'anthropic_key', re: /\bsk-ant-[A-Za-z0-9_-]{20,}\b/dg, keywords: ['sk-ant-'], group: 0, allow: [] },
  { kind: 'slack_token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/dg, keywords: ['xox'], group: 0, allow: [] },
  { kind: 'google_api_key', re: /\bAIza[0-9A-Za-z_-]{35}\b/dg, keywords: ['aiza'], group: 0, allow: [] },
  { kind: 'stripe_key', re: /\b(sk|rk)_live_[0-9A-Za-z]{16,}\b/dg, keywords: ['_live_'], group: 0, allow: [] },
  { kind: 'groq_key', re: /\bgsk_[A-Za-z0-9]{40,}\b/dg, keywords: ['gsk_'], group: 0, allow: [] },
  { kind: 'npm_token', re: /\bnpm_[A-Za-z0-9]{36}\b/dg, keywords: ['npm_'], group: 0, allow: [] },
  {
    kind: 'sendgrid_key',
    re: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/dg,
    keywords: ['sg.'],
    group: 0,
    allow: [],
  },
  // The password of `scheme://user:password@host` (database URLs, git remotes, proxies).
  {
    kind: 'url_password',
    re: /\b[a-z][a-z0-9+.-]{1,30}:\/\/[^\s:/?#@'"`<>]{1,100}:([^\s/?#@'"`]{1,200})@/dgi,
    keywords: ['://'],
    group: 1,
    allow: [],
    keep: (secret) => !PLACEHOLDER.test(secret),
  },
  // A high-entropy value assigned to a credential-like name: `API_SECRET=…`, `token: "…"`, `"password": "…"`.
  {
    kind: 'secret_assignment',
    re: /(?<![\w$.-])([A-Za-z_$][\w$.-]{0,60})["']?[ \t]*(?::=|=>|=|:)[ \t]*(["'`]?)([\w+/=.~!@#%^*-]{12,200})\2(?![\w+/=.~!@#%^*-])/dg,
    keywords: ['secret', 'token', 'pass', 'pwd', 'key', 'credential', 'auth', 'private'],
    group: 3,
    allow: [],
    keep: (secret, m) => {
      const name = m[1] ?? '';
      if (!SECRET_NAME.test(name) || NOT_SECRET_NAME.test(name)) return false;
      if (PLACEHOLDER.test(secret) || !/[0-9]/.test(secret) || !/[A-Za-z]/.test(secret)) return false;
      // Unquoted, only a whole config line counts (`.env`, YAML, INI, shell): in code an unquoted value
      // is an expression (`token = nextToken2()`), and code quotes its literal secrets.
      if (!m[2] && !configLine(m)) return false;
      return shannonEntropy(secret) >= 3.5;
    },
  },
];

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
  const all = [...OWN_RULES, ...gitleaks];
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

/**
 * Which runs of three ASCII characters the last text holds, hashed into 2^16 slots: a slot is set for
 * this text when it holds `stamp` (reused across texts, so nothing is cleared between them).
 */
const tripleSeen = new Int32Array(1 << 16);
let stamp = 0;

/** Slot of the three ASCII character codes a, b, c in `tripleSeen`. */
const tripleSlot = (a: number, b: number, c: number): number => ((a << 9) ^ (b << 5) ^ c ^ (a >> 3)) & 0xffff;

/**
 * The keywords that occur in `lower`, each tested once per text rather than once per rule. A keyword
 * is searched for only when each run of three ASCII characters in it occurs somewhere in the text (one
 * pass over the text fills a table of them): a necessary condition, so the result is exactly what
 * `lower.includes` finds for every keyword, while most of the 250 keywords are ruled out without a
 * search (a search for a keyword whose first letter is common costs ~10 ns per character).
 */
function presentKeywords(lower: string, keywords: readonly string[]): Set<string> {
  stamp = stamp === 0x7fffffff ? 1 : stamp + 1;
  if (stamp === 1) tripleSeen.fill(0);
  for (let i = 2, a = lower.charCodeAt(0), b = lower.charCodeAt(1); i < lower.length; i++) {
    const c = lower.charCodeAt(i);
    if ((a | b | c) < 128) tripleSeen[tripleSlot(a, b, c)] = stamp;
    a = b;
    b = c;
  }
  const present = new Set<string>();
  for (const k of keywords) {
    let possible = true;
    for (let i = 2; i < k.length && possible; i++) {
      const a = k.charCodeAt(i - 2);
      const b = k.charCodeAt(i - 1);
      const c = k.charCodeAt(i);
      if ((a | b | c) < 128 && tripleSeen[tripleSlot(a, b, c)] !== stamp) possible = false;
    }
    if (possible && lower.includes(k)) present.add(k);
  }
  return present;
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

let lastText: { text: string; breaks: number[] } | undefined;

/** Offsets of every `\n` in `text` (computed once per text). */
function lineBreaks(text: string): number[] {
  if (lastText?.text === text) return lastText.breaks;
  const breaks: number[] = [];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) breaks.push(i);
  lastText = { text, breaks };
  return breaks;
}

/** Index of the first element of a sorted array that is >= `at` (the array's length when none is). */
function firstAtOrAfter(sorted: readonly number[], at: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The parts of `text` a keyword rule needs to see: each line holding one of its keywords and the line
 * after it (a match may run onto the next line), merged; the whole text for rules that span many lines,
 * or when the parts would cover most of it anyway. Every match of these rules contains a keyword, so
 * nothing is missed, and a rule with a common keyword no longer scans megabytes for one hit.
 *
 * @param inText  the keywords that occur in `lower` (from presentKeywords)
 * @returns [from, to) character ranges of `text`, in order; empty when no keyword occurs
 */
function keywordWindows(
  text: string,
  lower: string,
  rule: Rule,
  inText: ReadonlySet<string>,
): (readonly [number, number])[] {
  const present = rule.keywords.filter((k) => inText.has(k));
  if (present.length === 0) return [];
  if (rule.multiline || lower.length !== text.length) return [[0, text.length]];
  const breaks = lineBreaks(text);
  const spans: [number, number][] = [];
  for (const k of present) {
    for (let at = lower.indexOf(k); at !== -1; at = lower.indexOf(k, at + k.length)) {
      // breaks[i] is the first line break at or after `at`: the window runs from the line start to the next line's end.
      const i = firstAtOrAfter(breaks, at);
      spans.push([i === 0 ? 0 : breaks[i - 1]! + 1, breaks[i + 1] ?? text.length]);
      if (spans.length > 256) return [[0, text.length]]; // a common keyword: one pass is cheaper
    }
  }
  spans.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  let covered = 0;
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push([...span]);
  }
  for (const [from, to] of merged) covered += to - from;
  return covered > text.length / 2 ? [[0, text.length]] : merged;
}

/**
 * Replace secret-looking strings with `[REDACTED:<kind>]`. Line structure is preserved (a multi-line
 * private key block keeps its line count) so line numbers of the rest of the text stay true.
 * Kinds are our own (`aws_access_key`, `url_password`, `secret_assignment`...) or gitleaks rule ids.
 *
 * @param text  any text about to be sent (file content, instructions)
 * @returns the redacted text and one entry per kind found, in rule order (empty when nothing was found)
 * @throws never
 */
export function redactSecrets(text: string): { text: string; redactions: Redaction[] } {
  const { rules: all, globalAllow, keywords, byKeyword, always } = rules();
  const lower = text.toLowerCase();
  const inText = presentKeywords(lower, keywords);
  // Only the rules one of whose keywords occurs can match (a handful of 250), in rule order.
  const run = new Set(always);
  for (const k of inText) for (const index of byKeyword.get(k) ?? []) run.add(index);
  const findings: Finding[] = [];
  for (const index of [...run].sort((a, b) => a - b)) {
    const rule = all[index]!;
    const windows =
      rule.keywords.length === 0 ? [[0, text.length] as const] : keywordWindows(text, lower, rule, inText);
    for (const [from, to] of windows) {
      const part = from === 0 && to === text.length ? text : text.slice(from, to);
      rule.re.lastIndex = 0;
      for (let m = rule.re.exec(part); m !== null; m = rule.re.exec(part)) {
        if (m[0] === '') {
          rule.re.lastIndex++;
          continue;
        }
        const secret = secretOf(m, rule.group);
        if (!secret) continue;
        if (rule.entropy !== undefined && shannonEntropy(secret.text) < rule.entropy) continue;
        if (rule.keep && !rule.keep(secret.text, m)) continue;
        if (rule.allow.length > 0 || index >= OWN_RULES.length) {
          const lineStart = part.lastIndexOf('\n', m.index) + 1;
          const lineEnd = part.indexOf('\n', m.index + m[0].length);
          const line = part.slice(lineStart, lineEnd === -1 ? part.length : lineEnd);
          const allowLists = index >= OWN_RULES.length ? [globalAllow, ...rule.allow] : rule.allow;
          if (allowLists.some((a) => allowed(a, secret.text, m[0], line))) continue;
        }
        findings.push({ start: from + secret.at, end: from + secret.at + secret.text.length, rule: index });
      }
    }
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
  const counts = new Map<number, number>();
  let out = '';
  let at = 0;
  for (const f of merged) {
    const kind = all[f.rule]!.kind;
    const newlines = text.slice(f.start, f.end).split('\n').length - 1;
    out += text.slice(at, f.start) + `[REDACTED:${kind}]` + '\n'.repeat(newlines);
    at = f.end;
    counts.set(f.rule, (counts.get(f.rule) ?? 0) + 1);
  }
  out += text.slice(at);
  const redactions = [...counts.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([rule, count]) => ({ kind: all[rule]!.kind, count }));
  return { text: out, redactions };
}
