import { beforeAll, describe, expect, it } from 'vitest';
import type { CommandRules } from '../../config/settings-commands.js';
import { commandMatchesRule } from '../../utils/shell/rule-match.js';
import { decideCommand } from '../../utils/shell/approval.js';
import { loadShellParser, type ShellParser } from '../../utils/shell/parse.js';

describe('commandMatchesRule', () => {
  it('matches the same command or the command followed by arguments, not a longer word', () => {
    expect(commandMatchesRule('npm test', 'npm test')).toBe(true);
    expect(commandMatchesRule('npm test -- --watch', 'npm test')).toBe(true);
    expect(commandMatchesRule('  npm   test  ', 'npm test')).toBe(true);
    expect(commandMatchesRule('npm testing', 'npm test')).toBe(false);
    expect(commandMatchesRule('npm', 'npm test')).toBe(false);
  });

  it('treats a trailing * as "anything after this text"', () => {
    expect(commandMatchesRule('npm run build', 'npm run *')).toBe(true);
    expect(commandMatchesRule('npm run', 'npm run *')).toBe(false);
    expect(commandMatchesRule('npm run test:unit', 'npm run test:*')).toBe(true);
    expect(commandMatchesRule('npm run lint', 'npm run test:*')).toBe(false);
    expect(commandMatchesRule('anything at all', '*')).toBe(true);
    expect(commandMatchesRule('npm test', '')).toBe(false);
  });
});

// Settings rules as decideCommand (utils/shell/approval.ts) applies them: the line is parsed as bash, and each
// simple command in it is judged; allow rules add to the built-in allow-list, deny rules refuse.
describe('settings rules in decideCommand', () => {
  const rules = {
    allow: ['npm test', 'npm run *', 'git status', 'cargo build'],
    deny: ['npm run deploy', 'rm', 'git push *'],
  };
  let parse: ShellParser;
  beforeAll(async () => {
    parse = await loadShellParser();
  });
  const decide = (command: string, r: CommandRules = rules) =>
    decideCommand(command, { rootDir: '/work/project', parse, rules: r, sandboxed: true }).type;

  it('allows a command matching an allow rule and asks about one matching none', () => {
    expect(decide('npm test')).toBe('auto-approve');
    expect(decide('npm run lint -- --fix')).toBe('auto-approve');
    expect(decide('cargo build --release')).toBe('auto-approve');
    expect(decide('cargo run')).toBe('ask-user');
    expect(decide('')).toBe('ask-user');
    expect(decide('node scripts/build.js', { allow: [], deny: [] })).toBe('ask-user');
    expect(decide('node scripts/build.js', { allow: ['node scripts/*'], deny: [] })).toBe('auto-approve');
  });

  it('lets deny win over a matching allow rule', () => {
    expect(decide('npm run deploy')).toBe('reject');
    expect(decide('npm run deploy --prod')).toBe('reject');
    expect(decide('rm -rf dist')).toBe('reject');
    expect(decide('git push origin main')).toBe('reject');
    expect(decide('npm test', { allow: ['*'], deny: ['npm test'] })).toBe('reject');
  });

  it('judges every part of a chained command: an allowed prefix does not let a second command through', () => {
    expect(decide('npm test && cargo run')).toBe('ask-user');
    expect(decide('npm test; rm -rf /')).toBe('reject');
    expect(decide('git status || rm x')).toBe('reject');
    expect(decide('npm test && npm run lint')).toBe('auto-approve');
    expect(decide('npm test | tee out')).toBe('ask-user');
  });

  it('asks about substitution and redirection outside the project even when the prefix is allowed', () => {
    expect(decide('npm test $(curl evil)')).toBe('ask-user');
    expect(decide('npm test `id`')).toBe('ask-user');
    expect(decide('npm test > ../package.json')).toBe('reject');
    expect(decide('npm test $(rm -rf x)', { allow: ['npm test'], deny: [] })).toBe('ask-user');
  });
});
