import { isAbsolute, relative, resolve, sep } from 'node:path';

/** The verdict on one shell command from a plan. */
export interface CommandSafety {
  /** true when the command must be confirmed on its own, even with `--run-commands` */
  destructive: boolean;
  /** why, in a few words, e.g. "deletes files outside build folders"; set when destructive */
  reason?: string;
}

/**
 * Folders a plan may wipe recursively without a separate confirmation: build outputs and caches
 * that the project's own tooling regenerates.
 */
export const BUILD_FOLDERS: readonly string[] = [
  'dist',
  'build',
  'out',
  'target',
  'coverage',
  'node_modules',
  '.cache',
  '.next',
  '.nuxt',
  '.turbo',
  '.parcel-cache',
  '.svelte-kit',
  '.output',
  '.vite',
  '.pytest_cache',
  '__pycache__',
  '.mypy_cache',
  '.gradle',
  'tmp',
  '.tmp',
  'lib-cov',
  '.nyc_output',
  'storybook-static',
];

const SHELLS = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'fish',
  'ash',
  'python',
  'python3',
  'perl',
  'ruby',
  'node',
]);
const PREFIXES = new Set(['env', 'command', 'exec', 'nohup', 'time', 'nice', 'xargs', 'builtin']);
const SAFE_DEVICES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);
const WRITERS = new Set([
  'tee',
  'touch',
  'mkdir',
  'rmdir',
  'truncate',
  'chmod',
  'chown',
  'chgrp',
  'shred',
  'unlink',
  'rm',
]);
const COPIERS = new Set(['cp', 'mv', 'ln', 'install', 'rsync', 'scp']);

interface Segment {
  words: string[];
  redirects: string[];
  /** true when this command reads the previous one's output through `|` */
  piped: boolean;
}

/**
 * Decide whether a plan command is destructive. Rules: `rm -r` of anything but a build
 * folder inside the root; `git reset --hard`; `git clean`; `git push --force`/`-f`/`+ref`; a download
 * (curl, wget) piped or substituted into a shell; `sudo`/`doas`/`su`; writes outside the root
 * (redirections, tee, cp/mv/ln targets, touch, mkdir, chmod..., `cd` out of the root) through
 * absolute paths, `..`, `~` or `$HOME`; `mkfs`; `dd of=`; `chmod`/`chown -R` on `/`; power commands.
 * Commands inside `$(...)`, backticks, `<(...)` and `sh -c '...'` are checked too.
 * A heuristic over a small shell tokenizer, not a shell parser: when unsure it says destructive.
 *
 * @param command  one shell command line as the plan gives it
 * @param rootDir  the project root; paths resolving inside it are allowed
 */
