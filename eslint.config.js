// Lint: a small rule set (no floating promises, no unused variables, `import type` for types) and the floors.
// Floors, ground first: utils < memory < llm < config < agent < cli < ui. A file imports only its own
// floor or lower ones; tests/ and bench/ may import anything. Dynamic `import()` is not checked: the one
// upward reference, cli/ loading the Ink TUI lazily, is deliberate.
// Inside a floor, its rooms: utils/ holds the ground files and five engines (git < policy < journal and
// shell; patch stands alone on the ground files); cli/console/ is the console ground of cli/.
import tseslint from 'typescript-eslint';

const FLOORS = ['utils', 'memory', 'llm', 'config', 'agent', 'cli', 'ui'];

/** Import patterns (gitignore syntax, matched against the specifier) that a floor may not use. */
function above(floor) {
  const higher = FLOORS.slice(FLOORS.indexOf(floor) + 1);
  const patterns = higher.map((name) => `**/${name}/**`);
  // The entry points sit above every floor: cli.ts (cli) and index.ts (the library, over agent).
  if (FLOORS.indexOf(floor) < FLOORS.indexOf('cli')) patterns.push('**/cli.js');
  return patterns;
}

const FLOOR_MESSAGE = (floor) =>
  `${floor}/ may import only its own floor or lower ones (utils < memory < llm < config < agent < cli < ui).`;

/**
 * The rooms inside a floor and the sibling rooms each may not import, as [folder, [forbidden rooms], why].
 * A file matched by a room gets the floor's patterns and the room's together (a later flat-config entry for
 * the same rule replaces the earlier one).
 */
const ROOMS = [
  ['utils', ['patch', 'journal', 'policy', 'shell', 'git'], 'the ground files of utils/ import no engine of utils/'],
  ['utils/git', ['patch', 'journal', 'policy', 'shell'], 'utils/git/ imports only the ground files of utils/'],
  ['utils/policy', ['patch', 'journal', 'shell'], 'utils/policy/ imports the ground files and utils/git/ only'],
  ['utils/patch', ['journal', 'policy', 'shell', 'git'], 'utils/patch/ imports only the ground files of utils/'],
  ['utils/journal', ['patch', 'shell'], 'utils/journal/ imports the ground files, utils/git/ and utils/policy/ only'],
  ['utils/shell', ['patch', 'journal'], 'utils/shell/ imports the ground files, utils/git/ and utils/policy/ only'],
  [
    'cli/console',
    ['task', 'wide', 'config', 'commands', 'interactive'],
    'cli/console/ is the console ground of cli/: it imports no other part of cli/',
  ],
];

function restrict(groups) {
  return { 'no-restricted-imports': ['error', { patterns: groups }] };
}

function floorRule(floor) {
  return {
    files: [`${floor}/**/*.{ts,tsx}`],
    rules: restrict([{ group: above(floor), message: FLOOR_MESSAGE(floor) }]),
  };
}

function roomRule([folder, forbidden, message]) {
  const floor = folder.split('/')[0];
  // The ground files of utils/ are the files directly in it; utils/patch.ts is the patch engine's entry.
  const files = folder === 'utils' ? ['utils/*.ts'] : [`${folder}/**/*.{ts,tsx}`];
  return {
    files,
    ignores: folder === 'utils' ? ['utils/patch.ts'] : [],
    rules: restrict([
      { group: above(floor), message: FLOOR_MESSAGE(floor) },
      { group: forbidden.map((room) => `**/${room}/**`), message },
    ]),
  };
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/.cache/**'] },
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { project: './tsconfig.eslint.json', tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
    },
  },
  ...FLOORS.filter((floor) => floor !== 'ui').map(floorRule),
  ...ROOMS.map(roomRule),
  {
    // Node's recursive mkdir retries forever where mkdir answers ENOENT under a folder that exists (a home under
    // /proc), in a worker SIGTERM cannot stop: production code makes folders with utils/make-dirs.ts.
    files: FLOORS.map((floor) => `${floor}/**/*.{ts,tsx}`).concat(['cli.ts', 'index.ts']),
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.name=/^mkdir(Sync)?$/] Property[key.name='recursive']",
          message: 'Use makeDirs/makeDirsSync (utils/make-dirs.ts): recursive mkdir can loop forever.',
        },
      ],
    },
  },
);
