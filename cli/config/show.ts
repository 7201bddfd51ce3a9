import { loadSettings, type ResolvedSettings, type SettingSource, type SettingsValues } from '../../config/settings.js';
import { maskSecrets } from '../../config/settings-secrets.js';
import { providerEntry, readConfig, resolveProviderConfig } from '../../config/config.js';
import { configPath } from '../../config/paths.js';
import { escapeTerminal, terminalJson } from '../../utils/terminal-text.js';

/** One printed row: a setting (or sub-list) name, its value and where it came from. */
type Row = { name: string; value: string; source: string };

/**
 * A value as shown in the table: masked, and escaped as one line here, before the table is put together, since
 * the table is printed in `colored` mode, which keeps SGR sequences (a committed `ESC[8m` would hide the rest).
 */
function formatValue(value: unknown): string {
  const shown = (v: unknown): string => escapeTerminal(maskSecrets(String(v)), 'line');
  if (value === undefined) return '(not set)';
  if (Array.isArray(value)) return value.length === 0 ? '(none)' : value.map(shown).join(', ');
  return shown(value);
}

function formatSource(source: SettingSource): string {
  const one = (s: { layer: string; where: string }) => (s.layer === 'default' ? 'default' : `${s.layer}: ${s.where}`);
  return source.from && source.from.length > 1 ? source.from.map(one).join(' + ') : one(source);
}

function rowsOf(resolved: ResolvedSettings, entryModel?: Row): Row[] {
  const { values: v, sources: s } = resolved;
  const row = (name: string, key: keyof SettingsValues, value: unknown): Row => ({
    name,
    value: formatValue(value),
    source: formatSource(s[key]),
  });
  return [
    row('provider', 'provider', v.provider),
    v.model === undefined && entryModel ? entryModel : row('model', 'model', v.model),
    row('budgetChars', 'budgetChars', v.budgetChars),
    row('timeoutMs', 'timeoutMs', v.timeoutMs),
    row('ignore', 'ignore', v.ignore),
    row('verifyCommand', 'verifyCommand', v.verifyCommand),
    // One row: the source covers both lists, so separate rows would credit a layer with a list it left empty.
    {
      ...row('commands', 'commands', undefined),
      value: `allow: ${formatValue(v.commands.allow)}; deny: ${formatValue(v.commands.deny)}`,
    },
    row('autoCommit', 'autoCommit', v.autoCommit),
  ];
}

/**
 * When no settings layer names a model, the model the provider entry (or its environment) brings,
 * with that entry as its source; undefined when no provider resolves (a broken config is left for the
 * run itself to report).
 */
async function providerModelRow(resolved: ResolvedSettings, env: NodeJS.ProcessEnv): Promise<Row | undefined> {
  try {
    const config = await readConfig(env);
    const found = resolveProviderConfig({ config, env, provider: resolved.values.provider });
    if (!found?.model) return undefined;
    const where = providerEntry(config, found.name)
      ? `provider entry "${found.name}": ${configPath(env)}`
      : `provider ${found.name} (environment)`;
    return { name: 'model', value: formatValue(found.model), source: where };
  } catch {
    return undefined;
  }
}

/** Render rows as a left-aligned, space-padded table with a header line. */
function renderTable(rows: readonly Row[]): string {
  const header: Row = { name: 'SETTING', value: 'VALUE', source: 'SOURCE' };
  const all = [header, ...rows];
  const w1 = Math.max(...all.map((r) => r.name.length));
  const w2 = Math.max(...all.map((r) => r.value.length));
  return all.map((r) => `${r.name.padEnd(w1)}  ${r.value.padEnd(w2)}  ${r.source}`.trimEnd()).join('\n');
}

/** A copy of the resolved settings with every string value passed through maskSecrets, for `--json`. */
function maskedJson(resolved: ResolvedSettings): ResolvedSettings {
  const mask = (x: string | undefined) => (x === undefined ? undefined : maskSecrets(x));
  const v = resolved.values;
  return {
    ...resolved,
    values: {
      ...v,
      provider: mask(v.provider),
      model: mask(v.model),
      verifyCommand: mask(v.verifyCommand),
      ignore: v.ignore.map(maskSecrets),
      commands: { allow: v.commands.allow.map(maskSecrets), deny: v.commands.deny.map(maskSecrets) },
    },
  };
}

/**
 * `clawcode config --show`: load the layered settings (see loadSettings) and print the merged values with the
 * source of each (layer and file, environment variable or flag), then the settings files looked for. With
 * `json`, print one JSON document `{ values, sources, files }` instead. Anything that looks like a key is
 * masked (`sk-***`) in both forms; the settings layers refuse or never hold keys, this guards against one
 * pasted into a model name or command.
 *
 * @returns the resolved (unmasked) settings, for callers that go on to use them
 * @throws what loadSettings throws (ConfigError, IoError, UsageError); the caller maps it to an exit code
 */
export async function runConfigShow(options: {
  rootDir: string;
  env: NodeJS.ProcessEnv;
  flags: Partial<SettingsValues>;
  stdout: NodeJS.WritableStream;
  json?: boolean;
}): Promise<ResolvedSettings> {
  const resolved = await loadSettings({ rootDir: options.rootDir, env: options.env, flags: options.flags });
  if (options.json) {
    options.stdout.write(`${terminalJson(maskedJson(resolved), 2)}\n`);
    return resolved;
  }
  const files = resolved.files.map((f) => `  ${f.layer.padEnd(8)} ${f.path}${f.found ? '' : '  (not found)'}`);
  // Project settings come with a cloned repository: their values are shown, never obeyed by the terminal.
  options.stdout.write(
    escapeTerminal(
      `${renderTable(rowsOf(resolved, await providerModelRow(resolved, options.env)))}\n\nSettings files (lowest precedence first):\n${files.join('\n')}\n`,
      'colored',
    ),
  );
  options.stdout.write('Then environment (CLAWCODE_*) and flags override.\n');
  if (resolved.untrusted)
    options.stdout.write(
      `Not applied until you trust this project (clawcode trust): ${resolved.untrusted.keys.join(', ')}\n`,
    );
  return resolved;
}
