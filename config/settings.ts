import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError, IoError, UsageError } from '../utils/errors.js';
import { DEFAULT_BUDGET_CHARS, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS } from '../utils/defaults.js';
import { clawcodeHome } from './paths.js';
import { locateJsonError } from './settings-json.js';
import { findSecret } from './settings-secrets.js';
import { applyProjectTrust, hashProjectSettings, readTrustStore, type UntrustedSettings } from './trust.js';
import { LOCAL_SETTINGS_FILE, PROJECT_SETTINGS_FILE, readProjectSettingsText } from './settings-file.js';

/**
 * The merged settings clawcode runs with. Scalars come from the highest layer that sets them; `ignore`,
 * `commands.allow` and `commands.deny` are concatenated from every layer, lowest first, without duplicates.
 */
export type SettingsValues = {
  /** Provider name or config.json entry to use; undefined = let resolveProviderConfig choose. */
  provider?: string;
  /** Model id (Azure: deployment name); undefined = the provider entry's default. */
  model?: string;
  /** Context budget in characters (not tokens). Default 18000. */
  budgetChars: number;
  /** Provider request timeout in milliseconds. Default 120000. */
  timeoutMs: number;
  /** Extra ignore patterns (gitignore syntax) added to the scanner's own. */
  ignore: string[];
  /** Command run after applying a plan to check it (e.g. `npm test`); undefined = none. */
  verifyCommand?: string;
  /** Command rules: prefixes such as `npm test` or `npm run *` (applied by utils/shell/approval.ts). */
  commands: { allow: string[]; deny: string[] };
  /** Commit applied edits to git automatically. Default false. */
  autoCommit: boolean;
  /** Ask the model once more for patches that did not apply (the one repair round). Default true. */
  repair: boolean;
};

/** Settings layers, lowest precedence first. */
export type SettingsLayer = 'default' | 'user' | 'project' | 'local' | 'env' | 'flag';

/**
 * Where one value came from: the layer and, within it, a file path (absolute for the user layer,
 * project-relative otherwise), an environment variable name or a flag. For the concatenated lists, `layer`
 * and `where` name the highest contributing layer and `from` lists every contributor, lowest first.
 */
export type SettingSource = {
  layer: SettingsLayer;
  where: string;
  from?: { layer: SettingsLayer; where: string }[];
};

/** One settings file that was looked for; `path` is absolute. */
export type SettingsFileInfo = { layer: 'user' | 'project' | 'local'; path: string; found: boolean };

/** The result of loadSettings: values, the source of each value, and the files looked at. */
export type ResolvedSettings = {
  values: SettingsValues;
  sources: Record<keyof SettingsValues, SettingSource>;
  files: SettingsFileInfo[];
  /**
   * Set when the project's settings files grant something (verify command, allow rules, auto-commit, provider or
   * model) and the person has not trusted them as they are now: those keys were left out (config/trust.ts).
   */
  untrusted?: UntrustedSettings;
};

/** Built-in defaults (layer 'default'), from utils/defaults.ts, which `clawcode --help` prints too. */
const DEFAULT_SETTINGS: Readonly<SettingsValues> = Object.freeze({
  budgetChars: DEFAULT_BUDGET_CHARS,
  timeoutMs: DEFAULT_TIMEOUT_MS,
  ignore: [],
  commands: { allow: [], deny: [] },
  autoCommit: false,
  repair: true,
});

/** Environment variables read by the 'env' layer, by setting. */
const SETTINGS_ENV_VARS = {
  provider: 'CLAWCODE_PROVIDER',
  model: 'CLAWCODE_MODEL',
  budgetChars: 'CLAWCODE_BUDGET',
  timeoutMs: 'CLAWCODE_TIMEOUT_MS',
  verifyCommand: 'CLAWCODE_VERIFY',
  autoCommit: 'CLAWCODE_AUTO_COMMIT',
} as const;

/** Flag names shown as the source of flag values (they match cli.ts where the flag exists). */
const FLAG_NAMES: Record<keyof SettingsValues, string> = {
  provider: '--provider',
  model: '--model',
  budgetChars: '--budget',
  timeoutMs: '--timeout',
  ignore: '--ignore',
  verifyCommand: '--verify-cmd',
  commands: '--allow/--deny',
  autoCommit: '--commit',
  repair: '--no-repair',
};

/** What one layer contributes; every field optional. */
type LayerValues = Omit<Partial<SettingsValues>, 'commands'> & { commands?: { allow?: string[]; deny?: string[] } };

