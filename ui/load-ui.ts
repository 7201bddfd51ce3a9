/**
 * Load ui/run-ui.js (and with it Ink and React) so that the TUI draws live in a person's terminal.
 *
 * Ink decides once, when it is first imported, whether it runs in CI (its `is-in-ci` dependency reads
 * `CI` and `CONTINUOUS_INTEGRATION`); in CI it draws nothing until it exits. A person who starts the
 * TUI in a terminal where `CI` happens to be set (dev containers, some shells) would see a blank
 * screen, so when stdin and stdout are terminals those variables are hidden during the import only
 * and restored before anything else runs (commands the plan runs later still see them).
 *
 * @returns the run-ui module; import this module lazily, it is the only way the CLI loads Ink
 */
export async function loadInkUI(): Promise<typeof import('./run-ui.js')> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return import('./run-ui.js');
  const hidden: Array<[string, string]> = [];
  for (const key of ['CI', 'CONTINUOUS_INTEGRATION']) {
    const value = process.env[key];
    if (value === undefined) continue;
    hidden.push([key, value]);
    delete process.env[key];
  }
  try {
    return await import('./run-ui.js');
  } finally {
    for (const [key, value] of hidden) process.env[key] = value;
  }
}
