/**
 * Candidate codemod rules for one commit, read off its changed lines (for `bench/mine-codemods.ts`). A
 * candidate is only a guess: the miner keeps a commit when one candidate, applied over a pathspec,
 * reproduces the commit exactly. Three families, the mechanical changes the codemod benchmark is about:
 * - `rename`: one identifier replaced by another (`X` → `Y`, as a name, a member `$O.X`, or a callee);
 * - `import-move`: one module specifier of an import line replaced (a module moved), as `'./a'` → `'./b'`,
 *   or any guess of a commit whose changed lines are all imports;
 * - `call-shape`: one call rewritten with its unchanged arguments kept (`f($A)` → `g($A, { c: 1 })`).
 */

/** A rule as a plan holds it, minus the pathspec. */
export interface RuleGuess {
  kind: 'rename' | 'import-move' | 'call-shape';
  find: string;
  replace: string;
}

const TOKEN = /'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`|[A-Za-z_$][\w$]*|\d[\w.]*|\s+|./g;
const IDENT = /^[A-Za-z_][\w$]*$/;
const STRING = /^(['"]).*\1$/;
/** What a module specifier looks like: no spaces, and a path (`./a`, `@s/p`, `a/b`, `github.com/x/y`) or a scheme (`node:fs`). */
const MODULE = /^(?=[.@]|[\w.-]+[:/])[\w@.:/-]+$/;
/** A line that imports and does nothing else: ES `import`/`export … from`, `require`, Python, Go and Rust imports. */
const IMPORT_LINE =
  /^\s*(?:import\b|export\b.*\bfrom\s*['"]|(?:const|let|var)\s.*=\s*require\(|from\s+[\w.]+\s+import\b|(?:pub\s+)?use\s|"[^"\s]+"\s*$|\w+\s+"[^"\s]+"\s*$)/;

/**
 * Whether a commit's changed lines are all imports (Go's lines inside `import ( … )` included): its rule
 * moves a module, whichever family guessed it (a Python `from a.b import c` → `from a.d import c` is
 * reproduced by renaming `b`).
 */
export function importsOnly(lines: readonly string[]): boolean {
  return lines.length > 0 && lines.every((l) => IMPORT_LINE.test(l));
}

/** The tokens of a line, with their offsets. */
function tokens(line: string): { text: string; start: number }[] {
  return [...line.matchAll(TOKEN)].map((m) => ({ text: m[0], start: m.index }));
}

/**
 * The changed middle of two versions of a line, widened to whole tokens on both sides.
 * @returns the old and new middle texts and the offset where they start (the same in both lines)
 */
export function changedMiddle(before: string, after: string): { old: string; new: string; at: number } | undefined {
  if (before === after) return undefined;
  const a = tokens(before);
  const b = tokens(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head]!.text === b[head]!.text) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail]!.text === b[b.length - 1 - tail]!.text
  )
    tail++;
  const old = a.slice(head, a.length - tail).map((t) => t.text);
  const neu = b.slice(head, b.length - tail).map((t) => t.text);
  const at = head < a.length ? a[head]!.start : before.length;
  return { old: old.join(''), new: neu.join(''), at };
}

/**
 * Guesses from one changed line (the old and new text of a line the commit modified in place).
 * @returns candidate rules, most specific last
 */
export function guessesFromLine(before: string, after: string): RuleGuess[] {
  const mid = changedMiddle(before, after);
  if (!mid) return [];
  const out: RuleGuess[] = [];
  if (IDENT.test(mid.old) && IDENT.test(mid.new)) {
    out.push({ kind: 'rename', find: mid.old, replace: mid.new });
    out.push({ kind: 'rename', find: `$OBJ.${mid.old}`, replace: `$OBJ.${mid.new}` });
    out.push({ kind: 'rename', find: `${mid.old}($$$ARGS)`, replace: `${mid.new}($$$ARGS)` });
  }
  if (
    IMPORT_LINE.test(before) &&
    STRING.test(mid.old) &&
    STRING.test(mid.new) &&
    MODULE.test(mid.old.slice(1, -1)) &&
    MODULE.test(mid.new.slice(1, -1))
  )
    out.push({ kind: 'import-move', find: mid.old, replace: mid.new });
  const call = callAround(before, after, mid.at, mid.at + mid.old.length);
  if (call) out.push(...generaliseCall(call.old, call.new));
  return out;
}

/** The innermost call `callee(...)` of `before` around [from, to), and the call at the same place in `after`. */
function callAround(before: string, after: string, from: number, to: number) {
  for (let open = before.lastIndexOf('(', from); open > 0; open = before.lastIndexOf('(', open - 1)) {
    const close = matchParen(before, open);
    if (close === -1 || close < to) continue;
    const callee = /[A-Za-z_$][\w$.]*$/.exec(before.slice(0, open));
    if (!callee) continue;
    const start = open - callee[0].length;
    // The call starts in the unchanged head of the line: it starts at the same offset in `after`.
    if (start > from) continue;
    const openAfter = after.indexOf('(', start);
    if (openAfter === -1) return undefined;
    const closeAfter = matchParen(after, openAfter);
    if (closeAfter === -1) return undefined;
    return { old: before.slice(start, close + 1), new: after.slice(start, closeAfter + 1) };
  }
  return undefined;
}

/** Offset of the `)` closing the `(` at `open`, skipping strings; -1 when the line ends first. */
function matchParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" || c === '"' || c === '`') {
      const end = text.indexOf(c, i + 1);
      if (end === -1) return -1;
      i = end;
    } else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) return c === ')' ? i : -1;
    }
  }
  return -1;
}

/** Top-level comma-separated parts of a call's argument list. */
function splitArgs(call: string): { callee: string; args: string[] } {
  const open = call.indexOf('(');
  const inner = call.slice(open + 1, -1);
  const args: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]!;
    if (c === "'" || c === '"' || c === '`') i = Math.max(i, inner.indexOf(c, i + 1));
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (c === ',' && depth === 0) {
      args.push(inner.slice(from, i).trim());
      from = i + 1;
    }
  }
  if (inner.trim() !== '') args.push(inner.slice(from).trim());
  return { callee: call.slice(0, open), args };
}

