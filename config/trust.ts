/**
 * Workspace trust for project settings. `.clawcode/settings.json` (and `.clawcode/settings.local.json`) come with
 * the project, so a cloned repository could grant itself execution: a verify command, allow rules, auto-commit,
 * the choice of provider. Those keys take effect only once the person has trusted the project, recorded in
 * `$CLAWCODE_HOME/trusted-projects.json` with a SHA-256 of the settings files, so any change asks again (the way
 * editors' workspace trust works). Harmless keys (a budget up to the largest default, timeout, ignore patterns,
 * deny rules) always apply.
 */
import { createHash } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError, IoError } from '../utils/errors.js';
import { MAX_DEFAULT_BUDGET_CHARS } from './model-budget.js';
import { makeDirs } from '../utils/make-dirs.js';

/** The trust file under the clawcode home folder. */
export const TRUST_FILE = 'trusted-projects.json';

/** One trusted project: the settings hash the person said yes to, and when (ISO 8601). */
export type TrustRecord = { sha256: string; trustedAt: string };

/** Trusted projects by absolute root path. */
export type TrustStore = Record<string, TrustRecord>;

/** The settings keys a project file may set, as far as trust is concerned. */
export type ProjectSettingsValues = {
  provider?: string;
  model?: string;
  verifyCommand?: string;
  autoCommit?: boolean;
  repair?: boolean;
  budgetChars?: number;
  commands?: { allow?: string[]; deny?: string[] };
  [key: string]: unknown;
};

/** What was left out of an untrusted project's settings. */
export type UntrustedSettings = {
  /** the granting keys found, e.g. `["verifyCommand", "commands.allow", "autoCommit", "provider"]` */
  keys: string[];
  /** each granting key with its value as the files set it (the later file winning), for showing to the person */
  values: Record<string, unknown>;
  /** SHA-256 (hex) of the project settings files, to record when the person trusts them */
  sha256: string;
  /** the project-relative files that hold them */
  files: string[];
};

/**
 * The keys of one project layer that grant something: a provider or model choice (where the code goes), a
 * non-empty verify command, `autoCommit: true`, a non-empty `commands.allow`, `repair: true` (the repair round
 * sends more of the files, so a person who switched it off keeps it off), a `budgetChars` above the largest
 * default budget (MAX_DEFAULT_BUDGET_CHARS: a committed 10^12 sent the whole project with every task, paid by the
 * person). An empty verify command, `autoCommit: false`, `repair: false` or a smaller budget are harmless.
 *
 * @returns key names in a fixed order; empty when the layer grants nothing
 */
export function grantingKeys(values: ProjectSettingsValues | undefined): string[] {
  if (!values) return [];
  const keys: string[] = [];
  if (values.verifyCommand) keys.push('verifyCommand');
  if ((values.commands?.allow?.length ?? 0) > 0) keys.push('commands.allow');
  if (values.autoCommit === true) keys.push('autoCommit');
  if (values.repair === true) keys.push('repair');
  if (bigBudget(values)) keys.push('budgetChars');
  if (values.provider !== undefined) keys.push('provider');
  if (values.model !== undefined) keys.push('model');
  return keys;
}

/**
 * Decide which project settings apply. Pure: the layers, their hash and the person's trust record in; the
 * layers to merge and what was ignored out.
 *
 * @param layers  project-relative file name → parsed values (undefined when the file does not exist)
 * @param sha256  hashProjectSettings() of the same files
 * @param record  the trust record for this root, if any
 * @returns the layers with granting keys removed unless `record.sha256 === sha256`, and `untrusted` set when
 *          something was removed
 */
