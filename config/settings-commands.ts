/**
 * Command allow/deny rules from settings (`commands: { allow, deny }`). They are applied by decideCommand
 * (utils/shell/approval.ts), which parses each command as bash and judges every simple command in it.
 */

/** Command rules: each entry is a command prefix such as `npm test` or `npm run *`. */
export type CommandRules = { allow: readonly string[]; deny: readonly string[] };
