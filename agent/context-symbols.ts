import { posix } from 'node:path';

/**
 * Cheap, regex-based symbol and import extraction for ranking (relevance.md §7 items 2 and 6:
 * "regex now, tree-sitter later"). Covers JS/TS, Python and Go well, and common shapes elsewhere.
 */

const DEF_PATTERNS: RegExp[] = [
  // JS/TS functions, classes, consts, types; Rust fn; Kotlin/Swift fun/func
  /^[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?(?:declare[ \t]+)?(?:abstract[ \t]+)?(?:async[ \t]+)?(?:function\*?|class|interface|type|enum|const|let|var|fn|fun|struct|trait|impl|module|namespace)[ \t]+([A-Za-z_$][\w$]*)/gm,
  // Python def/class
  /^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_]\w*)/gm,
  // Go func, method and type
  /^func[ \t]+(?:\([^)]*\)[ \t]*)?([A-Za-z_]\w*)/gm,
  /^type[ \t]+([A-Za-z_]\w*)/gm,
  // JS assignments of functions: app.handle = function, exports.foo = function, Foo.prototype.bar =
  /^[ \t]*(?:[\w$]+\.)+([A-Za-z_$][\w$]*)[ \t]*=[ \t]*(?:async[ \t]+)?(?:function\b|\([^)]*\)[ \t]*=>|[\w$]+[ \t]*=>)/gm,
  // class methods and object-literal methods: `  parseOptions(argv) {`
  /^[ \t]+(?:static[ \t]+|async[ \t]+|get[ \t]+|set[ \t]+|public[ \t]+|private[ \t]+|protected[ \t]+|readonly[ \t]+|override[ \t]+|#)*([A-Za-z_$][\w$]*)[ \t]*(?:<[^>\n]*>)?\([^)\n]*\)?[^;\n]*\{[ \t]*$/gm,
  // `name: function (` and `name = (...) =>` class fields
  /^[ \t]*([A-Za-z_$][\w$]*)[ \t]*[:=][ \t]*(?:async[ \t]+)?(?:function\b|\([^)\n]*\)[ \t]*(?::[^=\n]+)?=>)/gm,
];

const NOT_A_NAME = new Set(['if', 'for', 'while', 'switch', 'catch', 'function', 'return', 'else', 'do', 'try', 'with', 'constructor', 'super', 'new', 'typeof', 'await']);

/**
 * Names of what a text defines: functions, classes, methods, types, top-level constants.
 *
 * @returns distinct names in first-seen order (original case)
 */
export function extractDefinitions(text: string): string[] {
  const out = new Set<string>();
  for (const re of DEF_PATTERNS) {
    re.lastIndex = 0;
    for (const m of text.matchAll(re)) {
      const name = m[1];
      if (name && name.length >= 2 && !NOT_A_NAME.has(name)) out.add(name);
    }
  }
  return [...out];
}

const IMPORT_PATTERNS: RegExp[] = [
  /\bfrom[ \t]+['"]([^'"\n]+)['"]/g,
  /\bimport[ \t]+['"]([^'"\n]+)['"]/g,
  /\brequire\([ \t]*['"]([^'"\n]+)['"][ \t]*\)/g,
  /\bimport\([ \t]*['"]([^'"\n]+)['"][ \t]*\)/g,
  /^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import\b/gm,
  /^[ \t]*import[ \t]+([\w.]+)(?:[ \t]+as[ \t]+\w+)?[ \t]*$/gm,
];

/**
 * Module specifiers a file imports (JS/TS `import`/`require`, Python `import`/`from … import`).
 * Only specifiers that can name a project file are kept: relative ones and dotted Python modules.
 */
export function extractImports(text: string): string[] {
  const out = new Set<string>();
  for (const re of IMPORT_PATTERNS) {
    re.lastIndex = 0;
    for (const m of text.matchAll(re)) {
      const spec = m[1];
      if (spec && (spec.startsWith('.') || /^[A-Za-z_][\w.]*$/.test(spec))) out.add(spec);
    }
  }
  return [...out];
}

const JS_EXT = ['', '.ts', '.tsx', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts', '.json'];

/**
 * Resolve an import specifier of `fromPath` to project files.
 *
 * @param files  the set of project-relative paths
 * @returns matching project paths (0 or more): JS extension/index resolution (and `.js` → `.ts`),
 *          Python relative and absolute modules resolved by path suffix
 */
export function resolveImport(spec: string, fromPath: string, files: ReadonlySet<string>, bySuffix: (suffix: string) => string[]): string[] {
  const dir = posix.dirname(fromPath);
  if (spec.startsWith('./') || spec.startsWith('../')) {
    const base = posix.normalize(posix.join(dir, spec));
    const stems = [base, base.replace(/\.(m|c)?js$/, '')];
    for (const stem of stems) {
      for (const ext of JS_EXT) if (files.has(stem + ext)) return [stem + ext];
      for (const ext of JS_EXT.slice(1)) if (files.has(`${stem}/index${ext}`)) return [`${stem}/index${ext}`];
    }
    return [];
  }
  // Python: leading dots climb from the importing package; otherwise a dotted absolute module.
  const dots = /^\.*/.exec(spec)?.[0].length ?? 0;
  const modPath = spec.slice(dots).split('.').filter((s) => s !== '').join('/');
  if (dots > 0) {
    let pkg = dir;
    for (let i = 1; i < dots; i++) pkg = posix.dirname(pkg);
    const base = modPath === '' ? pkg : posix.join(pkg, modPath);
    return [`${base}.py`, `${base}/__init__.py`].filter((p) => files.has(p));
  }
  if (modPath === '') return [];
  return [...bySuffix(`${modPath}.py`), ...bySuffix(`${modPath}/__init__.py`)].slice(0, 2);
}
