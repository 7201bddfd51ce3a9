/**
 * What the command policy (utils/shell/approval.ts) knows about tools: which are shells, interpreters,
 * network or publishing tools, wrappers and the like; what git subcommands do; and the allow-list of local
 * build, test and lint tools.
 */

import { cargoOptionsKnown, goOptionsKnown, PYTHON_NAME, PYTHON_TOOL_MODULES } from './tool-options.js';

/** Shells and interpreters: code given inline or on stdin runs whatever it says. */
export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'ash', 'csh', 'tcsh', 'busybox']);
export const INTERPRETERS = new Set([
  'node',
  'nodejs',
  'deno',
  'bun',
  'python',
  'python2',
  'python3',
  'perl',
  'ruby',
  'php',
  'lua',
  'Rscript',
  'osascript',
  'pwsh',
  'powershell',
  'awk',
  'gawk',
  'mawk',
  'tsx',
  'ts-node',
  'jshell',
  'irb',
]);
export const INLINE_CODE = new Set(['-e', '-c', '-p', '-r', '--eval', '--print', '-E', '--command']);
export const NETWORK = new Set([
  'curl',
  'wget',
  'nc',
  'ncat',
  'netcat',
  'socat',
  'ssh',
  'scp',
  'sftp',
  'rsync',
  'ftp',
  'telnet',
  'http',
  'https',
  'aria2c',
  'gh',
  'aws',
  'gcloud',
  'az',
  'kubectl',
  'docker',
  'podman',
]);
/** Commands that run their arguments as another command (`env rm`, `xargs rm`, `nice rm`). */
export const WRAPPERS = new Set([
  'env',
  'command',
  'exec',
  'nohup',
  'time',
  'nice',
  'ionice',
  'xargs',
  'builtin',
  'timeout',
  'stdbuf',
  'setsid',
  'chroot',
  'unbuffer',
  'strace',
  'watch',
  'parallel',
]);
export const EVALUATORS = new Set(['eval', 'source', '.', 'trap', 'alias', 'fc']);
export const AS_OTHER_USER = new Set(['sudo', 'doas', 'su', 'pkexec', 'runuser']);
export const DISK = /^(mkfs(\..*)?|fdisk|sfdisk|parted|wipefs|mkswap|shred|blkdiscard)$/;
export const POWER = new Set(['shutdown', 'reboot', 'halt', 'poweroff', 'init', 'kill', 'killall', 'pkill']);
export const PUBLISH: Record<string, RegExp> = {
  npm: /^(publish|unpublish|deprecate|owner|dist-tag|adduser|login|token|access)$/,
  pnpm: /^(publish)$/,
  yarn: /^(publish|npm)$/,
  cargo: /^(publish|yank|login|owner)$/,
  twine: /^upload$/,
  gem: /^(push|yank)$/,
  poetry: /^publish$/,
  flit: /^publish$/,
};
/** Coverage tools on the allow-list that run the command after their options (`c8 -r lcov vitest run`). */
const COMMAND_RUNNERS = new Set(['c8', 'nyc']);
/** Their own subcommands, which run nothing else (`nyc report`, `c8 check-coverage`). */
const RUNNER_SUBCOMMANDS = new Set(['report', 'check-coverage', 'merge']);

/**
 * Where the command run by a coverage tool may start: `c8 rm -rf src` runs `rm -rf src`, also as `npx c8 …`,
 * `npm exec c8 …`, `pnpm exec nyc …`, `bun x c8 …`. Option arity is not known, so an option without `=` may take the
 * next word as its value: each word that can start the command is given (`c8 -r vitest rm x`: `vitest` and `rm`),
 * and each must be judged. A subcommand of the tool itself is no command.
 *
 * @param name  the command's base name; `args` its arguments (undefined for a word that is not fixed text)
 * @returns indexes into `args`, empty when the command is no coverage tool or runs nothing
 */
export function runnerCommandStarts(name: string, args: (string | undefined)[]): number[] {
  let from = -1;
  if (COMMAND_RUNNERS.has(name)) from = 0;
  else if (name === 'npx' || name === 'bunx') {
    const tool = args.findIndex((a) => a === undefined || !a.startsWith('-'));
    if (tool >= 0 && COMMAND_RUNNERS.has(args[tool] ?? '')) from = tool + 1;
  } else if (['npm', 'pnpm', 'yarn', 'bun'].includes(name) && ['exec', 'x'].includes(args[0] ?? '')) {
    if (COMMAND_RUNNERS.has(args[1] ?? '')) from = 2;
  }
  if (from < 0) return [];
  const starts: number[] = [];
  let valueMayFollow = false;
  for (let i = from; i < args.length; i += 1) {
    const word = args[i];
    if (word === '--') {
      if (i + 1 < args.length) starts.push(i + 1);
      break;
    }
    if (word !== undefined && word.startsWith('-')) {
      valueMayFollow = !word.includes('=');
      continue;
    }
    if (!(i === from && RUNNER_SUBCOMMANDS.has(word ?? ''))) starts.push(i);
    if (!valueMayFollow) break;
    valueMayFollow = false;
  }
  return starts;
}

/**
 * Environment variables a test or build line may set without changing what runs (not GOFLAGS: it carries
 * `-toolexec` and `-exec` as well as the command line does).
 */