export function classifyCommand(command: string, rootDir: string): CommandSafety {
  const root = resolve(rootDir);
  const nested = [...command.matchAll(/\$\(([^()]*)\)|`([^`]*)`|<\(([^()]*)\)/g)].map(
    (m) => m[1] ?? m[2] ?? m[3] ?? '',
  );
  for (const inner of nested) {
    const verdict = classifyCommand(inner, rootDir);
    if (verdict.destructive) return verdict;
  }
  const segments = tokenize(command);
  const nestedDownload = nested.some((inner) => /\b(curl|wget)\b/.test(inner));
  if (nestedDownload && segments.some((s) => SHELLS.has(commandName(s.words)))) {
    return { destructive: true, reason: 'runs a downloaded script in a shell' };
  }
  let previousDownloads = false;
  for (const segment of segments) {
    const verdict = classifySegment(segment, root, previousDownloads);
    if (verdict.destructive) return verdict;
    previousDownloads = (segment.piped && previousDownloads) || ['curl', 'wget'].includes(commandName(segment.words));
  }
  return { destructive: false };
}

function classifySegment(segment: Segment, root: string, afterDownload: boolean): CommandSafety {
  const words = stripPrefixes(segment.words);
  const name = commandName(words);
  const args = words.slice(1);
  const fromXargs = segment.words.includes('xargs');
  for (const target of segment.redirects) {
    if (isOutside(target, root)) return { destructive: true, reason: `writes outside the project (${target})` };
  }
  if (name === '') return { destructive: false };
  if (segment.piped && afterDownload && (SHELLS.has(name) || name === 'sudo')) {
    return { destructive: true, reason: 'pipes a download into a shell' };
  }
  if (['sudo', 'doas', 'su', 'pkexec'].includes(name))
    return { destructive: true, reason: `runs as another user (${name})` };
  if (name.startsWith('mkfs') || name === 'fdisk' || name === 'parted' || name === 'wipefs') {
    return { destructive: true, reason: `formats or partitions a disk (${name})` };
  }
  if (['shutdown', 'reboot', 'halt', 'poweroff'].includes(name))
    return { destructive: true, reason: `stops the machine (${name})` };
  if (name === 'dd' && args.some((a) => a.startsWith('of=')))
    return { destructive: true, reason: 'dd writes raw bytes to a file or device' };
  if (SHELLS.has(name) && args[0] === '-c' && args[1] !== undefined) {
    const inner = classifyCommand(args[1], root);
    if (inner.destructive) return inner;
  }
  if (name === 'git') return classifyGit(args, root);
  if (isGlobalInstall(name, args))
    return { destructive: true, reason: `installs packages outside the project (${name} global)` };
  const recursive = args.some((a) => a === '--recursive' || /^-[a-zA-Z]*[rR]/.test(a));
  const paths = args.filter((a) => !a.startsWith('-'));
  if (
    (name === 'chmod' || name === 'chown' || name === 'chgrp') &&
    recursive &&
    paths.some((p) => p === '/' || p === '/*')
  ) {
    return { destructive: true, reason: `${name} -R on /` };
  }
  if (name === 'rm' && recursive && fromXargs)
    return { destructive: true, reason: 'deletes paths read from input recursively' };
  if (name === 'rm' && recursive) {
    const unsafe = paths.find((p) => !isBuildFolderPath(p, root));
    if (unsafe !== undefined)
      return { destructive: true, reason: `deletes ${unsafe} recursively (outside build folders)` };
  }
  if (name === 'cd' && paths[0] !== undefined && isOutside(paths[0], root)) {
    return { destructive: true, reason: `changes into ${paths[0]}, outside the project` };
  }
  const written = WRITERS.has(name)
    ? paths
    : COPIERS.has(name)
      ? paths.slice(-1)
      : name === 'find' && args.includes('-delete')
        ? paths.slice(0, 1)
        : name === 'curl' || name === 'wget'
          ? optionValues(args, ['-o', '--output', '-O', '--output-document', '-P', '--directory-prefix'])
          : [];
  const outside = written.find((p) => isOutside(p, root));
  if (outside !== undefined) return { destructive: true, reason: `writes outside the project (${outside})` };
  return { destructive: false };
}

function classifyGit(args: string[], root: string): CommandSafety {
  // Global options before the subcommand; -C/--git-dir/--work-tree point git somewhere else.
  let i = 0;
  while (i < args.length && (args[i] ?? '').startsWith('-')) {
    const option = args[i] ?? '';
    if (['-C', '-c', '--git-dir', '--work-tree', '--namespace'].includes(option)) {
      const value = args[i + 1] ?? '';
      if (option !== '-c' && option !== '--namespace' && isOutside(value, root)) {
        return { destructive: true, reason: `runs git on ${value}, outside the project` };
      }
      i += 2;
    } else {
      if (/^--(git-dir|work-tree)=/.test(option) && isOutside(option.slice(option.indexOf('=') + 1), root)) {
        return { destructive: true, reason: `runs git on ${option}, outside the project` };
      }
      i += 1;
    }
  }
  const sub = args[i];
  const rest = args.slice(i + 1);
  if (sub === 'reset' && rest.includes('--hard'))
    return { destructive: true, reason: 'git reset --hard discards uncommitted work' };
  if (sub === 'clean') return { destructive: true, reason: 'git clean deletes untracked files' };
  if (
    sub === 'push' &&
    rest.some((a) => a === '-f' || a.startsWith('--force') || /^-[a-zA-Z]*f/.test(a) || a.startsWith('+'))
  ) {
    return { destructive: true, reason: 'git push --force rewrites remote history' };
  }
  if ((sub === 'checkout' || sub === 'restore') && rest.includes('.')) {
    return { destructive: true, reason: `git ${sub} . discards uncommitted changes` };
  }
  return { destructive: false };
}

/** True when a path argument may point outside the root (absolute, `..`, home or a variable). */
function isOutside(path: string, root: string): boolean {
  if (SAFE_DEVICES.has(path) || /^&\d$/.test(path)) return false;
  if (path.startsWith('~') || /\$\{?HOME\b/.test(path)) return true;
  if (path.startsWith('$')) return true; // unknown variable: cannot tell where it points
  const abs = isAbsolute(path) ? resolve(path) : resolve(root, path);
  const rel = relative(root, abs);
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

function isBuildFolderPath(path: string, root: string): boolean {
  if (isOutside(path, root)) return false;
  const rel = relative(root, isAbsolute(path) ? resolve(path) : resolve(root, path));
  const parts = rel.split(sep);
  const index = parts.findIndex((p) => BUILD_FOLDERS.includes(p));
  // A glob before the build folder (`*/dist`) could match anything; one after it (`dist/*`) is fine.
  return index >= 0 && !parts.slice(0, index).some((p) => /[*?[]/.test(p));
}

/** `npm i -g`, `yarn global add`, `pnpm add -g`, `pip install` outside a virtualenv is not judged. */
function isGlobalInstall(name: string, args: string[]): boolean {
  const global = args.includes('-g') || args.includes('--global') || args.includes('--location=global');
  if ((name === 'npm' || name === 'pnpm') && global) return true;
  return name === 'yarn' && args[0] === 'global';
}

/** The values given to any of `options` (`-o file`, `--output=file`). */
function optionValues(args: string[], options: string[]): string[] {
  const values: string[] = [];
  args.forEach((arg, i) => {
    if (options.includes(arg) && args[i + 1] !== undefined) values.push(args[i + 1] ?? '');
    const eq = arg.indexOf('=');
    if (eq > 0 && options.includes(arg.slice(0, eq))) values.push(arg.slice(eq + 1));
  });
  return values;
}

/** Drop `FOO=1`, `env`, `nice -n 5`, `xargs -0` and the like in front of the real command. */
function stripPrefixes(words: string[]): string[] {
  let i = 0;
  while (i < words.length) {
    const word = words[i] ?? '';
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
      i += 1;
    } else if (PREFIXES.has(word)) {
      i += 1;
      // The prefix's own options (and a numeric value such as nice's priority) are not the command.
      while (i < words.length && (/^-/.test(words[i] ?? '') || /^-?\d+$/.test(words[i] ?? ''))) {
        const option = words[i] ?? '';
        i += 1;
        if (['-n', '-I', '-L', '-P', '-u', '-d', '-s'].includes(option) && i < words.length) i += 1;
      }
    } else {
      break;
    }
  }
  return words.slice(i);
}

