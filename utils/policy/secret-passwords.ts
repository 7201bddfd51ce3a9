/**
 * Passwords of any strength. A password is a secret because of where it stands, not because it looks random:
 * `hunter2` assigned to `DB_PASSWORD`, given to `--password`, written after "the admin password is" or aliased
 * from a YAML anchor into a `password:` key is as secret as a 40-character token. These rules take the slot (a
 * name whose last word is a password word) as the evidence and ask of the value only that it is a literal: not a
 * placeholder, a type, a reference to another name, a path or a label.
 */
import type { Rule } from './secret-own-rules.js';
import { CODE_VALUE, configLine, envPrefix, NOT_LITERAL, PLACEHOLDER, secretValue } from './secret-values.js';

/** The words of a name: `dbPassword` → db, password; `DB_PASSWORD` → db, password; `auth.postgresPassword`. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/**
 * Whether a name's last word (trailing digits dropped) names a password: `password`, `passwd`, `passphrase`,
 * `passcode` or `pwd`, alone or glued to a word before it for the longer ones (`DB_PASSWORD`, `rootPassword`,
 * `postgrespassword`, `password2`), or `pass` after another word (`smtp_pass`, `dbPass`). `password_hash`, `passwordFile`, `bypass` and
 * `minipass` (a word that ends in `pass`) are not.
 *
 * @param name  an assignment's name, a key, or an option name without its dashes
 */
export function passwordName(name: string): boolean {
  const words = wordsOf(name);
  const last = (words[words.length - 1] ?? '').replace(/\d+$/, '');
  // `pass` alone is as often pass/fail (`pass: "passed"`) as a password; `db_pass`, `smtpPass` are passwords.
  if (last === 'pass') return words.length > 1;
  return last === 'pwd' || /(?:password|passwd|passphrase|passcode)$/.test(last);
}

/** Words that make a value a name or a reference (`DB_PASSWORD`, `new-password`, `secret_key`), not a password. */
const CREDENTIAL_WORD = /^(?:password|passwd|passphrase|pass|pwd|secret|secrets|token|key|credential|credentials)$/;
/** Values that are a type, a null or a switch, in the languages and formats these slots occur in. */
const RESERVED =
  /^(?:null|none|nil|undefined|true|false|yes|no|on|off|required|optional|string|str|bytes|text|number|int|integer|bool|boolean|any|unknown|object|void|empty|hidden|redacted|masked|sensitive)$/i;

/**
 * Whether a value in a password slot is a literal password. Not one: fewer than 3 or more than 200 characters, a
 * placeholder or interpolation (`${X}`, `{{ x }}`, `<password>`, `$VAR`, `%VAR%`), a URL, a mask (`****`), a type
 * or a switch (`string`, `null`, `false`), a value made of credential words (`DB_PASSWORD`, `new-password`), a
 * path, a capitalized label (`Password`, `Passwort`, any non-ASCII letter), or code (a member chain; brackets or
 * commas when unquoted).
 *
 * @param value  the value as written, quotes removed
 * @param how    `quoted`: a string literal; `bare`: an unquoted config or command value; `prose`: a word in a
 *               sentence, which must also mix letters with digits or symbols to be told from language
 */
export function weakPassword(value: string, how: 'quoted' | 'bare' | 'prose'): boolean {
  if (value.length < 3 || value.length > 200) return false;
  if (PLACEHOLDER.test(value) || NOT_LITERAL.test(value) || /^[$%]|^[*xX•._?-]+$/.test(value)) return false;
  if (/^[{<[(].*[}>\])]$/.test(value) || RESERVED.test(value) || CODE_VALUE.test(value)) return false;
  // A version or a version range (`^3.1.1`, `npm:^7.0.4`, `1.2.1`): a package named `pbkdf2-password` is no slot.
  if (/^(?:npm:)?[~^<>=v]*\d+(?:\.[\dx*]+)+(?:[-+][\w.]*)?$/.test(value)) return false;
  // A name (`DB_PASSWORD`, `new-password`), not a password that happens to hold the word (`yourStrong(!)Password`).
  if (/^[\w.-]+$/.test(value) && wordsOf(value).some((w) => CREDENTIAL_WORD.test(w))) return false;
  if (/^(?:\.{0,2}\/|~\/|[A-Za-z]:\\)/.test(value) || /^[A-Z][a-z]+$/.test(value) || /[^\x00-\x7f]/.test(value))
    return false;
  if (how === 'quoted') return true;
  if (/[[\](){},;]/.test(value) || /^[A-Z][A-Za-z]+$/.test(value)) return false;
  if (how === 'bare') return true;
  return /[A-Za-z]/.test(value) && /[^A-Za-z]/.test(value) && !/^[A-Za-z]+[.,;:!?]*$/.test(value);
}