/**
 * Schema of a settings object (project/local file, or `settings` in config.json). Strict: an unknown key is
 * an error, because a misspelt key silently ignored is a setting the person believes is on.
 * Built on first use: zod costs ~60 ms to load, and most runs have no settings file to check.
 */
async function settingsFileSchema() {
  const { z } = await import('zod');
  const positiveInt = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
  const stringList = z.array(z.string());
  return z.strictObject({
    provider: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    budgetChars: positiveInt.optional(),
    timeoutMs: positiveInt.max(MAX_TIMEOUT_MS).optional(),
    ignore: stringList.optional(),
    // An empty string switches off a verify command set by a lower layer.
    verifyCommand: z.string().optional(),
    commands: z.strictObject({ allow: stringList.optional(), deny: stringList.optional() }).optional(),
    autoCommit: z.boolean().optional(),
    repair: z.boolean().optional(),
  });
}

/** One layer above the defaults: its values and how to name the source of each key. */
type Layer = { layer: SettingsLayer; values: LayerValues; where: (key: keyof SettingsValues) => string };

/**
 * Load and merge the settings layers, lowest to highest: defaults < user (`$CLAWCODE_HOME/config.json`:
 * its `settings` object, and `defaultProvider` as `provider`) < project (`.clawcode/settings.json`) <
 * local (`.clawcode/settings.local.json`) < environment (SETTINGS_ENV_VARS) < flags. Missing files are skipped.
 * The two project files come with the project: their granting keys apply only when the person trusted these
 * exact files (`$CLAWCODE_HOME/trusted-projects.json`, see config/trust.ts); otherwise they are left out and
 * `untrusted` says which.
 *
 * @param options.rootDir  project root (absolute or relative to cwd)
 * @param options.env      environment to read (CLAWCODE_HOME and SETTINGS_ENV_VARS)
 * @param options.flags    values from command-line flags; undefined fields are ignored
 * @param options.homeDir  clawcode home to use instead of clawcodeHome(env) (tests)
 * @throws ConfigError (exit 1) for a file with bad JSON (names the file, line and column), an unknown key or a
 *         wrong type (names the file and key), or a credential in a project/local file (names the file and key;
 *         never the value); IoError for an unreadable file; UsageError (exit 2) for a bad environment value
 *         (names the variable) or flag value (names the flag)
 */
export async function loadSettings(options: {
  rootDir: string;
  env: NodeJS.ProcessEnv;
  flags?: Partial<SettingsValues>;
  homeDir?: string;
}): Promise<ResolvedSettings> {
  const root = resolve(options.rootDir);
  const userPath = join(options.homeDir ?? clawcodeHome(options.env), 'config.json');
  const projectPath = join(root, PROJECT_SETTINGS_FILE);
  const localPath = join(root, LOCAL_SETTINGS_FILE);

  const homeDir = options.homeDir ?? clawcodeHome(options.env);
  const user = await readUserLayer(userPath);
  const projectRead = await readProjectLayer(root, projectPath, PROJECT_SETTINGS_FILE);
  const localRead = await readProjectLayer(root, localPath, LOCAL_SETTINGS_FILE);
  const sha256 = hashProjectSettings([
    [PROJECT_SETTINGS_FILE, projectRead?.text],
    [LOCAL_SETTINGS_FILE, localRead?.text],
  ]);
  const anyFile = projectRead !== undefined || localRead !== undefined;
  const record = anyFile ? (await readTrustStore(homeDir))[root] : undefined;
  const trust = applyProjectTrust(
    { [PROJECT_SETTINGS_FILE]: projectRead?.values, [LOCAL_SETTINGS_FILE]: localRead?.values },
    sha256,
    record,
  );
  const project = trust.layers[PROJECT_SETTINGS_FILE];
  const local = trust.layers[LOCAL_SETTINGS_FILE];
  const fromEnv = parseSettingsEnv(options.env);
  const fromFlags = validateFlags(options.flags ?? {});

  const layers: Layer[] = [
    { layer: 'user', values: user.values ?? {}, where: () => userPath },
    { layer: 'project', values: project ?? {}, where: () => PROJECT_SETTINGS_FILE },
    { layer: 'local', values: local ?? {}, where: () => LOCAL_SETTINGS_FILE },
    { layer: 'env', values: fromEnv, where: (key) => SETTINGS_ENV_VARS[key as keyof typeof SETTINGS_ENV_VARS] },
    { layer: 'flag', values: fromFlags, where: (key) => FLAG_NAMES[key] },
  ];
  const { values, sources } = mergeLayers(layers);
  return {
    values,
    sources,
    files: [
      { layer: 'user', path: userPath, found: user.found },
      { layer: 'project', path: projectPath, found: project !== undefined },
      { layer: 'local', path: localPath, found: local !== undefined },
    ],
    ...(trust.untrusted ? { untrusted: trust.untrusted } : {}),
  };
}

