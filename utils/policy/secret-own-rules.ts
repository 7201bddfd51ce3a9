/**
 * clawcode's own secret rules, run beside the vendored gitleaks set (secret-rules.ts): issuer formats we must
 * never miss, and rules by structure for what gitleaks leaves to its generic rule. Each rule names a shape, not
 * a case: key material by what its bytes decode to, any printable high-entropy value assigned to a secret-like
 * name, the password field of a connection string, the credentials of an HTTP Basic header.
 */
import type { ScannedRule } from './secret-scan.js';
import { credentialValue, passwordName } from './secret-passwords.js';
import {
  CODE_VALUE,
  configLine,
  envPrefix,
  lineOf,
  NOT_LITERAL,
  PLACEHOLDER,
  secretValue,
  shannonEntropy,
} from './secret-values.js';

/** A compiled gitleaks allow-list: a finding it matches is not a secret. */
export interface CompiledAllow {
  regexes: RegExp[];
  target: 'secret' | 'match' | 'line';
  stopwords: string[];
}

/** One compiled rule, of either set. */
export interface Rule extends ScannedRule {
  kind: string;
  re: RegExp;
  /** group holding the secret (0 = whole match); undefined = first non-empty group, else 0 */
  group?: number;
  entropy?: number;
  allow: CompiledAllow[];
  /** extra test on the secret (own rules) */
  keep?: (secret: string, match: RegExpExecArray) => boolean;
}

/** A hyphenated header name one of whose parts ends in a credential word (`X-Api-Key`, `X-Octopus-ApiKey`, `Private-Token`). */
const CREDENTIAL_HEADER = /(?:^|-)[A-Za-z0-9]*(?:key|token|secret|password|passwd|pwd|credentials?)(?:-|$)/i;

/**
 * Whether base64 text decodes to private key material: a DER private key (PKCS#8, PKCS#1, SEC1, PKCS#12 or an
 * encrypted PKCS#8 key: a SEQUENCE opening with a one-byte version 0, 1 or 3, or with a PBE algorithm), a PEM
 * private key encoded once more (kubeconfig `client-key-data`), or an OpenSSH private key. Certificates and
 * public keys decode to other structures and are left alone. Only the first bytes are decoded.
 */
function isKeyMaterial(base64: string): boolean {
  const head = base64.replace(/\\[nr]|\s/g, '').slice(0, 96);
  const bytes = Buffer.from(head.slice(0, head.length - (head.length % 4)), 'base64');
  const text = bytes.toString('latin1');
  if (text.startsWith('-----BEGIN ')) return /^-----BEGIN [A-Z0-9 ]*PRIVATE KEY/.test(text);
  if (text.startsWith('openssh-key-v1\0')) return true;
  if (bytes[0] !== 0x30) return false;
  const after = (at: number): number => {
    const len = bytes[at] ?? 0xff;
    return len < 0x80 ? at + 1 : len <= 0x82 ? at + 1 + (len & 0x7f) : -1;
  };
  const body = after(1);
  if (body < 0) return false;
  if (bytes[body] === 0x02 && bytes[body + 1] === 0x01 && [0, 1, 3].includes(bytes[body + 2] ?? -1))
    return [0x30, 0x02, 0x04].includes(bytes[body + 3] ?? -1);
  if (bytes[body] !== 0x30) return false;
  // EncryptedPrivateKeyInfo: the algorithm is a PKCS#5 (PBES2) or PKCS#12 password-based scheme.
  const oid = after(body + 1);
  return (
    oid > 0 &&
    bytes[oid] === 0x06 &&
    bytes.subarray(oid + 2, oid + 9).toString('hex') === '2a864886f70d01' &&
    [0x05, 0x0c].includes(bytes[oid + 9] ?? -1)
  );
}

/** A Basic credential: base64 of `user:password`, printable. */
function basicCredential(secret: string): boolean {
  const decoded = Buffer.from(secret, 'base64').toString('utf8');
  return /^[^\s:]{1,200}:[^\s]{1,200}$/.test(decoded) && !/[\u0000-\u001f\u007f\ufffd]/.test(decoded);
}