export const SAFE_ENV = new Set([
  'CI',
  'NODE_ENV',
  'FORCE_COLOR',
  'NO_COLOR',
  'TZ',
  'LANG',
  'LC_ALL',
  'DEBUG',
  'RUST_BACKTRACE',
  'PYTHONDONTWRITEBYTECODE',
  'CGO_ENABLED',
]);
export const SAFE_DEVICES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

/** A judgement of one command or part: AUTO, ASK or REJECT, with a few words why. */
export type Verdict = { level: 0 | 1 | 2; reason: string };
/** Verdict levels, mildest first: the worst level of all parts decides. */
export const AUTO = 0;
export const ASK = 1;
export const REJECT = 2;

/**
 * A git invocation by its global options and subcommand: `-c` and pushes that rewrite history are
 * asked about or refused, subcommands that change repository state or use the network are asked about.
 *
 * @param args  the words after `git` (undefined for a word that is not fixed text)
 */
export function judgeGit(args: (string | undefined)[]): Verdict {
  let i = 0;
  while (i < args.length && (args[i] ?? '').startsWith('-')) {
    const option = args[i] ?? '';
    if (option === '-c' || option === '--config-env')
      return { level: ASK, reason: 'git -c sets configuration (aliases can run commands)' };
    i += ['-C', '--git-dir', '--work-tree', '--namespace', '--exec-path'].includes(option) ? 2 : 1;
  }
  const sub = args[i];
  const rest = args.slice(i + 1);
  if (sub === 'push') {
    if (
      rest.some(
        (a) =>
          a === '-f' ||
          a === '--mirror' ||
          a === '--delete' ||
          a === '-d' ||
          a?.startsWith('--force') ||
          a?.startsWith('+'),
      )
    ) {
      return { level: REJECT, reason: 'git push rewrites or deletes remote history' };
    }
    return { level: ASK, reason: 'git push publishes commits' };
  }
  if (
    [
      'send-email',
      'request-pull',
      'remote',
      'fetch',
      'pull',
      'clone',
      'submodule',
      'config',
      'filter-branch',
      'gc',
      'prune',
      'update-ref',
      'reflog',
      'replace',
      'daemon',
      'instaweb',
    ].includes(sub ?? '')
  ) {
    return { level: ASK, reason: `git ${sub} changes repository state or uses the network` };
  }
  return { level: AUTO, reason: '' };
}

/**
 * The allow-list: local build, test and lint tools.
 *
 * @param name  the command's base name; `args` its fixed-text arguments
 * @returns the reason when listed, else undefined
 */
export function allowListed(name: string, args: string[]): string | undefined {
  const [a0 = '', a1 = ''] = args;
  const runner = new Set(['npm', 'pnpm', 'yarn', 'bun']);
  const tools = new Set([
    'vitest',
    'jest',
    'mocha',
    'ava',
    'tsc',
    'eslint',
    'prettier',
    'biome',
    'oxlint',
    'tsd',
    'c8',
    'nyc',
  ]);
  if (runner.has(name)) {
    if (['test', 't', 'tst'].includes(a0)) return `${name} test runs the project's test script`;
    if (['run', 'run-script'].includes(a0) && /^[\w:.@/-]+$/.test(a1)) return `${name} run ${a1} runs a project script`;
    if (['lint', 'build', 'typecheck', 'format'].includes(a0) && name !== 'npm')
      return `${name} ${a0} runs a project script`;
    if (a0 === 'exec' && tools.has(a1)) return `${name} exec ${a1} is a local build/test tool`;
    return undefined;
  }
  if (
    name === 'npx' &&
    tools.has(args.find((a) => !a.startsWith('-')) ?? '') &&
    !args.some((a) => a === '-p' || a.startsWith('--package'))
  ) {
    return `npx ${args.find((a) => !a.startsWith('-'))} is a local build/test tool`;
  }
  if (
    tools.has(name) ||
    ['pytest', 'mypy', 'ruff', 'black', 'flake8', 'pylint', 'gofmt', 'golint', 'staticcheck', 'rustfmt'].includes(name)
  ) {
    return `${name} is a local build/test tool`;
  }
  // Only the listed modules and options: others run a program or code they are given (tool-options.ts).
  if (PYTHON_NAME.test(name) && a0 === '-m' && PYTHON_TOOL_MODULES.has(a1))
    return `python -m ${a1} is a local test/lint tool`;
  if (name === 'go' && ['test', 'vet', 'build', 'fmt'].includes(a0) && goOptionsKnown(args.slice(1)))
    return `go ${a0} is a local build/test tool`;
  if (
    name === 'cargo' &&
    ['test', 'build', 'check', 'clippy', 'fmt', 'bench', 'doc'].includes(a0) &&
    cargoOptionsKnown(args.slice(1))
  )
    return `cargo ${a0} is a local build/test tool`;
  // make runs the project's own recipes, like npm run; only plain targets (no -f, -C, VAR=) are listed.
  if (name === 'make' && args.every((a) => /^[A-Za-z0-9_.][\w.-]*$/.test(a))) return 'make runs project targets';
  if (
    name === 'git' &&
    ['status', 'diff', 'log', 'show'].includes(a0) &&
    !args.some((a) => /^--(output|ext-diff)/.test(a))
  ) {
    return `git ${a0} only reads`;
  }
  return undefined;
}
