/**
 * The metavariables of codemod rules (`operation: "rewrite"`): `$NAME` stands for one node, `$$$NAME` for a
 * run of nodes, as in ast-grep (names are capitals, digits and `_`). On the ground floor because a plan is
 * validated here (utils/plan.ts): a template may use only what its pattern captures. Pure string work.
 */

/** One metavariable of a pattern or template: `$NAME` (one node) or `$$$NAME` (a run of nodes). */
export interface MetaVar {
  name: string;
  multi: boolean;
}

/**
 * The metavariable starting at `text[at]` (a `$`): `$$$NAME` is a run, `$NAME` and `$$NAME` one node
 * (ast-grep's `split_first_meta_var`).
 * @returns the variable and the characters it spans, or undefined when no name follows
 */
export function metaVarAt(text: string, at: number): { v: MetaVar; length: number } | undefined {
  let dollars = 1;
  while (dollars < 3 && text[at + dollars] === '$') dollars++;
  let end = at + dollars;
  while (isVarChar(text[end])) end++;
  if (end === at + dollars) return undefined;
  return { v: { name: text.slice(at + dollars, end), multi: dollars === 3 }, length: end - at };
}

const isVarChar = (c: string | undefined): boolean => c !== undefined && /[A-Z0-9_]/.test(c);

/** Every metavariable of `text` in order, repeats included. */
function varsOf(text: string): MetaVar[] {
  const out: MetaVar[] = [];
  for (let at = text.indexOf('$'); at !== -1;) {
    const found = metaVarAt(text, at);
    if (!found) {
      at = text.indexOf('$', at + 1);
      continue;
    }
    out.push(found.v);
    at = text.indexOf('$', at + found.length);
  }
  return out;
}

/**
 * The metavariables a pattern captures. `$_`, `$_NAME` and a bare `$$$` match without capturing, as in
 * ast-grep, so they are not listed.
 */
export function capturedVars(pattern: string): MetaVar[] {
  const out: MetaVar[] = [];
  for (const v of varsOf(pattern)) {
    if (!v.name.startsWith('_') && !out.some((o) => o.name === v.name && o.multi === v.multi)) out.push(v);
  }
  return out;
}

/**
 * Check that every metavariable a template uses is captured by the pattern, with the same arity. ast-grep
 * would write nothing for a variable it never captured (and `$1` in a template is such a variable), so a
 * rule that uses one is a mistake, refused before anything runs.
 *
 * @returns one line naming the first offending variable, or undefined when the rule is consistent
 */
export function checkTemplateVars(pattern: string, template: string): string | undefined {
  const captured = capturedVars(pattern);
  for (const v of varsOf(template)) {
    if (captured.some((c) => c.name === v.name && c.multi === v.multi)) continue;
    const used = `${v.multi ? '$$$' : '$'}${v.name}`;
    const other = captured.find((c) => c.name === v.name);
    if (other) return `replace uses ${used} but find captures ${other.multi ? '$$$' : '$'}${v.name}`;
    return `replace uses ${used}, which find does not capture`;
  }
  return undefined;
}
