/**
 * Credential detection for settings files that may be committed (`.clawcode/settings.json`) or shared by
 * accident (`.clawcode/settings.local.json`), and masking for anything clawcode prints about settings.
 * Pure functions over parsed JSON and strings; nothing here reads files.
 */
import { shannonEntropy } from '../utils/policy/secret-values.js';

/**
 * Key names that hold credentials. Matched against every key at every depth, case-insensitive, after removing
 * `_`, `-` and `.`, so `apiKey`, `api_key`, `API-KEY`, `authToken`, `client_secret` and `password` all match.
 * A bare `key` is included because `{ "key": "..." }` is how people paste keys; `keys`, `maxTokens` and
 * `tokenBudget` are not (a plural or a prefix-only match would misreport ordinary typos as secrets).
 */
const SECRET_KEY_NAME = /^(?:.*(?:apikey|token|secrets?|passw(?:or)?d|credentials?|privatekey|accesskey)|key)$/;

/**
 * Prefixes of well-known API key formats. Sources: the providers' own key formats (OpenAI `sk-`/`sk-proj-`,
 * Groq `gsk_`, Google `AIza` + 35 characters, Anthropic `sk-ant-`), GitHub token prefixes (`ghp_` … `ghr_`,
 * `github_pat_`), Slack `xox?-`, AWS access key ids `AKIA`/`ASIA`, and the gitleaks default rule set.
 */
const KNOWN_KEY_PATTERNS: readonly RegExp[] = [
  /\bsk-(?:proj-|ant-|or-)?[A-Za-z0-9_-]{16,}/,
  /\bgsk_[A-Za-z0-9]{20,}/,
  /\bAIza[0-9A-Za-z_-]{35}/,
  /\bgh[pousr]_[A-Za-z0-9]{30,}/,
  /\bgithub_pat_[A-Za-z0-9_]{30,}/,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
];

/** Runs of 32+ characters from the base64/base64url alphabet: the candidates for an opaque token. */
const OPAQUE_RUN = /[A-Za-z0-9+/=_-]{32,}/g;

const charClass = (ch: string) => (/[a-z]/.test(ch) ? 1 : /[A-Z]/.test(ch) ? 2 : /[0-9]/.test(ch) ? 3 : 0);

/**
 * Share of adjacent letter/digit pairs whose class (lower, upper, digit) changes. Random base62 text switches
 * class about 62% of the time, random lowercase+digits about 40%; names and paths such as
 * `accounts/fireworks/models/llama-v3p1-405b-instruct` or `claude-3-5-sonnet-20241022` stay under 15%,
 * because their words and numbers come in runs. Pairs across separators (`-_/+=`) are not counted.
 */
function classSwitchRate(text: string): number {
  let pairs = 0;
  let switches = 0;
  for (let i = 1; i < text.length; i++) {
    const a = charClass(text[i - 1]!);
    const b = charClass(text[i]!);
    if (a === 0 || b === 0) continue;
    pairs++;
    // Upper then lower is how a capitalised word starts (`CamelCase`), so it is not counted as a switch.
    if (a !== b && !(a === 2 && b === 1)) switches++;
  }
  return pairs === 0 ? 0 : switches / pairs;
}

/**
 * Minimum class-switch rate of an opaque token. Measured on 2,000 random keys per alphabet and length
 * (base62, base64, base64url, lower/upper+digits; 32-64 characters): at 0.2 at most 3% of the 32-character
 * lowercase+digit ones are missed (none above 48 characters in base62), while none of about 40 real model
 * ids, paths, globs and commands were flagged; 0.3 missed up to 17% of the random keys.
 */
const SWITCH_RATE = 0.2;

/**
 * Is a 32+ character run an opaque token? If its longest segment between `-_/+=` is 32+ hex digits, only
 * exactly 32 is (the Azure OpenAI key format); longer ones are digests (git SHAs, sha256-...). A run whose
 * segments are all shorter than 12 is a name or path. Otherwise it needs a class-switch rate of at least
 * SWITCH_RATE and an entropy of at least 3.5 bits per character. Entropy is the test truffleHog and
 * detect-secrets use; alone it flagged model ids such as `anthropic/claude-3-5-sonnet-20241022`.
 */
function isOpaqueToken(run: string): boolean {
  const longest = run.split(/[-_/+=]/).reduce((a, b) => (b.length > a.length ? b : a), '');
  if (/^[0-9a-f]+$/i.test(longest) && longest.length >= 32) return longest.length === 32;
  if (longest.length < 12) return false;
  return classSwitchRate(run) >= SWITCH_RATE && shannonEntropy(run) >= 3.5;
}

function opaqueTokens(text: string): string[] {
  return [...text.matchAll(OPAQUE_RUN)].map((m) => m[0]).filter(isOpaqueToken);
}

/** True when a key name (any depth of a settings object) names a credential, e.g. `apiKey`, `token`. */
export function isSecretKeyName(name: string): boolean {
  return SECRET_KEY_NAME.test(name.toLowerCase().replace(/[_.\-\s]/g, ''));
}

/**
 * True when a string value contains something that looks like an API key: a known provider/host format
 * (`sk-…`, `gsk_…`, `AIza…`, `ghp_…`, …) or a long opaque token (see isOpaqueToken).
 */
export function looksLikeSecretValue(value: string): boolean {
  return KNOWN_KEY_PATTERNS.some((re) => re.test(value)) || opaqueTokens(value).length > 0;
}

/** Where a credential was found in a parsed settings file; `path` is a dotted JSON path like `commands.allow[0]`. */
export type SecretFinding = { path: string; reason: 'key-name' | 'value' };

/**
 * Walk parsed JSON and return the first credential found, or undefined. A key named like a credential counts
 * whatever its value (even empty), because the file is the wrong place for it either way. The walk keeps its own
 * stack, depth first in document order: a committed file nested a few thousand arrays deep overflowed the call
 * stack of a recursive walk ("internal error, please report") before the schema could name the key.
 *
 * @param value  any JSON value (as returned by JSON.parse)
 * @param path   dotted path of `value` itself ('' at the root)
 */
export function findSecret(value: unknown, path = ''): SecretFinding | undefined {
  const stack: [unknown, string][] = [[value, path]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [current, at] = next;
    if (typeof current === 'string') {
      if (looksLikeSecretValue(current)) return { path: at, reason: 'value' };
      continue;
    }
    const children: [unknown, string][] = [];
    if (Array.isArray(current)) {
      for (const [i, item] of current.entries()) children.push([item, `${at}[${i}]`]);
    } else if (current !== null && typeof current === 'object') {
      for (const [key, item] of Object.entries(current)) {
        const childPath = at ? `${at}.${key}` : key;
        if (isSecretKeyName(key)) return { path: childPath, reason: 'key-name' };
        children.push([item, childPath]);
      }
    }
    // Pushed last first, so the first child is walked next, as the recursive walk did.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return undefined;
}

/**
 * Replace every key-like part of `text` with `***`, keeping the first 3 characters of known formats so the
 * person can tell which key it was (`sk-***`). Used by `config --show`; never throws.
 */
export function maskSecrets(text: string): string {
  let out = text;
  for (const re of KNOWN_KEY_PATTERNS) {
    out = out.replace(new RegExp(re.source, 'g'), (m) => `${m.slice(0, 3)}***`);
  }
  for (const token of opaqueTokens(out)) out = out.split(token).join('***');
  return out;
}