/** Keys of a connection string other than its password: the match sits in a connection string, not prose. */
const CONNECTION_KEY =
  /(?:^|[;"'\s?&])(?:server|host|hostname|data source|address|addr|user id|uid|user|username|database|dbname|initial catalog|port|dsn)[ \t]*=/i;

function literalPassword(secret: string): boolean {
  // A placeholder (`{password}` of a C# interpolation too) or a mask is not a password.
  return !PLACEHOLDER.test(secret) && !NOT_LITERAL.test(secret) && !/^\{[\w.]+\}$|^[*xX.]+$/.test(secret);
}

/** `Password=…` inside a `Key=Value;` string that also names a server, user or database. */
function connectionPassword(secret: string, m: RegExpExecArray): boolean {
  const line = lineOf(m);
  return literalPassword(secret) && line.includes(';') && CONNECTION_KEY.test(line);
}

/** `&password=…` in the query of a URL (`jdbc:mysql://db/app?user=u&password=…`); a form body in a test is not one. */
function queryPassword(secret: string, m: RegExpExecArray): boolean {
  return literalPassword(secret) && /:\/\/|jdbc:/i.test(lineOf(m));
}

// A private key block as PEM text.
const PEM_KEY: Rule = {
  kind: 'private_key',
  re: /-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/dg,
  keywords: ['-----begin'],
  group: 0,
  allow: [],
  multiline: true,
};

// Private key material as base64 without the PEM frame: one line (`private_key: MIIEv…`), a YAML block, or a
// JSON string with `\n` escapes. DER structures start with `M` in base64 (0x30); the others by their prefix.
const KEY_MATERIAL: Rule = {
  kind: 'private_key',
  re: /(?<![A-Za-z0-9+/_-])(?:M[A-Za-z0-9+/]{39,}|LS0tLS1CRUdJTi[A-Za-z0-9+/]{26,}|b3BlbnNzaC1rZXktdjE[A-Za-z0-9+/]{21,})={0,2}(?:(?:\r?\n[ \t]*|\\n)[A-Za-z0-9+/]{8,}={0,2})*/dg,
  keywords: [],
  group: 0,
  allow: [],
  multiline: true,
  keep: (secret) => isKeyMaterial(secret),
};

// A high-entropy value assigned to a credential-like name: `API_SECRET=…`, `token: "…"`, `"password": "…"`.
// Quoted: any printable characters but blanks and quotes (`$&();!#` included), of any length.
const QUOTED_ASSIGNMENT: Rule = {
  kind: 'secret_assignment',
  re: /(?<![\w$.@/-])([A-Za-z_$][\w$.-]{0,60})["']?[ \t]*(?::=|=>|=|:)[ \t]*(["'`])([^\s"'`\\]{12,})\2/dg,
  keywords: ['secret', 'token', 'pass', 'pwd', 'key', 'credential', 'auth', 'private'],
  group: 3,
  allow: [],
  keep: (secret, m) => secretValue(secret, m[1] ?? ''),
};

// Unquoted, only a whole config line counts (`.env`, YAML, INI, shell), and no code punctuation (brackets,
// commas, semicolons, quotes): in code an unquoted value is an expression (`key = list(keys)[0]`), and code
// quotes its literal secrets.
const CONFIG_ASSIGNMENT: Rule = {
  kind: 'secret_assignment',
  re: /(?<![\w$.@/-])([A-Za-z_$][\w$.-]{0,60})["']?[ \t]*[=:][ \t]*([\w+/=.~!@#%^*$&?-]{12,})(?![\w+/=.~!@#%^*$&?-])/dg,
  keywords: QUOTED_ASSIGNMENT.keywords,
  group: 2,
  allow: [],
  keep: (secret, m) => (configLine(m) || envPrefix(m)) && !CODE_VALUE.test(secret) && secretValue(secret, m[1] ?? ''),
};

/** The own rules, in the order their kinds win when findings overlap. */
export const OWN_RULES: Rule[] = [
  PEM_KEY,
  KEY_MATERIAL,
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
  // The password of `scheme://user:password@host` (database URLs, git remotes, proxies), the user left empty too.
  {
    kind: 'url_password',
    re: /\b[a-z][a-z0-9+.-]{1,30}:\/\/[^\s:/?#@'"`<>]{0,100}:([^\s/?#@'"`]{1,200})@/dgi,
    keywords: ['://'],
    group: 1,
    allow: [],
    keep: (secret) => !PLACEHOLDER.test(secret),
  },
  // The password field of a connection string (`Server=…;User ID=…;Password=…;`) or of a URL query
  // (`jdbc:mysql://db/app?user=…&password=…`), of any strength: a key–value string with a server or user beside
  // it. In a connection string `&` is part of the value; in a query it ends it.
  {
    kind: 'connection_string_password',
    re: /(?<![\w?&-])(?:password|passwd|pwd)[ \t]*=[ \t]*([^;'"`\s]{1,200})/dgi,
    keywords: ['password', 'passwd', 'pwd'],
    group: 1,
    allow: [],
    keep: connectionPassword,
  },
  {
    kind: 'connection_string_password',
    re: /[?&](?:password|passwd|pwd)=([^&;#'"`\s]{1,200})/dgi,
    keywords: ['password', 'passwd', 'pwd'],
    group: 1,
    allow: [],
    keep: queryPassword,
  },
  // `Authorization: Basic <base64 of user:password>`, and a high-entropy bearer token.
  {
    kind: 'basic_auth',
    re: /\bbasic[ \t]+([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/dgi,
    keywords: ['basic'],
    group: 1,
    allow: [],
    keep: basicCredential,
  },
  {
    kind: 'bearer_token',
    re: /\bbearer[ \t]+([A-Za-z0-9._~+/-]{20,}=*)/dgi,
    keywords: ['bearer'],
    group: 1,
    allow: [],
    keep: (secret) => secretValue(secret, 'token'),
  },
  // A token given as the whole user part of a URL (`https://<token>@github.com/org/repo.git`): a user name
  // is a word, not a long high-entropy run of letters and digits.
  {
    kind: 'url_token',
    re: /\b[a-z][a-z0-9+.-]{1,30}:\/\/([A-Za-z0-9_-]{20,200})@/dgi,
    keywords: ['://'],
    group: 1,
    allow: [],
    keep: (secret) => secretValue(secret, 'token'),
  },
  // A query parameter of a URL named as a credential (`?api_key=…`, `&access_token=…`, `?client_secret=…`).
  {
    kind: 'url_query_credential',
    re: /[?&;]([A-Za-z_][\w.-]{0,60})=([^&#;\s'"`<>]{8,300})/dg,
    keywords: QUOTED_ASSIGNMENT.keywords,
    group: 2,
    allow: [],
    keep: (secret, m) => /:\/\//.test(lineOf(m)) && secretValue(secret, m[1] ?? ''),
  },
  // An HTTP header carrying a credential: `Authorization` under any scheme (`token …`, `Digest …`), and a
  // header whose hyphenated name is a credential's (`X-Api-Key`, `Private-Token`, `X-Vault-Token`), also
  // inside one quoted string of a command (`curl -H "X-Api-Key: …"`); the name is not quoted on its own and
  // the value ends at a quote or a blank, so an object key with code after it (`'x-api-key': apiKey2`) is not one.
  {
    kind: 'header_credential',
    re: /(?<![\w-])(authorization|[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+)[ \t]*:[ \t]*(?:[A-Za-z]+[ \t]+)?([A-Za-z0-9._~+/=-]{12,})(?=["'`\s]|$)/dgi,
    keywords: ['auth', 'token', 'key', 'secret', 'pass', 'credential', 'private'],
    group: 2,
    allow: [],
    keep: (secret, m) =>
      (/^authorization$/i.test(m[1]!) || CREDENTIAL_HEADER.test(m[1]!)) &&
      secretValue(secret, /^authorization$/i.test(m[1]!) ? 'token' : m[1]!),
  },
  // A long command-line option named as a credential with its value (`--password=…`, `--token …`), not a path.
  {
    kind: 'option_credential',
    re: /(?<![\w-])--([A-Za-z][\w-]{1,40})(?:=|[ \t]+)["']?([^\s"'`;|&<>]{12,300})/dg,
    keywords: QUOTED_ASSIGNMENT.keywords,
    group: 2,
    allow: [],
    keep: (secret, m) => !/^(?:-|[.~]?\/)/.test(secret) && secretValue(secret, m[1]!),
  },
  // A credential's name and its value kept apart by syntax rather than `=` (a password name takes a value of any
  // strength, secret-passwords.ts; another credential name a high-entropy one): a call's first two string arguments
  // (`define('DB_PASSWORD', '…')`, `os.getenv("API_KEY", "…")`), a name/key beside a value
  // (`- name: DB_PASSWORD` then `value: …` in a Kubernetes env list, `<add key="ApiKey" value="…" />`,
  // `{"name": "TOKEN", "value": "…"}`), an XML element (`<password>…</password>`), and a literal fallback after
  // `||`, `??` or `or` in what is assigned to the name (`jwtSecret = process.env.JWT || '…'`).
  {
    kind: 'secret_assignment',
    re: /\(\s*(["'])([A-Za-z_][\w.-]{0,60})\1\s*,\s*(["'`])([^\s"'`\\,]{3,300})\3/dg,
    keywords: QUOTED_ASSIGNMENT.keywords,
    group: 4,
    allow: [],
    // A name is written as one (`DB_PASSWORD`, `db.password`); a lone lowercase word is the value itself
    // (`scrypt('password', 'salt')`, `bcrypt.hash('password', 10)`).
    keep: (secret, m) => (/[A-Z_.-]/.test(m[2]!) || !passwordName(m[2]!)) && credentialValue(secret, m[2]!, 'quoted'),
  },
  {
    kind: 'secret_assignment',
    re: /(?<![\w-])(?:name|key)["']?[ \t]*[:=][ \t]*(["']?)([A-Za-z_][\w.-]{0,60})\1[ \t,;]*(?:\r?\n[ \t-]*)?["']?value["']?[ \t]*[:=][ \t]*(["']?)([^\s"'`\\,;}]{3,300})\3/dgi,
    keywords: QUOTED_ASSIGNMENT.keywords,
    group: 4,
    allow: [],
    multiline: true,
    // Code (`key: Key, value: Json7Type[T]`) quotes neither and keeps both on one line; YAML puts them on two.
    keep: (secret, m) =>
      (m[1] !== '' || m[3] !== '' || m[0].includes('\n')) &&
      !/[[\](){}<>]/.test(secret) &&
      !CODE_VALUE.test(secret) &&
      credentialValue(secret, m[2]!, m[3] === '' ? 'bare' : 'quoted'),
  },
  {
    kind: 'secret_assignment',
    re: /<([A-Za-z_][\w.-]{0,60})>([^<\s]{3,300})<\/\1>/dg,
    keywords: QUOTED_ASSIGNMENT.keywords,
    group: 2,
    allow: [],
    keep: (secret, m) => credentialValue(secret, m[1]!, 'quoted'),
  },
  {
    kind: 'secret_assignment',
    re: /(?<![\w$.@/-])([A-Za-z_$][\w$.-]{0,60})["']?[ \t]*(?::=|=|:)[ \t]*[^\n'"`]{1,100}?(?:\|\||\?\?|[ \t]or[ \t])[ \t]*(["'`])([^\s"'`\\]{3,300})\2/dg,
    keywords: QUOTED_ASSIGNMENT.keywords,
    group: 3,
    allow: [],
    keep: (secret, m) => credentialValue(secret, m[1]!, 'quoted'),
  },
  // A YAML key whose value is on the next, deeper line (`password:` or `password: |` then the value alone).
  {
    kind: 'secret_assignment',
    re: /^([ \t]*)([A-Za-z_][\w.-]{0,60}):[ \t]*(?:[|>][-+]?)?[ \t]*\r?\n\1[ \t]+([^\s#'"]{3,300})[ \t]*(?=\r?\n|$)/dgm,
    keywords: QUOTED_ASSIGNMENT.keywords,
    group: 3,
    allow: [],
    keep: (secret, m) => !secret.endsWith(':') && credentialValue(secret, m[2]!, 'bare'),
  },
  QUOTED_ASSIGNMENT,
  CONFIG_ASSIGNMENT,
];
