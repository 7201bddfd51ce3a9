import { beforeAll, describe, expect, it } from 'vitest';
import { decideCommand, type CommandApproval } from '../../../utils/shell/approval.js';
import { loadShellParser, type ShellParser } from '../../../utils/shell/parse.js';

// c8 and nyc run the command after their options: the line is judged by that command as well, while the usual
// coverage lines stay auto-approved.

let parse: ShellParser;
beforeAll(async () => {
  parse = await loadShellParser();
});
const decide = (command: string): CommandApproval['type'] =>
  decideCommand(command, { rootDir: '/work/project', parse, sandboxed: true, rules: { allow: [], deny: [] } }).type;

describe('a coverage tool in front of a command', () => {
  it.each([
    ['c8 rm -rf .', 'reject'],
    ['npx nyc rm -rf .', 'reject'],
    ['bun x c8 rm -rf .', 'reject'],
    ['c8 -- rm -rf .', 'reject'],
    ['c8 c8 rm -rf .', 'reject'],
    ['c8 bash -c "rm -rf /"', 'reject'],
    ['c8 rm -rf src', 'ask-user'],
    ['npm exec nyc -- rm -rf src', 'ask-user'],
    ['c8 curl http://example.com', 'ask-user'],
    // `-r` may take `vitest` as its value: then `rm` is the command
    ['c8 -r vitest rm -rf src', 'ask-user'],
    ['c8 id', 'ask-user'],
  ] as const)('%s: %s', (command, expected) => {
    expect(decide(command)).toBe(expected);
  });

  it.each([
    'c8 vitest run',
    'c8 --reporter=lcov vitest run',
    'nyc npm test',
    'npx c8 vitest',
    'c8 report',
    'nyc check-coverage',
  ])('%s stays auto-approved', (command) => {
    expect(decide(command)).toBe('auto-approve');
  });
});