const SCALAR_KEYS = ['provider', 'model', 'budgetChars', 'timeoutMs', 'verifyCommand', 'autoCommit', 'repair'] as const;

/** Pure merge of the layers over DEFAULT_SETTINGS; see SettingsValues for the rules. */
function mergeLayers(layers: readonly Layer[]): Pick<ResolvedSettings, 'values' | 'sources'> {
  const values: SettingsValues = { ...DEFAULT_SETTINGS, ignore: [], commands: { allow: [], deny: [] } };
  const def: SettingSource = { layer: 'default', where: 'default' };
  const sources = {} as Record<keyof SettingsValues, SettingSource>;
  for (const key of [...SCALAR_KEYS, 'ignore', 'commands'] as const) sources[key] = def;

  for (const { layer, values: v, where } of layers) {
    for (const key of SCALAR_KEYS) {
      if (v[key] === undefined) continue;
      (values as Record<string, unknown>)[key] = key === 'verifyCommand' && v[key] === '' ? undefined : v[key];
      sources[key] = { layer, where: where(key) };
    }
    const lists: [keyof SettingsValues, string[], string[] | undefined][] = [
      ['ignore', values.ignore, v.ignore],
      ['commands', values.commands.allow, v.commands?.allow],
      ['commands', values.commands.deny, v.commands?.deny],
    ];
    for (const [key, target, added] of lists) {
      if (!added || added.length === 0) continue;
      for (const item of added) if (!target.includes(item)) target.push(item);
      const entry = { layer, where: where(key) };
      const from = sources[key].from ?? [];
      if (!from.some((f) => f.layer === layer)) from.push(entry);
      sources[key] = { ...entry, from };
    }
  }
  return { values, sources };
}

/** Read a JSON file; undefined when it does not exist. An empty (whitespace-only) file reads as `{}`. */
async function readJsonFile(path: string, shownAs: string): Promise<unknown> {
  return (await readJsonText(path, shownAs))?.data;
}

/**
 * readJsonFile, also giving the exact text read (for the trust hash).
 * @param projectRoot  set for a project settings file (`shownAs` is then its project-relative path): read
 *                     through the path policy (readProjectSettingsText)
 */
async function readJsonText(
  path: string,
  shownAs: string,
  projectRoot?: string,
): Promise<{ data: unknown; text: string } | undefined> {
  let text: string;
  try {
    const read =
      projectRoot === undefined ? await readFile(path, 'utf8') : await readProjectSettingsText(projectRoot, shownAs);
    if (read === undefined) return undefined;
    text = read;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new IoError(`Cannot read ${shownAs}: ${(error as Error).message}`, {
      code: 'settings_unreadable',
      cause: error,
    });
  }
  const raw = text;
  text = text.replace(/^\uFEFF/, '');
  if (text.trim() === '') return { data: {}, text: raw };
  try {
    return { data: JSON.parse(text) as unknown, text: raw };
  } catch {
    // JSON.parse's message (kept out as `cause` too) may quote the file and a pasted key in it.
    const where = locateJsonError(text) ?? { line: 1, column: 1, message: 'invalid JSON' };
    throw new ConfigError(
      `Invalid JSON in ${shownAs} at line ${where.line}, column ${where.column}: ${where.message}`,
      {
        code: 'settings_bad_json',
        hint: `Fix the JSON in ${path}.`,
      },
    );
  }
}

/** Validate a settings object against settingsFileSchema; `prefix` is prepended to key paths in messages. */
async function validateSettingsObject(data: unknown, shownAs: string, path: string, prefix = ''): Promise<LayerValues> {
  const schema = await settingsFileSchema();
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const at = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
  if (issue.code === 'unrecognized_keys') {
    const key = [at, issue.keys[0]].filter(Boolean).join('.');
    throw new ConfigError(`Unknown key "${key}" in ${shownAs}`, {
      code: 'settings_unknown_key',
      hint: `Known keys: ${Object.keys(schema.shape).join(', ')} (commands: allow, deny). File: ${path}`,
    });
  }
  throw new ConfigError(`Invalid value for "${at || '(top level)'}" in ${shownAs}: ${issue.message}`, {
    code: 'settings_invalid',
    hint: `Fix ${path}.`,
  });
}