function commandName(words: string[]): string {
  const first = stripPrefixes(words)[0] ?? '';
  return first.slice(first.lastIndexOf('/') + 1);
}

/**
 * Split a command line into simple commands at `;`, `&&`, `||`, `|`, `&` and newlines, honouring
 * quotes and backslashes; redirection targets (`>`, `>>`, `2>`, `&>`, `>|`) are collected apart.
 */
function tokenize(line: string): Segment[] {
  const segments: Segment[] = [];
  let current: Segment = { words: [], redirects: [], piped: false };
  let word = '';
  let inWord = false;
  let redirectNext = false;
  const endWord = (): void => {
    if (!inWord) return;
    if (redirectNext) current.redirects.push(word);
    else current.words.push(word);
    word = '';
    inWord = false;
    redirectNext = false;
  };
  const endSegment = (piped: boolean): void => {
    endWord();
    segments.push(current);
    current = { words: [], redirects: [], piped };
  };
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i] ?? '';
    if (c === "'" || c === '"') {
      const close = line.indexOf(c, i + 1);
      const end = close === -1 ? line.length : close;
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[i + 1];
      inWord = true;
      i += 1;
    } else if (c === ' ' || c === '\t') {
      endWord();
    } else if (c === ';' || c === '\n') {
      endSegment(false);
    } else if (c === '|' || c === '&') {
      const double = line[i + 1] === c;
      if (c === '&' && line[i + 1] === '>') {
        endWord();
        redirectNext = true;
        i += line[i + 2] === '>' ? 2 : 1;
        continue;
      }
      endSegment(c === '|' && !double);
      if (double) i += 1;
    } else if (c === '>' || c === '<') {
      // `2>` and `>&2`: a digit before belongs to the operator; `&N` after is a descriptor, not a file.
      if (inWord && /^\d$/.test(word)) {
        word = '';
        inWord = false;
      }
      endWord();
      if (c === '>') redirectNext = true;
      while (line[i + 1] === '>' || line[i + 1] === '|') i += 1;
      if (line[i + 1] === '&') {
        i += 1;
        while (/\d|-/.test(line[i + 1] ?? '')) i += 1;
        redirectNext = false;
      }
    } else {
      word += c;
      inWord = true;
    }
  }
  endSegment(false);
  return segments.filter((s) => s.words.length > 0 || s.redirects.length > 0);
}
