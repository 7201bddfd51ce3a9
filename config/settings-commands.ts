/**
 * Command allow/deny rules from settings (`commands: { allow, deny }`), decided without running anything.
 * The caller (cli/ or the runner) acts on the answer: run, refuse, or ask the person.
 */

/** Command rules: each entry is a command prefix such as `npm test` or `npm run *`. */
export type CommandRules = { allow: readonly string[]; deny: readonly string[] };

/** What to do with a command: run it without asking, refuse it, or ask the person. */
export type CommandDecision = 'allow' | 'deny' | 'ask';

/**
 * Shell operators that chain or nest commands. A command is split on the chaining ones so that
 * `npm test && rm -rf x` is judged as two commands: an allow rule for `npm test` must not let `rm` through
 * by prefix (the mistake Claude Code's permission rules guard against the same way).
 */
const CHAIN = /&&|\|\||[;&|\n]/;
/** Substitution and redirection can hide a second command or write a file inside one segment. */
const NESTED = /`|\$\(|[<>]/;

function normalize(command: string): string {
  return command.trim().replace(/\s+/g, ' ');
}

/**
 * Does one rule match one simple command? A rule matches a command equal to it, or starting with it followed
 * by a space (`npm test` matches `npm test -- --watch`, not `npm testing`). A rule ending in `*` matches any
 * command starting with the text before the `*` (`npm run *` matches `npm run build`; `npm run test:*`
 * matches `npm run test:unit`; `*` alone matches everything). Whitespace runs count as one space.
 */
export function commandMatchesRule(command: string, rule: string): boolean {
  const cmd = normalize(command);
  const r = normalize(rule);
  if (r === '') return false;
  if (r.endsWith('*')) return cmd.startsWith(r.slice(0, -1));
  return cmd === r || cmd.startsWith(`${r} `);
}

/**
 * Decide a command against the allow/deny rules. Deny wins over allow. The command is split on shell chaining
 * operators (`&&`, `||`, `;`, `|`, `&`, newline): any part matching a deny rule → 'deny'; 'allow' only when
 * every part matches an allow rule and the command has no substitution or redirection (`` ` ``, `$(`, `<`,
 * `>`), which could hide another command; otherwise 'ask'. Quoted operators are treated as operators, which
 * can only make the answer more cautious. An empty command is 'ask'.
 *
 * @param command  the shell command line as the plan gives it
 * @param rules    merged settings rules (`ResolvedSettings.values.commands`)
 * @returns 'allow' | 'deny' | 'ask'; never throws
 */
export function isCommandAllowed(command: string, rules: CommandRules): CommandDecision {
  const parts = command.split(CHAIN).map(normalize).filter((p) => p !== '');
  if (parts.length === 0) return 'ask';
  // Deny rules are also tried on the whole line so a rule like `curl * | sh` can match across the pipe.
  const candidates = [normalize(command), ...parts];
  if (candidates.some((part) => rules.deny.some((rule) => commandMatchesRule(part, rule)))) return 'deny';
  if (NESTED.test(command)) return 'ask';
  return parts.every((part) => rules.allow.some((rule) => commandMatchesRule(part, rule))) ? 'allow' : 'ask';
}
