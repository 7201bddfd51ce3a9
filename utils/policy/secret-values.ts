/**
 * What makes a value a credential, for the own secret rules (secret-own-rules.ts) and the redactor: a name that
 * holds a credential word, a literal (not a placeholder, an interpolation or code) that is mixed and high in
 * entropy, and the line shapes a `NAME=value` assignment takes.
 */

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
/**
 * Whether a name holds the word `pass`, the usual short name of a password (`MYSQL_PASS`, `smtpPass`,
 * `db.pass`), as a word of its own: `bypass`, `compass`, `passage` do not.
 */
function hasPassWord(name: string): boolean {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .includes('pass');
}
/** Names that contain a hint word but hold no credential. */
const NOT_SECRET_NAME =
  /key[_-]?(?:board|word|code|s?name|path|file|id|length|size|up|down|press)|tokens?[_-]?(?:izer|count|len|type)|author|public/i;
/** Template placeholders are not values: `${X}`, `{{ x }}`, `<password>`, `$VAR`, `%VAR%`. */
export const PLACEHOLDER = /^(?:\$\{.*\}|\{\{.*\}\}|<.*>|\$[A-Za-z_]\w*|%\w+%)$/;
/** A value built from something else (an interpolation, a URL) rather than a literal credential. */
export const NOT_LITERAL = /\$\{|\{\{|\$\(|%\(|<%|:\/\//;
/** An unquoted value that is code, not a literal: a member chain (`settings.SECRET_KEY2`). */
export const CODE_VALUE = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/;

/**
 * What may stand before the name on a config line: indentation, a comment leader (a line commented out is still
 * the line: `# DB_PASSWORD=…`, `// api_key: …`, `-- password = …`, `<!-- … -->`), and a declaration keyword
 * (`export`, `set`, `readonly`, `declare -x`, Dockerfile `ENV`/`ARG`) or a YAML list dash.
 */
const CONFIG_HEAD =
  /^[ \t]*(?:(?:#+|\/\/+|--|;+|\/?\*+|<!--|REM|rem)[ \t]*)?(?:(?:export|set|readonly|local|ENV|ARG|(?:declare|typeset)(?:[ \t]+-\w+)*)[ \t]+|-[ \t]+)?["']?$/;

/**
 * Whether a match is a whole `NAME=value` / `name: value` line (maybe indented, commented out, after `export `,
 * `ENV ` or `- `, before a `# comment` or the end of a block comment). Looks only at the few characters around the
 * match, so a minified one-line file with thousands of `key:` in it costs no more than a short one.
 */
export function configLine(m: RegExpExecArray): boolean {
  const head = m.input.slice(Math.max(0, m.index - 80), m.index);
  const nl = head.lastIndexOf('\n');
  if (nl === -1 && m.index > 80) return false;
  if (!CONFIG_HEAD.test(head.slice(nl + 1))) return false;
  let at = m.index + m[0].length;
  while (m.input[at] === ' ' || m.input[at] === '\t') at++;
  const next = m.input[at];
  if (next === undefined || next === '\n' || next === '\r' || next === '#') return true;
  return m.input.startsWith('*/', at) || m.input.startsWith('-->', at);
}

/**
 * Whether a match is a shell environment assignment before a command (`PGPASSWORD=… psql`, `export` or `env`
 * before it too): an upper-case name, `=` with no blank around it, at the start of a line, then a blank.
 */
export function envPrefix(m: RegExpExecArray): boolean {
  if (!/^[A-Z_][A-Z0-9_]*=[^\s]+$/.test(m[0])) return false;
  const head = m.input.slice(Math.max(0, m.index - 80), m.index);
  const nl = head.lastIndexOf('\n');
  if (nl === -1 && m.index > 80) return false;
  if (!/^[ \t]*(?:(?:export|env)[ \t]+)?(?:[A-Z_][A-Z0-9_]*=\S*[ \t]+)*$/.test(head.slice(nl + 1))) return false;
  const next = m.input[m.index + m[0].length];
  return next === ' ' || next === '\t';
}

/** A value assigned to a credential-like name that looks like a credential: mixed, high-entropy, literal. */
export function secretValue(secret: string, name: string): boolean {
  if (!(SECRET_NAME.test(name) || hasPassWord(name)) || NOT_SECRET_NAME.test(name)) return false;
  if (PLACEHOLDER.test(secret) || NOT_LITERAL.test(secret)) return false;
  return /[0-9]/.test(secret) && /[A-Za-z]/.test(secret) && shannonEntropy(secret) >= 3.5;
}

/**
 * Where a file that holds nothing but one value holds it, when that value is a credential by its file's name: a
 * file is a value assigned to its name (`.vault-token`, a compose secret `secrets/db_password.txt`), so the name
 * and value tests of a `NAME=value` line apply to it.
 *
 * @param text  the whole text of the file
 * @param path  its project-relative path (`/` separators)
 * @returns the value's [start, end) offsets in `text`, or undefined
 */
export function fileNamedSecret(text: string, path: string): [number, number] | undefined {
  const m = /^\s*(\S+)\s*$/d.exec(text);
  const span = m?.indices?.[1];
  // A value, not minified code or data on one line (`credentials.js.map` is one line with no blank in it).
  if (!m || !span || m[1]!.length > 512 || /[{}[\]()<>"'`,;]/.test(m[1]!)) return undefined;
  return secretValue(m[1]!, path.slice(path.lastIndexOf('/') + 1)) ? [span[0], span[1]] : undefined;
}

/** The line of a match, found by looking at most 400 characters either side (minified files are one line). */
export function lineOf(m: RegExpExecArray): string {
  const from = Math.max(0, m.index - 400);
  const head = m.input.slice(from, m.index);
  const tail = m.input.slice(m.index, m.index + 400);
  return head.slice(head.lastIndexOf('\n') + 1) + tail.slice(0, (tail.indexOf('\n') + 1 || tail.length + 1) - 1);
}
