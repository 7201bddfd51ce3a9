// Lint: a small rule set (no floating promises, no unused variables, `import type` for types) and the floors.
// Floors, ground first: utils < memory < llm < config < agent < cli < ui. A file imports only its own
// floor or lower ones; tests/ and bench/ may import anything. Dynamic `import()` is not checked: the one
// upward reference, cli/ loading the Ink TUI lazily, is deliberate.
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

function floorRule(floor) {
  return {
    files: [`${floor}/**/*.{ts,tsx}`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: above(floor),
              message: `${floor}/ may import only its own floor or lower ones (utils < memory < llm < config < agent < cli < ui).`,
            },
          ],
        },
      ],
    },
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
);
