import chalk from 'chalk';
import { clawcodeHome } from '../../config/paths.js';
import { loadSettings, type ResolvedSettings, type SettingsValues } from '../../config/settings.js';
import type { UntrustedSettings } from '../../config/trust.js';
import { setProjectTrust } from '../../config/trust.js';
import { escapeTerminal } from '../../utils/terminal-text.js';

/**
 * Load the settings for a task and, when the project's settings files grant something the person has not
 * trusted yet, ask in the terminal (default no). Yes records the trust (with the files' hash) and reloads;
 * no, or no terminal (`--yes` is not trust), leaves those keys out with one warning line on stderr.
 *
 * @param options.interactive  a person can be asked: stdin and stdout are terminals and not --json/--events
 * @throws what loadSettings throws; an interrupted prompt throws inquirer's ExitPromptError
 */
export async function loadTrustedSettings(options: {
  rootDir: string;
  env: NodeJS.ProcessEnv;
  flags?: Partial<SettingsValues>;
  interactive: boolean;
  stderr?: NodeJS.WritableStream;
}): Promise<ResolvedSettings> {
  const settings = await loadSettings({ rootDir: options.rootDir, env: options.env, flags: options.flags });
  const untrusted = settings.untrusted;
  if (!untrusted) return settings;
  if (options.interactive) {
    const { confirm } = await import('@inquirer/prompts');
    const yes = await confirm({
      message:
        `${untrusted.files.join(' and ')} in this project set ${describe(untrusted)}. ` +
        "Trust this project's settings?",
      default: false,
    });
    if (yes) {
      await setProjectTrust(clawcodeHome(options.env), options.rootDir, untrusted.sha256);
      return loadSettings({ rootDir: options.rootDir, env: options.env, flags: options.flags });
    }
  }
  (options.stderr ?? process.stderr).write(`${warningLine(untrusted)}\n`);
  return settings;
}

/** The one warning line for ignored project settings. */
function warningLine(untrusted: UntrustedSettings): string {
  return (
    `${chalk.yellow('!')} Ignoring untrusted project settings (${untrusted.keys.join(', ')}) ` +
    `in ${untrusted.files.join(', ')}; ` +
    'run `clawcode trust` in a terminal to trust them.'
  );
}

/**
 * `verifyCommand = "npm test", commands.allow = ["*"]`: JSON quoting, then the terminal escape (JSON leaves C1
 * and bidi controls as they are, and U+202E would make the value read backwards).
 */
function describe(untrusted: UntrustedSettings): string {
  return untrusted.keys
    .map((key) => `${key} = ${escapeTerminal(JSON.stringify(untrusted.values[key]) ?? 'undefined', 'line')}`)
    .join(', ');
}

/**
 * `clawcode trust [--revoke]`: trust the project's settings files as they are now, printing each granting key
 * with the value trusted, or forget that trust. Typing the command is the person's yes; it changes nothing in
 * the project.
 *
 * @returns the exit code (0)
 */
export async function runTrustCommand(options: {
  rootDir: string;
  revoke: boolean;
  stdout: NodeJS.WritableStream;
}): Promise<number> {
  const home = clawcodeHome(process.env);
  if (options.revoke) {
    await setProjectTrust(home, options.rootDir, undefined);
    options.stdout.write(`Project settings of ${options.rootDir} are no longer trusted.\n`);
    return 0;
  }
  const settings = await loadSettings({ rootDir: options.rootDir, env: process.env });
  if (!settings.untrusted) {
    options.stdout.write('Nothing to trust: the project settings grant nothing, or are trusted as they are.\n');
    return 0;
  }
  await setProjectTrust(home, options.rootDir, settings.untrusted.sha256);
  // The person is told what they said yes to, value by value, as the prompt of a task shows it: the warning
  // that sends them here names only the keys.
  const values = settings.untrusted.keys.map((key) => `  ${describe({ ...settings.untrusted!, keys: [key] })}\n`);
  options.stdout.write(
    `Trusted ${settings.untrusted.files.join(' and ')} (${settings.untrusted.keys.join(', ')}); ` +
      `a change to them asks again.\n${values.join('')}`,
  );
  return 0;
}
