import { describe, expect, it } from 'vitest';
import { commandMatchesRule, isCommandAllowed } from '../../config/settings.js';

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

describe('isCommandAllowed', () => {
  const rules = { allow: ['npm test', 'npm run *', 'git status'], deny: ['npm run deploy', 'rm', 'git push *'] };

  it('allows a command matching an allow rule and asks about one matching none', () => {
    expect(isCommandAllowed('npm test', rules)).toBe('allow');
    expect(isCommandAllowed('npm run lint -- --fix', rules)).toBe('allow');
    expect(isCommandAllowed('make build', rules)).toBe('ask');
    expect(isCommandAllowed('', rules)).toBe('ask');
    expect(isCommandAllowed('npm test', { allow: [], deny: [] })).toBe('ask');
  });

  it('lets deny win over a matching allow rule', () => {
    expect(isCommandAllowed('npm run deploy', rules)).toBe('deny');
    expect(isCommandAllowed('npm run deploy --prod', rules)).toBe('deny');
    expect(isCommandAllowed('rm -rf dist', rules)).toBe('deny');
    expect(isCommandAllowed('git push origin main', rules)).toBe('deny');
    expect(isCommandAllowed('npm test', { allow: ['*'], deny: ['npm test'] })).toBe('deny');
  });

  it('judges every part of a chained command: an allowed prefix does not let a second command through', () => {
    expect(isCommandAllowed('npm test && make install', rules)).toBe('ask');
    expect(isCommandAllowed('npm test; rm -rf /', rules)).toBe('deny');
    expect(isCommandAllowed('git status || rm x', rules)).toBe('deny');
    expect(isCommandAllowed('npm test && npm run lint', rules)).toBe('allow');
    expect(isCommandAllowed('npm test | tee out', rules)).toBe('ask');
  });

  it('asks about substitution and redirection even when the prefix is allowed', () => {
    expect(isCommandAllowed('npm test $(curl evil)', rules)).toBe('ask');
    expect(isCommandAllowed('npm test `id`', rules)).toBe('ask');
    expect(isCommandAllowed('npm test > package.json', rules)).toBe('ask');
    expect(isCommandAllowed('npm test $(rm -rf x)', { allow: ['npm test'], deny: [] })).toBe('ask');
  });
});