export function applyProjectTrust<T extends ProjectSettingsValues>(
  layers: Record<string, T | undefined>,
  sha256: string,
  record: TrustRecord | undefined,
): { layers: Record<string, T | undefined>; untrusted?: UntrustedSettings } {
  const granting = Object.entries(layers).filter(([, values]) => grantingKeys(values).length > 0);
  if (granting.length === 0 || record?.sha256 === sha256) return { layers };
  const out: Record<string, T | undefined> = {};
  for (const [file, values] of Object.entries(layers)) out[file] = values ? stripGrants(values) : undefined;
  const keys = [...new Set(granting.flatMap(([, values]) => grantingKeys(values)))];
  const shown: Record<string, unknown> = {};
  for (const [, values] of granting) {
    for (const key of grantingKeys(values))
      shown[key] = key === 'commands.allow' ? values?.commands?.allow : values?.[key];
  }
  return { layers: out, untrusted: { keys, values: shown, sha256, files: granting.map(([file]) => file) } };
}

/** Whether a layer's budget is larger than any default budget (see grantingKeys). */
function bigBudget(values: ProjectSettingsValues): boolean {
  return typeof values.budgetChars === 'number' && values.budgetChars > MAX_DEFAULT_BUDGET_CHARS;
}

function stripGrants<T extends ProjectSettingsValues>(values: T): T {
  const out: T = { ...values };
  if (bigBudget(out)) delete out.budgetChars;
  if (out.verifyCommand) delete out.verifyCommand;
  if (out.autoCommit === true) delete out.autoCommit;
  if (out.repair === true) delete out.repair;
  delete out.provider;
  delete out.model;
  if (out.commands) {
    const { allow: _allow, ...rest } = out.commands;
    out.commands = rest;
  }
  return out;
}

/**
 * SHA-256 (hex) of the project settings files' exact bytes, each named, a missing file counting as absent.
 *
 * @param texts  project-relative file name → file text (undefined when missing), in a fixed order
 */
export function hashProjectSettings(texts: [file: string, text: string | undefined][]): string {
  const hash = createHash('sha256');
  for (const [file, text] of texts)
    hash.update(`${file}\0${text === undefined ? '(absent)' : `${text.length}\0${text}`}\0`);
  return hash.digest('hex');
}

/**
 * Read the trust store; a missing file is an empty store.
 *
 * @throws ConfigError for a file that is not a JSON object; IoError when it cannot be read
 */
export async function readTrustStore(homeDir: string): Promise<TrustStore> {
  const path = join(homeDir, TRUST_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new IoError(`Cannot read ${path}: ${(error as Error).message}`, { code: 'trust_unreadable', cause: error });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new ConfigError(`${path} is not a JSON object`, {
      code: 'trust_invalid',
      hint: `Delete ${path} to trust projects again.`,
    });
  }
  const store: TrustStore = {};
  for (const [root, record] of Object.entries(data as Record<string, unknown>)) {
    const r = record as Partial<TrustRecord> | null;
    if (r && typeof r.sha256 === 'string' && typeof r.trustedAt === 'string')
      store[root] = { sha256: r.sha256, trustedAt: r.trustedAt };
  }
  return store;
}

/**
 * Record (or, with `sha256: undefined`, remove) the trust for one project root. The file is written 0600 through
 * a temp file and a rename, in a 0700 home folder.
 *
 * @throws IoError when the home folder or file cannot be written
 */
export async function setProjectTrust(
  homeDir: string,
  rootDir: string,
  sha256: string | undefined,
  now = new Date(),
): Promise<void> {
  const store = await readTrustStore(homeDir);
  const root = resolve(rootDir);
  if (sha256 === undefined) delete store[root];
  else store[root] = { sha256, trustedAt: now.toISOString() };
  const path = join(homeDir, TRUST_FILE);
  const temp = `${path}.${process.pid}.tmp`;
  try {
    await makeDirs(homeDir, 0o700);
    await writeFile(temp, JSON.stringify(store, null, 2) + '\n', { mode: 0o600 });
    await rename(temp, path);
  } catch (error) {
    throw new IoError(`Cannot write ${path}: ${(error as Error).message}`, { code: 'trust_unwritable', cause: error });
  }
}