const NAMES = ['A', 'B', 'C', 'D', 'E', 'F'];

/**
 * Rules that turn one call into another, keeping each argument the new call still has as a metavariable
 * (and the receiver of a method call when it is unchanged): the shape of the change, not its sites.
 */
export function generaliseCall(before: string, after: string): RuleGuess[] {
  const a = splitArgs(before);
  const b = splitArgs(after);
  if (a.args.length > NAMES.length) return [];
  const out: RuleGuess[] = [];
  const vars = new Map<string, string>();
  a.args.forEach((arg, i) => {
    if (b.args.includes(arg) && !vars.has(arg)) vars.set(arg, `$${NAMES[i]}`);
  });
  const shape = (callee: string, args: string[]) => `${callee}(${args.map((x) => vars.get(x) ?? x).join(', ')})`;
  const find = shape(a.callee, a.args);
  const replace = shape(b.callee, b.args);
  if (find !== replace && vars.size > 0) out.push({ kind: 'call-shape', find, replace });
  // An unchanged receiver becomes a metavariable too: `$OBJ.get($A)` → `$OBJ.fetch($A)`.
  const dot = a.callee.lastIndexOf('.');
  if (dot > 0 && b.callee.startsWith(a.callee.slice(0, dot + 1))) {
    const recv = a.callee.slice(0, dot);
    const f = shape(`$OBJ${a.callee.slice(dot)}`, a.args);
    const r = shape(`$OBJ${b.callee.slice(recv.length)}`, b.args);
    if (f !== r) out.push({ kind: 'call-shape', find: f, replace: r });
  }
  // Every argument kept in order at the start: `f($$$ARGS)` → `g($$$ARGS, x)`.
  if (a.args.length > 0 && a.args.every((x, i) => b.args[i] === x)) {
    const rest = b.args.slice(a.args.length);
    const tail = rest.length > 0 ? `, ${rest.join(', ')}` : '';
    out.push({ kind: 'call-shape', find: `${a.callee}($$$ARGS)`, replace: `${b.callee}($$$ARGS${tail})` });
  }
  return out;
}

/**
 * Pathspecs for a commit's changed files, narrowest first: `DIR/**\/*.EXT` for the folder they all sit in
 * (when they share one), then `**\/*.EXT` over the project. Git pathspecs with glob magic.
 */
export function pathspecsFor(changed: readonly string[]): string[] {
  const exts = new Set(changed.map((p) => p.slice(p.lastIndexOf('.') + 1)));
  if (exts.size !== 1) return [];
  const ext = [...exts][0]!;
  const out: string[] = [];
  const top = new Set(changed.map((p) => (p.includes('/') ? p.slice(0, p.indexOf('/')) : '')));
  const dir = [...top][0];
  if (top.size === 1 && dir) out.push(`${dir}/**/*.${ext}`);
  out.push(`**/*.${ext}`);
  return out;
}

/** Whether a path matches a glob-magic pathspec (`**\/` any folders, `*` and `?` within one name). */
export function globMatches(spec: string, path: string): boolean {
  let re = '';
  for (let i = 0; i < spec.length; i++) {
    const c = spec[i]!;
    if (spec.startsWith('**/', i)) {
      re += '(?:.*/)?';
      i += 2;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`).test(path);
}