async function readUserLayer(path: string): Promise<{ found: boolean; values?: LayerValues }> {
  const data = await readJsonFile(path, path);
  if (data === undefined) return { found: false };
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new ConfigError(`${path} must contain a JSON object`, { code: 'settings_invalid' });
  }
  const record = data as Record<string, unknown>;
  const values =
    record.settings === undefined ? {} : await validateSettingsObject(record.settings, path, path, 'settings');
  // Provider entries (and their keys) are config.ts's business; only the default provider name is a setting.
  if (values.provider === undefined && typeof record.defaultProvider === 'string' && record.defaultProvider !== '') {
    values.provider = record.defaultProvider;
  }
  return { found: true, values };
}

async function readProjectLayer(
  root: string,
  path: string,
  shownAs: string,
): Promise<{ values: LayerValues; text: string } | undefined> {
  const read = await readJsonText(path, shownAs, root);
  if (read === undefined) return undefined;
  const { data, text } = read;
  // Checked before the schema so a pasted `apiKey` is reported as a secret, not as an unknown key.
  const secret = findSecret(data);
  if (secret) {
    const what =
      secret.reason === 'key-name'
        ? `key "${secret.path}" holds a credential`
        : `value of "${secret.path}" looks like an API key`;
    throw new ConfigError(`Secret refused in ${shownAs}: ${what}`, {
      code: 'settings_secret',
      hint: 'Project settings may be committed; keep keys in $CLAWCODE_HOME/config.json (clawcode config) or environment variables.',
    });
  }
  return { values: await validateSettingsObject(data, shownAs, path), text };
}

function envInt(env: NodeJS.ProcessEnv, name: string, unit: string, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0 || n > max) {
    const most = max < Number.MAX_SAFE_INTEGER ? ` (at most ${max})` : '';
    throw new UsageError(`${name} must be a positive whole number of ${unit}${most}, got "${raw}"`, {
      code: 'settings_bad_env',
    });
  }
  return n;
}

const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off']);

/**
 * The 'env' layer: SETTINGS_ENV_VARS read from `env`. Unset or blank variables are skipped.
 * Numbers are positive integers (characters for CLAWCODE_BUDGET, ms for CLAWCODE_TIMEOUT_MS);
 * CLAWCODE_AUTO_COMMIT accepts 1/0, true/false, yes/no, on/off (any case).
 *
 * @throws UsageError (exit 2, code `settings_bad_env`) naming the variable and the bad value
 */
function parseSettingsEnv(env: NodeJS.ProcessEnv): Partial<SettingsValues> {
  const out: Partial<SettingsValues> = {};
  const str = (name: string) => env[name]?.trim() || undefined;
  out.provider = str(SETTINGS_ENV_VARS.provider);
  out.model = str(SETTINGS_ENV_VARS.model);
  out.verifyCommand = str(SETTINGS_ENV_VARS.verifyCommand);
  out.budgetChars = envInt(env, SETTINGS_ENV_VARS.budgetChars, 'characters');
  out.timeoutMs = envInt(env, SETTINGS_ENV_VARS.timeoutMs, 'milliseconds', MAX_TIMEOUT_MS);
  const auto = str(SETTINGS_ENV_VARS.autoCommit)?.toLowerCase();
  if (auto !== undefined) {
    if (!TRUE_WORDS.has(auto) && !FALSE_WORDS.has(auto)) {
      throw new UsageError(
        `${SETTINGS_ENV_VARS.autoCommit} must be true or false (1/0, yes/no, on/off), got "${auto}"`,
        {
          code: 'settings_bad_env',
        },
      );
    }
    out.autoCommit = TRUE_WORDS.has(auto);
  }
  return out;
}

function validateFlags(flags: Partial<SettingsValues>): LayerValues {
  for (const key of ['budgetChars', 'timeoutMs'] as const) {
    const n = flags[key];
    const max = key === 'timeoutMs' ? MAX_TIMEOUT_MS : Number.MAX_SAFE_INTEGER;
    if (n !== undefined && !(Number.isSafeInteger(n) && n > 0 && n <= max)) {
      const most = max < Number.MAX_SAFE_INTEGER ? ` (at most ${max})` : '';
      throw new UsageError(`${FLAG_NAMES[key]} must be a positive whole number${most}, got ${String(n)}`, {
        code: 'settings_bad_flag',
      });
    }
  }
  return flags;
}