/**
 * Whether a value is a credential under `name`: any literal under a password name (weakPassword), a mixed
 * high-entropy literal under another credential name (secretValue).
 */
export function credentialValue(value: string, name: string, how: 'quoted' | 'bare'): boolean {
  return passwordName(name) ? weakPassword(value, how) : secretValue(value, name);
}

const KEYWORDS = ['pass', 'pwd'];
/** The keywords of every credential name: the shell-word rule reads high-entropy values of the others too. */
const ALL_KEYWORDS = ['pass', 'pwd', 'secret', 'token', 'key', 'credential', 'auth', 'private'];

/** `NAME = "value"`, `"name": "value"`, `name: 'value'`, `password="value"` (a keyword argument), in any line. */
const QUOTED_PASSWORD: Rule = {
  kind: 'password_assignment',
  re: /(?<![\w$.@/-])([A-Za-z_$][\w$.-]{0,60})["']?[ \t]*(?::=|=>|=|:)[ \t]*(["'`])(?=([^\s"'`\\]{3,200}))\3\2/dg,
  keywords: KEYWORDS,
  group: 3,
  allow: [],
  keep: (secret, m) => passwordName(m[1]!) && weakPassword(secret, 'quoted'),
};

/**
 * An unquoted value on a whole config line (`.env`, YAML, INI, Makefile `:=` `?=`, Dockerfile `ENV`/`ARG`,
 * `export`, a commented-out line `# password: hunter2`) or an environment prefix before a command.
 */
const BARE_PASSWORD: Rule = {
  kind: 'password_assignment',
  re: /(?<![\w$.@/-])([A-Za-z_$][\w$.-]{0,60})["']?[ \t]*(?:[:?+!]?=|::=|:)[ \t]*(?=([^\s"'`#]{3,200}))\2(?![^\s"'`#])/dg,
  keywords: KEYWORDS,
  group: 2,
  allow: [],
  keep: (secret, m) =>
    passwordName(m[1]!) && (configLine(m) || envPrefix(m)) && secret !== m[1] && weakPassword(secret, 'bare'),
};

/**
 * `NAME=value` as one shell word inside a command: `docker run -e POSTGRES_PASSWORD=…`, `java -Da.password=…`,
 * `helm --set auth.postgresPassword=…`, `--from-literal=password=…`, `mount -o user=u,password=…`, an `.npmrc`
 * line `//host/:_authToken=…`. No blank around `=`, a blank, `,`, `=`, `:` or line start before the name (a query
 * string's `&password=` is not one), a blank or the line's end after the value. A password name takes any
 * literal; another credential name (`_authToken`, `API_KEY`) a high-entropy one.
 */
const WORD_PASSWORD: Rule = {
  kind: 'password_assignment',
  re: /(?:(?<=^|[\s,=:])|(?<=-D))([A-Za-z_][\w.-]{0,60})=(["']?)(?=([^\s"'`;|&<>(){}[\],]{3,200}))\3\2(?=[\s"'`]|$)/dgm,
  keywords: ALL_KEYWORDS,
  group: 3,
  allow: [],
  keep: (secret, m) =>
    passwordName(m[1]!)
      ? weakPassword(secret, m[2] === '' ? 'bare' : 'quoted')
      : !secret.startsWith('=') && !CODE_VALUE.test(secret) && secretValue(secret, m[1]!),
};

/** `ENV NAME value` (Dockerfile), `setenv NAME value` (csh), `SetEnv NAME value` (Apache): a blank for the `=`. */
const DIRECTIVE_PASSWORD: Rule = {
  kind: 'password_assignment',
  re: /^[ \t]*(?:ENV|setenv|SetEnv|SetEnvIf)[ \t]+([A-Za-z_][\w.-]{0,60})[ \t]+(["']?)([^\s"'`]{3,200})\2[ \t]*$/dgm,
  keywords: KEYWORDS,
  group: 3,
  allow: [],
  keep: (secret, m) => passwordName(m[1]!) && weakPassword(secret, m[2] === '' ? 'bare' : 'quoted'),
};

/**
 * A command option named as a password with its value: `--password=…`, `--password …`, `--db-password …`,
 * `--passphrase …`, `-password …` (a one-dash long option of four letters or more). Not `--password-file` or
 * `--password-stdin` (their last word is not a password word), not a value that starts with `-`. An unquoted value
 * after a blank must mix letters with digits or symbols, as in prose: the option may be named in a sentence.
 */
const OPTION_PASSWORD: Rule = {
  kind: 'password_option',
  re: /(?<![\w-])(--?)([A-Za-z][\w-]{1,40})(?:=|[ \t]+)(["']?)(?!-)(?=([^\s"'`;|&<>]{3,200}))\4\3(?=[\s;|&<>"'`]|$)/dg,
  keywords: KEYWORDS,
  group: 4,
  allow: [],
  keep: (secret, m) =>
    (m[1] === '--' || m[2]!.length >= 4) &&
    passwordName(m[2]!) &&
    !secret.startsWith('-') &&
    !/^\w+=/.test(secret) &&
    // Unquoted after a blank, a plain word may be the sentence going on (`use --password via stdin`).
    weakPassword(secret, m[3] !== '' ? 'quoted' : m[0].includes('=') ? 'bare' : 'prose'),
};

/**
 * A password stated in a sentence or a comment: `the admin password is hunter2`, "password for root was
 * `changeme`". Unquoted, the word must mix letters with digits or symbols: "the password is required" is language.
 */
const PROSE_PASSWORD: Rule = {
  kind: 'password_assignment',
  re: /\b(pass(?:word|wd|phrase))s?(?:[ \t]+(?:for|of|to)[ \t]+[\w.@-]{1,40})?[ \t]+(?:is|was)(?:[ \t]+(?:set[ \t]+to|now))?[ \t]*:?[ \t]+(["'`]?)([^\s"'`]{3,100})\2/dgi,
  keywords: ['pass'],
  group: 3,
  allow: [],
  keep: (secret, m) => {
    if (m[2] !== '') return weakPassword(secret, 'quoted');
    // The sentence's own punctuation after the word is not part of the password (it is redacted with it).
    return weakPassword(secret.replace(/[.,;:!?)]+$/, ''), 'prose');
  },
};

/**
 * `password: hunter2` in the middle of a sentence (`log in as admin, password: hunter2 and …`): the word after the
 * colon must mix letters with digits or symbols and end the sentence or be followed by more words, not by code
 * punctuation (`{ password: pw2 }`).
 */
const PROSE_COLON_PASSWORD: Rule = {
  kind: 'password_assignment',
  re: /\b(pass(?:word|wd|phrase))\b[ \t]*:[ \t]+([^\s"'`,;(){}[\]]{3,100})(?=[ \t]*$|[.!?]?[ \t]+[A-Za-z(]|[.!?](?:\s|$))/dgim,
  keywords: ['pass'],
  group: 2,
  allow: [],
  keep: (secret) => weakPassword(secret.replace(/[.!?]+$/, ''), 'prose'),
};

/** SQL: `CREATE ROLE app LOGIN PASSWORD 'hunter2'`, `IDENTIFIED BY 'hunter2'`, `WITH PASSWORD = 'hunter2'`. */
const SQL_PASSWORD: Rule = {
  kind: 'password_assignment',
  re: /\b(?:password|identified[ \t]+by)(?:[ \t]+|[ \t]*=[ \t]*)(['"])([^\s'"\\]{1,200})\1/dgi,
  keywords: ['pass', 'identified'],
  group: 2,
  allow: [],
  keep: (secret) => weakPassword(secret, 'quoted'),
};

/** A `.netrc` line, in a README or a script: `machine host login user password value`. */
const NETRC_PASSWORD: Rule = {
  kind: 'password_assignment',
  re: /\bmachine[ \t]+\S+[ \t]+login[ \t]+\S+[ \t]+password[ \t]+([^\s\\"'`]{1,200})/dg,
  keywords: ['machine'],
  group: 1,
  allow: [],
  keep: (secret) => weakPassword(secret, 'quoted'),
};

/**
 * A `.pgpass` line (`host:port:database:user:password`, `*` for any field but the password), in a README or a
 * script that writes one: five fields, the second a port.
 */
const PGPASS_PASSWORD: Rule = {
  kind: 'password_assignment',
  re: /^[ \t]*(?:echo[ \t]+["']?)?[\w.*-]{1,100}:(?:\d{1,5}|\*):[\w.*-]{1,100}:[\w.*@-]{1,100}:([^\s:"'`]{1,200})["']?(?=[ \t]*(?:>|$))/dgm,
  keywords: [],
  group: 1,
  allow: [],
  keep: (secret) => weakPassword(secret, 'quoted'),
};

let lastAliases: { text: string; names: Map<string, string[]> } | undefined;

/** The keys that take each YAML alias in `text` (`password: *pw` → pw → [password]), found once per text. */
function aliasNames(text: string): Map<string, string[]> {
  if (lastAliases?.text === text) return lastAliases.names;
  const names = new Map<string, string[]>();
  for (const use of text.matchAll(/([\w.-]{1,60})["']?[ \t]*:[ \t]*\*([\w-]{1,60})(?![\w-])/g)) {
    const list = names.get(use[2]!);
    if (list) list.push(use[1]!);
    else names.set(use[2]!, [use[1]!]);
  }
  lastAliases = { text, names };
  return names;
}

/**
 * A YAML anchor's value that a credential-named key takes by alias (`base: &pw hunter2` … `password: *pw`): the
 * value is assigned to that key as much as if it were written there.
 */
const ANCHORED_SECRET: Rule = {
  kind: 'password_assignment',
  re: /^[ \t]*(?:-[ \t]+)?[\w.-]+[ \t]*:[ \t]*&([\w-]{1,60})[ \t]+(["']?)([^\s"'`#]{3,200})\2[ \t]*(?:#.*)?$/dgm,
  keywords: [': &'],
  group: 3,
  allow: [],
  multiline: true,
  keep: (secret, m) =>
    (aliasNames(m.input).get(m[1]!) ?? []).some((name) =>
      passwordName(name) ? weakPassword(secret, m[2] === '' ? 'bare' : 'quoted') : secretValue(secret, name),
    ),
};

/*
 * The value groups above are read as `(?=(X{3,200}))\N`: a lookahead takes the longest run and the back-reference
 * consumes it, so a value that is not followed by its terminator fails at once instead of being retried at every
 * shorter length (a 1 MB line of `password=password=…` took 0.4 s per rule).
 */

/** The password rules, run after the own rules of secret-own-rules.ts (their kinds win overlaps). */
export const PASSWORD_RULES: Rule[] = [
  QUOTED_PASSWORD,
  BARE_PASSWORD,
  WORD_PASSWORD,
  DIRECTIVE_PASSWORD,
  OPTION_PASSWORD,
  PROSE_PASSWORD,
  PROSE_COLON_PASSWORD,
  SQL_PASSWORD,
  NETRC_PASSWORD,
  PGPASS_PASSWORD,
  ANCHORED_SECRET,
];
