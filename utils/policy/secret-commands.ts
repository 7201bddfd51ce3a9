/**
 * Credentials in a command's own syntax. Many tools take a password through a short option or a positional
 * argument whose meaning only the tool's documentation gives: `curl -u user:pass`, `mysql -pPASS`, `sshpass -p`,
 * `redis-cli -a`, `docker login -p`, `htpasswd -b file user pass`, `sqlplus user/pass@db`, `openssl -passin
 * pass:…`. These rules follow those documented options, for the tools scripts, Makefiles, CI files, Dockerfiles and
 * READMEs commonly run, wherever the command stands on its line (after `RUN`, `- `, `$ `, `sudo`, a pipe) and across
 * `\` line continuations. The value may be of any strength; a placeholder (`$PASS`, `${PASS}`, `<password>`) is not
 * a password.
 */
import type { Rule } from './secret-own-rules.js';
import { passwordName, weakPassword } from './secret-passwords.js';
import { secretValue } from './secret-values.js';

/** A tool name as a command word: not part of a longer word or path segment (`my-curl`, `/x/curl.d`). */
const TOOL_START = String.raw`(?<![\w./-])`;
/**
 * The rest of one command after its name, up to 1,000 characters: no pipe, `;`, `&` or line end (a `\`
 * continuation goes on), and not past the next command of the same tools, so each character is read from one
 * start only (a line of `curl curl curl …` stays linear).
 */
const args = (tools: string): string => String.raw`(?:(?!(?:${tools})\b)(?:[^\n|;&\\]|\\\r?\n|\\[^\n])){0,1000}?`;
/** One argument value, unquoted or quoted with ' or " (group `q` names the quote). */
const VALUE = String.raw`([^\s"'\x60;|&<>]{1,200})`;

/** A credential value that is a literal (not a placeholder, option, path or name), of any strength. */
function literal(secret: string): boolean {
  return weakPassword(secret, 'quoted') || (/^\d{4,}$/.test(secret) && secret.length <= 64);
}

/**
 * One rule: `tools` (regex alternatives, matched as a command word) given `options` (regex alternatives, case
 * kept: `-p` and `-P` differ) followed by the value in `form`:
 * `attached` (`-pVALUE`), `separate` (`-p VALUE`), `either` (attached, separate or `=`), or `user` with a
 * separator (`-u user:VALUE`, `-U user%VALUE`).
 */
function toolOption(
  tools: string,
  options: string,
  form: 'attached' | 'separate' | 'either' | { user: string },
  keywords: string[],
): Rule {
  const sep = form === 'attached' ? '' : form === 'separate' ? String.raw`[ \t]+` : String.raw`(?:[ \t]+|=)?`;
  const user = typeof form === 'object' ? String.raw`[^\s"'${form.user}]{1,100}${form.user}` : '';
  const re = new RegExp(
    String.raw`${TOOL_START}(?:${tools})(?:\.exe)?[ \t]${args(tools)}(?<![\w-])(?:${options})${sep}(["']?)${user}${VALUE}\1(?=[\s;|&)"'\x60]|$)`,
    'dg',
  );
  return {
    kind: 'command_password',
    re,
    keywords,
    group: 2,
    allow: [],
    multiline: true,
    keep: (secret) => !secret.startsWith('-') && literal(secret),
  };
}

const MYSQL = String.raw`mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mysqlpump|mysqlsh|mariadb(?:-dump|-admin)?`;
const MONGO = String.raw`mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|mongostat|mongotop|mongofiles`;
const LOGIN = String.raw`(?:docker|podman|nerdctl|buildah|skopeo|oras|crane|regctl|helm[ \t]+registry|az|oc|cf|argocd)[ \t]+(?:\S+[ \t]+)?login`;

