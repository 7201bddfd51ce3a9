/**
 * What the allow-list (utils/shell/rules.ts) admits beyond a tool's name and subcommand: the Python modules run
 * as `python -m <module>`, and the options of `go` and `cargo`. These tools take a program or code to run by
 * option (`go test -exec 'rm -rf src'`, `go build -toolexec`, `go vet -vettool`, `-ldflags=-extld=…`,
 * `cargo --config 'target.….runner="rm -rf src"'`, `python -m timeit '<code>'`), so the list names what is
 * known to run nothing else, and any other module or option leaves the command for a person's yes.
 */

/** Modules `python -m` runs as a local test or lint tool; any other module may run code it is given. */
export const PYTHON_TOOL_MODULES = new Set(['pytest', 'mypy', 'ruff', 'unittest', 'black', 'flake8', 'pylint']);

/** A Python interpreter's own name: `python`, `python3`, `python3.12` (not `python-foo`, another program). */
export const PYTHON_NAME = /^python(\d+(\.\d+)?)?$/;

/** `go test|vet|build|fmt` flags that take no program, code or linker command (the flag's name, one dash). */
const GO_FLAGS = new Set([
  // build flags
  'a',
  'n',
  'p',
  'race',
  'msan',
  'asan',
  'cover',
  'covermode',
  'coverpkg',
  'v',
  'work',
  'x',
  'mod',
  'modcacherw',
  'modfile',
  'tags',
  'trimpath',
  'buildvcs',
  'buildmode',
  'pgo',
  'o',
  // test flags
  'bench',
  'benchmem',
  'benchtime',
  'count',
  'coverprofile',
  'cpu',
  'cpuprofile',
  'failfast',
  'fullpath',
  'json',
  'list',
  'memprofile',
  'blockprofile',
  'mutexprofile',
  'outputdir',
  'parallel',
  'run',
  'short',
  'shuffle',
  'skip',
  'timeout',
  'c',
  'args',
  'fuzz',
  'fuzztime',
  'fuzzminimizetime',
  'trace',
  'memprofilerate',
  'blockprofilerate',
  'mutexprofilefraction',
  // `-vet=off` or a list of the built-in analyzers (the analysis tool itself is -vettool, not listed)
  'vet',
  // gofmt through go fmt
  'l',
  'd',
  's',
  'w',
]);

/** `cargo <subcommand>` options that take no program, configuration or unstable flag (long names, `--`). */
const CARGO_OPTIONS = new Set([
  'release',
  'r',
  'workspace',
  'all',
  'package',
  'p',
  'exclude',
  'lib',
  'bin',
  'bins',
  'test',
  'tests',
  'bench',
  'benches',
  'example',
  'examples',
  'all-targets',
  'doc',
  'features',
  'F',
  'all-features',
  'no-default-features',
  'jobs',
  'j',
  'locked',
  'frozen',
  'offline',
  'quiet',
  'q',
  'verbose',
  'v',
  'vv',
  'no-fail-fast',
  'no-run',
  'target',
  'target-dir',
  'manifest-path',
  'message-format',
  'color',
  'timings',
  'keep-going',
  'profile',
  'check',
  'fix',
  'allow-dirty',
  'allow-staged',
  'no-deps',
  'document-private-items',
]);

/**
 * Whether every option of `go <subcommand> …` is a listed one. Options end at `-args` (the rest goes to the
 * test binary); a value given as the next word is not an option.
 *
 * @param args  the words after `go` and its subcommand, fixed text
 */
export function goOptionsKnown(args: readonly string[]): boolean {
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === '-args' || arg === '--args') return true;
    if (!arg.startsWith('-')) continue;
    const name = arg.replace(/^--?/, '').replace(/=.*$/s, '');
    if (name === 'ldflags') {
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[(i += 1)];
      if (value === undefined || !ldflagsKnown(value)) return false;
    } else if (!GO_FLAGS.has(name)) return false;
  }
  return true;
}

/**
 * Whether a `-ldflags` value only strips the binary or sets a string in it (`-s -w -X main.version=1.2`), as a
 * release build does; other linker flags may name a program to run (`-extld`, `-extldflags`). The value may start
 * with a package pattern and `=` (`all=-s -w`); go splits the rest honouring quotes, so a quote or backslash
 * leaves the command for a person's yes.
 *
 * @param value  the flag's value, fixed text
 */
function ldflagsKnown(value: string): boolean {
  let flags = value.trim();
  if (flags !== '' && !flags.startsWith('-')) flags = flags.slice(flags.indexOf('=') + 1);
  if (/['"\\]/.test(flags)) return false;
  const words = flags.split(/\s+/).filter((w) => w !== '');
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i]!;
    if (word === '-s' || word === '-w' || /^-X=[\w.][\w./-]*=\S*$/.test(word)) continue;
    if (word === '-X' && /^[\w.][\w./-]*=\S*$/.test(words[i + 1] ?? '')) i += 1;
    else return false;
  }
  return true;
}

/**
 * Whether every option of `cargo <subcommand> …` is a listed one. Options end at `--` (the rest goes to the
 * test binary or the tool cargo runs, such as clippy's lint levels).
 *
 * @param args  the words after `cargo` and its subcommand, fixed text
 */
export function cargoOptionsKnown(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === '--') return true;
    if (!arg.startsWith('-')) continue;
    // -p foo, --package=foo, -j4, -vv: the name is the letters before a value
    const name = arg.startsWith('--') ? arg.slice(2).replace(/=.*$/s, '') : arg.slice(1, 2);
    if (!CARGO_OPTIONS.has(arg === '-vv' ? 'vv' : name)) return false;
  }
  return true;
}
