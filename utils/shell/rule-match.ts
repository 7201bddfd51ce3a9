/**
 * How a command rule of the settings (`commands.allow`, `commands.deny`: config/settings-commands.ts) is matched
 * against a command's fixed text by the command policy (utils/shell/approval.ts).
 */

/**
 * Does one rule match one command's fixed text? A rule matches a command equal to it, or starting with it followed
 * by a space (`npm test` matches `npm test -- --watch`, not `npm testing`). A rule ending in `*` matches any
 * command starting with the text before the `*` (`npm run *` matches `npm run build`; `*` alone matches
 * everything). Whitespace runs count as one space; an empty rule matches nothing.
 */
export function commandMatchesRule(text: string, rule: string): boolean {
  const cmd = canonicalScript(text.trim().replace(/\s+/g, ' '));
  const r = canonicalScript(rule.trim().replace(/\s+/g, ' '));
  if (r === '') return false;
  if (r.endsWith('*')) return cmd.startsWith(r.slice(0, -1));
  return cmd === r || cmd.startsWith(`${r} `);
}

/**
 * A package manager's script line in one spelling, so a rule says the same of every spelling: `npm run-script x`,
 * `npm rum x` and `npm urn x` are `npm run x`; `npm test`, `npm t`, `npm tst` are `npm run test`; `yarn lint` is
 * `yarn run lint` (a deny rule `npm run deploy` was passed by `npm run-script deploy`, which the allow-list runs).
 */
function canonicalScript(line: string): string {
  const [tool = '', sub = '', ...rest] = line.split(' ');
  if (!['npm', 'pnpm', 'yarn'].includes(tool) || sub === '') return line;
  const script = ['run-script', 'rum', 'urn'].includes(sub)
    ? []
    : ['test', 't', 'tst'].includes(sub)
      ? ['test']
      : tool !== 'npm' && ['lint', 'build', 'typecheck', 'format'].includes(sub)
        ? [sub]
        : undefined;
  if (script === undefined) return line;
  return [tool, 'run', ...script, ...rest].join(' ');
}