/** The command rules: the documented password options of common tools, then positional forms. */
export const COMMAND_RULES: Rule[] = [
  toolOption('curl', String.raw`-u|--user|-U|--proxy-user`, { user: ':' }, ['curl']),
  toolOption('lftp', '-u', { user: ',' }, ['lftp']),
  toolOption(String.raw`smbclient|rpcclient|smbget|smbmap|smbcacls|net`, String.raw`-U|--user`, { user: '%' }, [
    'smb',
    'rpcclient',
    'net',
  ]),
  toolOption(MYSQL, '-p', 'attached', ['mysql', 'mariadb']),
  toolOption('sshpass', '-p', 'either', ['sshpass']),
  toolOption('redis-cli', String.raw`-a|--pass`, 'either', ['redis-cli']),
  toolOption(LOGIN, String.raw`-p`, 'either', ['login']),
  toolOption(MONGO, '-p', 'either', ['mongo']),
  toolOption(String.raw`sqlcmd|bcp|osql|isql|mssql-cli`, '-P', 'either', [
    'sqlcmd',
    'bcp',
    'osql',
    'isql',
    'mssql-cli',
  ]),
  toolOption(String.raw`ldap[a-z]+`, '-w', 'either', ['ldap']),
  toolOption(String.raw`zip|unzip|zipcloak`, '-P', 'separate', ['zip']),
  toolOption(String.raw`7z|7za|7zr|rar|unrar`, '-p', 'attached', ['7z', 'rar']),
  toolOption('ssh-keygen', String.raw`-N|-P`, 'separate', ['ssh-keygen']),
  toolOption(String.raw`mosquitto_pub|mosquitto_sub|mosquitto_rr`, '-P', 'either', ['mosquitto']),
  toolOption(String.raw`psexec|paexec`, '-p', 'separate', ['psexec', 'paexec']),
  toolOption('openssl', '-k', 'separate', ['openssl']),
  toolOption(
    'keytool',
    String.raw`-storepass|-keypass|-srcstorepass|-deststorepass|-srckeypass|-destkeypass|-new`,
    'separate',
    ['keytool'],
  ),
  // openssl's password arguments: `-passin pass:…`, `-passout pass:…`, `-pass pass:…` (`env:`/`file:` name a source).
  {
    kind: 'command_password',
    re: /(?<![\w-])-(?:passin|passout|pass|kpass)[ \t]+(["']?)pass:([^\s"'`;|&<>]{1,200})\1/dg,
    keywords: ['pass:'],
    group: 2,
    allow: [],
    keep: (secret) => literal(secret),
  },
  // `htpasswd -b[c…] file user password`, `htpasswd -nb user password`: the last argument, with -b in the flags.
  {
    kind: 'command_password',
    re: /(?<![\w./-])htpasswd((?:[ \t]+-[A-Za-z]+)+)[ \t]+(?:(["']?)[^\s"']+\2[ \t]+)?(["']?)[^\s"']+\3[ \t]+(["']?)([^\s"'`;|&<>]{1,200})\4(?=[\s;|&)]|$)/dg,
    keywords: ['htpasswd'],
    group: 5,
    allow: [],
    keep: (secret, m) => {
      const flags = m[1]!.replace(/[\s-]/g, '');
      // With -n there is no file: user then password; without it, file, user, password (three arguments).
      return /b/.test(flags) && /n/.test(flags) === (m[2] === undefined) && literal(secret);
    },
  },
  // Oracle's `sqlplus user/password@db` (and its other tools): the password between `/` and `@` or the end.
  {
    kind: 'command_password',
    re: /(?<![\w./-])(?:sqlplus|sqlldr|expdp|impdp|exp|imp|rman|dgmgrl)(?:[ \t]+-\w+)*[ \t]+(["']?)[\w$#]{1,60}\/([^\s@"'/]{1,100})(?=@|\1(?:\s|$))/dg,
    keywords: ['sqlplus', 'sqlldr', 'expdp', 'impdp', 'exp', 'imp', 'rman', 'dgmgrl'],
    group: 2,
    allow: [],
    keep: (secret) => literal(secret),
  },
  // `rabbitmqctl add_user user password`, `rabbitmqctl change_password user password`.
  {
    kind: 'command_password',
    re: /(?<![\w./-])rabbitmqctl[ \t]+(?:add_user|change_password)[ \t]+(["']?)[^\s"']+\1[ \t]+(["']?)([^\s"'`;|&<>]{1,200})\2/dg,
    keywords: ['rabbitmqctl'],
    group: 3,
    allow: [],
    keep: (secret) => literal(secret),
  },
  // A literal echoed into a command that reads its password from standard input (`docker login --password-stdin`,
  // `passwd --stdin`, `chpasswd`): the echoed text is the password (`user:password` for chpasswd).
  {
    kind: 'command_password',
    re: /(?<![\w./-])(?:echo|printf)(?:[ \t]+-\w+)*[ \t]+(["']?)([^\s"'`;|&<>]{1,200})\1[ \t]*\|[ \t]*(?:sudo[ \t]+)?(?:[^\n|;&]*?--password-stdin|passwd\b[^\n|;&]*?--stdin|chpasswd)\b/dg,
    keywords: ['password-stdin', 'passwd'],
    group: 2,
    allow: [],
    keep: (secret) => {
      const password = secret.slice(secret.indexOf(':') + 1);
      return literal(password);
    },
  },
  // A setting set by name (`aws configure set aws_secret_access_key …`, `npm config set …`, `git config …`,
  // `dotnet user-secrets set "Key" "…"`, `gh secret set NAME --body …` is an option): a password name takes any
  // literal, another credential name a high-entropy one.
  {
    kind: 'command_password',
    re: /(?<![\w-])(?:(?:config(?:ure)?|secrets?|user-secrets|credentials?)[ \t]+set|git[ \t]+config(?:[ \t]+--\w+)*)[ \t]+(["']?)([A-Za-z_][\w.:/-]{0,80})\1[ \t]+(["']?)([^\s"'`;|&<>]{1,200})\3(?=[\s;|&)]|$)/dg,
    keywords: ['set', 'config'],
    group: 4,
    allow: [],
    keep: (secret, m) => (passwordName(m[2]!) ? literal(secret) : secretValue(secret, m[2]!)),
  },
  // An expect script answering a password prompt: `expect "*assword:*"` then `send "…\r"`.
  {
    kind: 'command_password',
    re: /\bexpect\b[^\n]*(?:assword|passphrase)[^\n]*\r?\n[ \t]*send[ \t]+(?:--[ \t]+)?(["'])((?:(?!\1)[^\\\n]|\\[^rn]){1,200})(?:\\r|\\n)*\1/dg,
    keywords: ['expect'],
    group: 2,
    allow: [],
    multiline: true,
    keep: (secret) => !/^\$|^\[/.test(secret) && literal(secret),
  },
];
