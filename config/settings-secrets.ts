/**
 * Credential detection for settings files that may be committed (`.clawcode/settings.json`) or shared by
 * accident (`.clawcode/settings.local.json`), and masking for anything clawcode prints about settings.
 * Pure functions over parsed JSON and strings; nothing here reads files.
 */

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

/**
 * A long opaque token: 32+ characters from the base64/base64url/hex alphabet with letters and digits mixed.
 * `/` is allowed because base64 keys contain it; glob patterns and paths are excluded by requiring a digit and
 * a high Shannon entropy (below).
 */
const OPAQUE_TOKEN = /[A-Za-z0-9+/=_-]{32,}/g;

/**
 * Entropy threshold in bits per character. Random base62 text of 32+ characters scores about 4.6-5.0;
 * English words, paths and command lines score about 3-4. The 4.2 cut-off follows the high-entropy string
 * detectors of truffleHog/detect-secrets (base64 limit 4.5) lowered a little for short keys, and stays above
 * 40-character hex digests (at most 4.0 bits).
 */
const ENTROPY_THRESHOLD = 4.2;

/** Shannon entropy of `text` in bits per character (0 for an empty string). */
function shannonEntropy(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

function opaqueTokens(text: string): string[] {
  return [...text.matchAll(OPAQUE_TOKEN)]
    .map((m) => m[0])
    .filter((t) => /[0-9]/.test(t) && /[A-Za-z]/.test(t) && shannonEntropy(t) >= ENTROPY_THRESHOLD);
}

/** True when a key name (any depth of a settings object) names a credential, e.g. `apiKey`, `token`. */
export function isSecretKeyName(name: string): boolean {
  return SECRET_KEY_NAME.test(name.toLowerCase().replace(/[_.\-\s]/g, ''));
}

/**
 * True when a string value contains something that looks like an API key: a known provider/host format
 * (`sk-…`, `gsk_…`, `AIza…`, `ghp_…`, …) or a long high-entropy token (see ENTROPY_THRESHOLD).
 */
export function looksLikeSecretValue(value: string): boolean {
  return KNOWN_KEY_PATTERNS.some((re) => re.test(value)) || opaqueTokens(value).length > 0;
}

/** Where a credential was found in a parsed settings file; `path` is a dotted JSON path like `commands.allow[0]`. */
export type SecretFinding = { path: string; reason: 'key-name' | 'value' };

/**
 * Walk parsed JSON and return the first credential found, or undefined. A key named like a credential counts
 * whatever its value (even empty), because the file is the wrong place for it either way.
 *
 * @param value  any JSON value (as returned by JSON.parse)
 * @param path   dotted path of `value` itself ('' at the root)
 */
export function findSecret(value: unknown, path = ''): SecretFinding | undefined {
  if (typeof value === 'string') return looksLikeSecretValue(value) ? { path, reason: 'value' } : undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findSecret(item, `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const childPath = path ? `${path}.${key}` : key;
      if (isSecretKeyName(key)) return { path: childPath, reason: 'key-name' };
      const found = findSecret(item, childPath);
      if (found) return found;
    }
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
