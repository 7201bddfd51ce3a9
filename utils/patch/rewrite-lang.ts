/**
 * The languages codemod rules can rewrite, and which files are in which. The extensions are ast-grep's
 * own (its `SupportLang` extension lists), so a rule covers the files `sg run` would, except `.scss`,
 * which ast-grep reads with the CSS grammar and which mostly fails to parse so. Pure: nothing of
 * ast-grep is loaded here.
 */

/** A language a rule can be written in. The first five are built into @ast-grep/napi. */
export type RewriteLanguage = 'JavaScript' | 'TypeScript' | 'Tsx' | 'Html' | 'Css' | 'Python' | 'Go' | 'Rust';

/** Languages whose grammar comes from an `@ast-grep/lang-*` package, loaded on first use. */
export const DYNAMIC_LANGUAGES: ReadonlySet<RewriteLanguage> = new Set(['Python', 'Go', 'Rust']);

const EXTENSIONS: Readonly<Record<RewriteLanguage, readonly string[]>> = {
  JavaScript: ['js', 'mjs', 'cjs', 'jsx'],
  TypeScript: ['ts', 'mts', 'cts'],
  Tsx: ['tsx'],
  Html: ['html', 'htm', 'xhtml'],
  Css: ['css'],
  Python: ['py', 'py3', 'pyi', 'bzl', 'bazel'],
  Go: ['go'],
  Rust: ['rs'],
};

const BY_EXTENSION = new Map<string, RewriteLanguage>(
  (Object.entries(EXTENSIONS) as [RewriteLanguage, readonly string[]][]).flatMap(([lang, exts]) =>
    exts.map((e) => [e, lang] as const),
  ),
);

/** Names accepted by `--lang` (lower-case), as ast-grep's CLI spells them. */
const ALIASES: Readonly<Record<string, RewriteLanguage>> = {
  javascript: 'JavaScript',
  js: 'JavaScript',
  jsx: 'JavaScript',
  typescript: 'TypeScript',
  ts: 'TypeScript',
  tsx: 'Tsx',
  html: 'Html',
  css: 'Css',
  python: 'Python',
  py: 'Python',
  go: 'Go',
  golang: 'Go',
  rust: 'Rust',
  rs: 'Rust',
};

/**
 * The language of a file, from its extension (case-insensitive).
 * @param path  a path with `/` separators
 * @returns the language, or undefined when no grammar covers the file
 */
export function languageOfPath(path: string): RewriteLanguage | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return undefined;
  return BY_EXTENSION.get(name.slice(dot + 1).toLowerCase());
}

/**
 * A `--lang` value as a language: `ts`, `typescript`, `py`, `rust`... (case-insensitive).
 * @returns the language, or undefined for a name no grammar answers to
 */
export function parseLanguageName(name: string): RewriteLanguage | undefined {
  return ALIASES[name.trim().toLowerCase()];
}

/** Every name `--lang` accepts, for a usage message. */
export function languageNames(): string[] {
  return Object.keys(ALIASES);
}

/** The language as a person reads it: `TypeScript`, `TSX`, `HTML`, `CSS`... */
export function languageLabel(lang: RewriteLanguage): string {
  return lang === 'Tsx' ? 'TSX' : lang === 'Html' ? 'HTML' : lang === 'Css' ? 'CSS' : lang;
}
