/**
 * Rewrite templates of codemod rules (`operation: "rewrite"`): a template split at its metavariables
 * (utils/rule-vars.ts) and expanded for one match. Pure string work, no parser: the engine
 * (utils/patch/rewrite.ts) hands in where each metavariable matched.
 *
 * The expansion follows ast-grep's own fixer (`crates/core/src/replacer/template.rs` and `indent.rs` of
 * ast-grep 0.4x) so a rule rewrites byte for byte as `sg run -p P -r T -U` does: a multi-line capture keeps
 * its indentation relative to its first line and takes the indentation of its place in the template, and
 * the whole replacement takes the indentation of the matched node's line. Only spaces count as indentation
 * (a tab resets it, as there).
 */

import { metaVarAt, type MetaVar } from '../rule-vars.js';

/** Where a metavariable matched in the file: UTF-16 offsets `[start, end)` of the source text. */
export interface Capture {
  start: number;
  end: number;
}

/** A template split at its metavariables: `fragments.length === vars.length + 1`. */
export interface CompiledTemplate {
  fragments: string[];
  /** each variable with the indentation (spaces) of its line in the template */
  vars: (MetaVar & { indent: number })[];
}

/** How far back the indentation of a position is looked for (ast-grep's `MAX_LOOK_AHEAD`), in code units. */
const MAX_LOOK_BACK = 512;

/**
 * Compile a template (ast-grep's `create_template`): split it at every `$NAME`, `$$NAME` and `$$$NAME`.
 * A `$` with no name after it is literal text.
 */
export function compileTemplate(template: string): CompiledTemplate {
  const fragments: string[] = [];
  const vars: CompiledTemplate['vars'] = [];
  let from = 0;
  let at = template.indexOf('$');
  while (at !== -1) {
    const found = metaVarAt(template, at);
    if (!found) {
      at = template.indexOf('$', at + 1);
      continue;
    }
    fragments.push(template.slice(from, at));
    vars.push({ ...found.v, indent: indentAt(template, at) });
    from = at + found.length;
    at = template.indexOf('$', from);
  }
  fragments.push(template.slice(from));
  return { fragments, vars };
}

/**
 * Expand a compiled template for one match.
 *
 * @param template    from `compileTemplate`
 * @param source      the whole file text the match was found in
 * @param matchStart  UTF-16 offset where the matched node starts (its line's indentation is the replacement's)
 * @param lookup      where a metavariable matched; undefined when it matched nothing (an empty `$$$` run)
 * @returns the text to write in place of the matched node
 */
export function expandTemplate(
  template: CompiledTemplate,
  source: string,
  matchStart: number,
  lookup: (v: MetaVar) => Capture | undefined,
): string {
  let out = template.fragments[0] ?? '';
  template.vars.forEach((v, i) => {
    const at = lookup(v);
    if (at) {
      const text = source.slice(at.start, at.end);
      // A one-line capture is inserted as is; a multi-line one moves from its own line's indentation to its place's.
      out += text.includes('\n') ? reindent(text, indentAt(source, at.start), v.indent) : text;
    }
    out += template.fragments[i + 1] ?? '';
  });
  return reindent(out, 0, indentAt(source, matchStart));
}

/**
 * Move every line but the first from indentation `from` to `to` (spaces): add the missing spaces to each
 * line, blank ones included, or strip the extra ones where a line has them (ast-grep's `indent_lines`).
 */
function reindent(text: string, from: number, to: number): string {
  if (from === to || !text.includes('\n')) return text;
  const lines = text.split('\n');
  if (from < to) {
    const pad = ' '.repeat(to - from);
    return lines.map((line, i) => (i === 0 ? line : pad + line)).join('\n');
  }
  const cut = ' '.repeat(from - to);
  return lines.map((line) => (line.startsWith(cut) ? line.slice(cut.length) : line)).join('\n');
}

/**
 * The indentation (leading spaces) of the line `offset` sits on, counting only up to `offset`
 * (ast-grep's `get_indent_at_offset`): 0 when a non-space character comes first, or when no line start
 * is found in the 512 code units before `offset` (a very long line) and the text does not begin there.
 */
export function indentAt(text: string, offset: number): number {
  const from = Math.max(0, offset - MAX_LOOK_BACK);
  let indent = 0;
  for (let i = offset - 1; i >= from; i--) {
    const c = text[i];
    if (c === '\n') return indent;
    indent = c === ' ' ? indent + 1 : 0;
  }
  return from === 0 ? indent : 0;
}
