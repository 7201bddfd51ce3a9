import { redactSecrets } from '../policy/secrets.js';

/**
 * The environment a plan or verify command gets: built from an allow-list of the person's variables, so
 * provider keys, tokens, cloud credentials and agent sockets never reach a command, whatever their name.
 * Used with and without the sandbox.
 */

/** Variables passed by name: where tools are, how to print, locale, CI markers, build settings. */
const PASSED = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'FORCE_COLOR',
  'CI',
  'NODE_ENV',
  'NODE_OPTIONS',
  'NODE_PATH',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NVM_DIR',
  'NVM_BIN',
  'NVM_INC',
  'VOLTA_HOME',
  'FNM_DIR',
  'PNPM_HOME',
  'BUN_INSTALL',
  'DENO_DIR',
  'DENO_INSTALL',
  'COREPACK_HOME',
  'GOPATH',
  'GOROOT',
  'GOFLAGS',
  'GOTOOLCHAIN',
  'GOMODCACHE',
  'GOPROXY',
  'CGO_ENABLED',
  'CARGO_HOME',
  'RUSTUP_HOME',
  'RUSTUP_TOOLCHAIN',
  'RUSTFLAGS',
  'PYENV_ROOT',
  'PYENV_VERSION',
  'VIRTUAL_ENV',
  'CONDA_PREFIX',
  'CONDA_DEFAULT_ENV',
  'PYTHONPATH',
  'PYTHONDONTWRITEBYTECODE',
  'PYTHONUTF8',
  'JAVA_HOME',
  'LD_LIBRARY_PATH',
  'PKG_CONFIG_PATH',
  'CC',
  'CXX',
  'CFLAGS',
  'CXXFLAGS',
  'CPPFLAGS',
  'LDFLAGS',
  'MAKEFLAGS',
]);
/** Families passed by prefix (locale categories, npm's own settings). */
const PASSED_PREFIX = /^(LC_|npm_config_)/;
/** Proxy settings, passed only when the command may use the network. */
const PROXY = /^(https?_proxy|no_proxy|all_proxy)$/i;
/** A name that says it holds a credential: dropped even when a family above would pass it. */
export const SECRET_NAME = /KEY|TOKEN|SECRET|PASS(WORD|WD)?|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|SIGNATURE/i;
/**
 * A value carrying credentials in a URL: any userinfo (`https://user:pass@host`, and a token alone,
 * `https://ghp_…@host`, as GOPROXY and registry settings take it).
 */
const URL_USERINFO = /:\/\/[^/\s?#]*@/;

/**
 * The environment of a command, from the person's environment `base`.
 *
 * @param base          usually `process.env`
 * @param allowNetwork  pass proxy settings too (`--allow-network`)
 * @param extra         set last (the sandbox's TMPDIR, cache folder)
 * @returns only allowed variables: by name or family, never one whose name looks like a credential, whose
 *          value holds a URL with userinfo, or in which the redactor (utils/policy/secrets.ts) finds a secret
 */
export function commandEnv(
  base: NodeJS.ProcessEnv,
  allowNetwork: boolean,
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    const allowed = PASSED.has(name) || PASSED_PREFIX.test(name) || (allowNetwork && PROXY.test(name));
    if (!allowed || SECRET_NAME.test(name) || URL_USERINFO.test(value)) continue;
    // The secret rules have the last word on what passes: a token in any shape the redactor knows stays out.
    if (redactSecrets(`${name}=${value}`).redactions.length > 0) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}
