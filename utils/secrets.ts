/**
 * Secrets are never sent to a provider (DESIGN.md "Invariants"). Two guards: secret *files* are never
 * candidates for context, and secret-looking *strings* inside files that are sent are replaced by a
 * `[REDACTED:<kind>]` marker. Patterns follow the public formats of each issuer (AWS access key ids,
 * GitHub token prefixes, OpenAI `sk-` keys, PEM private key blocks) as also used by gitleaks' defaults.
 */

/** Which files are secrets is the path policy's decision (one rule for context, plans and the journal). */
export { isSecretPath } from './path-policy.js';

interface SecretPattern {
  kind: string;
  re: RegExp;
}

const SECRET_PATTERNS: SecretPattern[] = [
  { kind: 'private_key', re: /-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/g },
  { kind: 'aws_access_key', re: /\b(AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g },
  { kind: 'github_token', re: /\b(gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g },
  { kind: 'openai_key', re: /\bsk-(proj-|svcacct-|admin-)?(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Z])[A-Za-z0-9_-]{20,}\b/g },
  { kind: 'anthropic_key', re: /\bsk-ant-[A-Za-z0-9_-]{20,}\b/g },
  { kind: 'slack_token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g },
  { kind: 'google_api_key', re: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { kind: 'stripe_key', re: /\b(sk|rk)_live_[0-9A-Za-z]{16,}\b/g },
  { kind: 'groq_key', re: /\bgsk_[A-Za-z0-9]{40,}\b/g },
];

/** One kind of secret found in a text and how many times it was replaced. */
export interface Redaction {
  kind: string;
  count: number;
}

/**
 * Replace secret-looking strings with `[REDACTED:<kind>]`. Line structure is preserved (a multi-line
 * private key block keeps its line count) so line numbers of the rest of the text stay true.
 *
 * @returns the redacted text and one entry per kind found (empty when nothing was found)
 */
export function redactSecrets(text: string): { text: string; redactions: Redaction[] } {
  const redactions: Redaction[] = [];
  let out = text;
  for (const { kind, re } of SECRET_PATTERNS) {
    re.lastIndex = 0;
    if (!re.test(out)) continue;
    let count = 0;
    re.lastIndex = 0;
    out = out.replace(re, (match) => {
      count++;
      const newlines = match.split('\n').length - 1;
      return `[REDACTED:${kind}]` + '\n'.repeat(newlines);
    });
    redactions.push({ kind, count });
  }
  return { text: out, redactions };
}
