import { fileURLToPath } from 'node:url';
import type { Node as SyntaxNode, Parser as TreeSitterParser } from 'web-tree-sitter';

/** One word of a simple command; `text` is its value after quote removal, undefined when it needs an expansion. */
export interface ShellWord {
  /** the value bash would pass, when it is fixed text (quotes and backslashes removed); undefined = dynamic */
  text?: string;
  /** the word as written in the command line */
  raw: string;
  /** true when the word has an unquoted glob character (`*`, `?`, `[`) or starts with an unquoted `~` */
  expands: boolean;
}

/** One redirection (`>`, `>>`, `<`, `2>`, `&>`, `>&2`...) of a simple command. */
export interface ShellRedirect {
  /** the operator as written, e.g. `>`, `>>`, `<`, `&>`, `>&` */
  op: string;
  target: ShellWord;
}

/** One simple command (a name with arguments) found anywhere in the line, nested ones included. */
export interface SimpleCommand {
  /** `NAME=value` words before the command name */
  assignments: { name: string; value: ShellWord }[];
  /** the command name and its arguments, in order; empty for a bare assignment such as `a=rm` */
  words: ShellWord[];
  redirects: ShellRedirect[];
  /** the names (first word, when fixed) of the commands piping into this one, nearest last; empty when not piped */
  pipedFrom: string[];
  /** true when this command sits inside a substitution (`$(…)`, backticks, `<(…)`) */
  nested: boolean;
}

/** A shell line taken apart: its simple commands and the constructs that are not plain command lists. */
export interface ParsedShell {
  commands: SimpleCommand[];
  /**
   * Constructs found besides simple commands joined by `&&`, `||`, `;`, `|` and file redirections, each named
   * for a person (e.g. "command substitution", "variable expansion", "subshell", "function definition").
   * Empty for a plain line.
   */
  constructs: string[];
  /** set when the line does not parse as bash; what was wrong, in a few words */
  error?: string;
}

/** A loaded parser: one command line in, its parts out. Synchronous; never throws. */
export type ShellParser = (command: string) => ParsedShell;

let loading: Promise<ShellParser> | undefined;

/**
 * Load the bash parser: tree-sitter's bash grammar (the `tree-sitter-bash` package's WebAssembly build, the
 * grammar GitHub and codex-rs use to read bash, vendored in vendor/tree-sitter-bash/ and copied to dist/vendor/
 * by the build) run by `web-tree-sitter`. Loaded on first use (about 30 ms) and kept for the process.
 *
 * @returns a synchronous parser
 * @throws Error when the WebAssembly files cannot be found or loaded (a broken install)
 */
export function loadShellParser(): Promise<ShellParser> {
  loading ??= (async () => {
    const { Parser, Language } = await import('web-tree-sitter');
    await Parser.init();
    // ../../vendor from utils/shell/ in the source tree, and from dist/utils/shell/ in a build.
    const wasm = fileURLToPath(new URL('../../vendor/tree-sitter-bash/tree-sitter-bash.wasm', import.meta.url));
    const parser = new Parser();
    parser.setLanguage(await Language.load(wasm));
    return (command: string) => parseWith(parser, command);
  })();
  return loading;
}

function parseWith(parser: TreeSitterParser, command: string): ParsedShell {
  const tree = parser.parse(command);
  if (!tree) return { commands: [], constructs: [], error: 'the parser gave no result' };
  try {
    const out: ParsedShell = { commands: [], constructs: [] };
    if (tree.rootNode.hasError) out.error = 'not valid shell syntax';
    walk(tree.rootNode, out, false, []);
    out.constructs = [...new Set(out.constructs)];
    return out;
  } finally {
    tree.delete();
  }
}

/** Node types that are named for a person when found, because they are not a plain list of commands. */
const CONSTRUCTS: Record<string, string> = {
  command_substitution: 'command substitution',
  process_substitution: 'process substitution',
  simple_expansion: 'variable expansion',
  expansion: 'variable expansion',
  arithmetic_expansion: 'arithmetic expansion',
  subshell: 'subshell',
  compound_statement: 'command group',
  if_statement: 'if statement',
  while_statement: 'loop',
  for_statement: 'loop',
  c_style_for_statement: 'loop',
  case_statement: 'case statement',
  function_definition: 'function definition',
  heredoc_redirect: 'here-document',
  herestring_redirect: 'here-string',
  declaration_command: 'declaration (export/declare/local)',
  unset_command: 'unset',
  test_command: 'test expression',
  negated_command: 'negation',
  variable_assignment: 'variable assignment',
  ERROR: 'unparsable text',
};

function walk(node: SyntaxNode, out: ParsedShell, nested: boolean, pipedFrom: string[]): void {
  switch (node.type) {
    case 'program':
    case 'list':
      for (const child of node.children) {
        if (child.type === '&') out.constructs.push('background job (&)');
        else if (child.isNamed) walk(child, out, nested, []);
      }
      return;
    case 'pipeline': {
      const upstream: string[] = [];
      for (const child of node.namedChildren) {
        walk(child, out, nested, [...upstream]);
        upstream.push(firstName(child));
      }
      if (node.children.some((c) => c.type === '|&')) out.constructs.push('pipe of stderr (|&)');
      return;
    }
    case 'redirected_statement': {
      const body = node.childForFieldName('body');
      const redirects = node.childrenForFieldName('redirect');
      if (body?.type === 'command') {
        walkCommand(body, out, nested, pipedFrom, redirects);
      } else {
        if (body) walk(body, out, nested, pipedFrom);
        const holder: SimpleCommand = { assignments: [], words: [], redirects: [], pipedFrom, nested };
        for (const r of redirects) addRedirect(r, holder, out, nested);
        if (holder.redirects.length > 0) out.commands.push(holder);
      }
      return;
    }
    case 'command':
      walkCommand(node, out, nested, pipedFrom, []);
      return;
    case 'comment':
      return;
    case 'variable_assignment': {
      // A bare `a=rm`: kept as a command with no words so the value's substitutions are still seen.
      out.constructs.push(CONSTRUCTS.variable_assignment!);
      const value = node.childForFieldName('value');
      const cmd: SimpleCommand = { assignments: [], words: [], redirects: [], pipedFrom, nested };
      cmd.assignments.push({
        name: node.childForFieldName('name')?.text ?? '',
        value: value ? wordOf(value, out, nested) : emptyWord(),
      });
      out.commands.push(cmd);
      return;
    }
    default: {
      const name = CONSTRUCTS[node.type];
      out.constructs.push(name ?? `shell construct (${node.type})`);
      // Whatever the construct, the commands inside it are still judged.
      for (const child of node.namedChildren) {
        if (
          child.type === 'command' ||
          child.type === 'redirected_statement' ||
          child.type === 'pipeline' ||
          child.type === 'list'
        ) {
          walk(child, out, nested, []);
        } else if (child.isNamed) {
          walkInner(child, out, nested);
        }
      }
    }
  }
}

/** Find commands inside any node that is not itself a statement (conditions, words, bodies). */
function walkInner(node: SyntaxNode, out: ParsedShell, nested: boolean): void {
  if (
    [
      'command',
      'redirected_statement',
      'pipeline',
      'list',
      'subshell',
      'compound_statement',
      'if_statement',
      'while_statement',
      'for_statement',
      'c_style_for_statement',
      'case_statement',
      'function_definition',
      'negated_command',
      'test_command',
      'declaration_command',
      'unset_command',
      'variable_assignment',
    ].includes(node.type)
  ) {
    walk(node, out, nested, []);
    return;
  }
  if (node.type === 'command_substitution' || node.type === 'process_substitution') {
    out.constructs.push(CONSTRUCTS[node.type]!);
    for (const child of node.namedChildren) walk(child, out, true, []);
    return;
  }
  const name = CONSTRUCTS[node.type];
  if (name) out.constructs.push(name);
  for (const child of node.namedChildren) walkInner(child, out, nested);
}

function walkCommand(
  node: SyntaxNode,
  out: ParsedShell,
  nested: boolean,
  pipedFrom: string[],
  extra: SyntaxNode[],
): void {
  const cmd: SimpleCommand = { assignments: [], words: [], redirects: [], pipedFrom, nested };
  node.children.forEach((child, i) => {
    const field = node.fieldNameForChild(i);
    if (child.type === 'variable_assignment') {
      const value = child.childForFieldName('value');
      cmd.assignments.push({
        name: child.childForFieldName('name')?.text ?? '',
        value: value ? wordOf(value, out, nested) : emptyWord(),
      });
    } else if (field === 'redirect' || child.type.endsWith('_redirect')) {
      addRedirect(child, cmd, out, nested);
    } else if (field === 'name') {
      cmd.words.push(wordOf(child.namedChildren[0] ?? child, out, nested));
    } else if (field === 'argument' || (child.isNamed && child.type !== 'comment')) {
      cmd.words.push(wordOf(child, out, nested));
    }
  });
  for (const r of extra) addRedirect(r, cmd, out, nested);
  out.commands.push(cmd);
}

function addRedirect(node: SyntaxNode, cmd: SimpleCommand, out: ParsedShell, nested: boolean): void {
  if (node.type !== 'file_redirect') {
    out.constructs.push(CONSTRUCTS[node.type] ?? `redirection (${node.type})`);
    for (const child of node.namedChildren) walkInner(child, out, nested);
    return;
  }
  const destination = node.childForFieldName('destination') ?? node.namedChildren.at(-1);
  const op = node.children.find((c) => !c.isNamed)?.text ?? '>';
  if (!destination || destination.type === 'file_descriptor') return;
  cmd.redirects.push({ op, target: wordOf(destination, out, nested) });
}

function emptyWord(): ShellWord {
  return { text: '', raw: '', expands: false };
}

/** An unquoted `{…,…}` or `{a..b}` not preceded by `$` or a backslash: bash's brace expansion. */
const BRACE_EXPANSION = /(^|[^$\\])\{[^{}]*(,|\.\.)[^{}]*\}/;

/** The fixed value of a word node, recording (and descending into) any expansion it holds. */
function wordOf(node: SyntaxNode, out: ParsedShell, nested: boolean): ShellWord {
  const state = { dynamic: false, expands: false };
  const text = valueOf(node, out, nested, state, true);
  return { text: state.dynamic ? undefined : text, raw: node.text, expands: state.expands };
}

function valueOf(
  node: SyntaxNode,
  out: ParsedShell,
  nested: boolean,
  state: { dynamic: boolean; expands: boolean },
  first: boolean,
): string {
  switch (node.type) {
    case 'word':
    case 'number':
    case 'command_name': {
      if (node.type === 'command_name' && node.namedChildren.length > 0) {
        return node.namedChildren.map((c, i) => valueOf(c, out, nested, state, first && i === 0)).join('');
      }
      const raw = node.text;
      if (/(^|[^\\])[*?[]/.test(raw) || (first && raw.startsWith('~'))) state.expands = true;
      return raw.replace(/\\(.)/gs, '$1');
    }
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'ansi_c_string':
      // `$'…'` escapes (\x72\x6d spells rm) are not decoded here: the word counts as dynamic.
      state.dynamic = true;
      return node.text;
    case 'string': {
      let text = '';
      for (const child of node.namedChildren) {
        if (child.type === 'string_content') text += child.text.replace(/\\([$`"\\\n])/g, '$1');
        else text += valueOf(child, out, nested, state, false);
      }
      return text;
    }
    case 'concatenation': {
      // The grammar has no node for brace expansion: `{-exec=x,-v}` is three words. Bash expands it to words the
      // judge never sees (`-exec=x -v`), so a word shaped as one is dynamic; quoted parts cannot open or close it.
      const shape = node.children.map((c) => (c.type === 'word' || !c.isNamed ? c.text : '_')).join('');
      if (BRACE_EXPANSION.test(shape)) {
        out.constructs.push('brace expansion');
        state.dynamic = true;
      }
      return node.namedChildren.map((c, i) => valueOf(c, out, nested, state, first && i === 0)).join('');
    }
    case 'command_substitution':
    case 'process_substitution':
      out.constructs.push(CONSTRUCTS[node.type]!);
      for (const child of node.namedChildren) walk(child, out, true, []);
      state.dynamic = true;
      return node.text;
    default: {
      const name = CONSTRUCTS[node.type];
      out.constructs.push(name ?? `shell construct (${node.type})`);
      for (const child of node.namedChildren) walkInner(child, out, nested);
      state.dynamic = true;
      return node.text;
    }
  }
}

/** The fixed name of the first command in a statement, or '' when it has none. */
function firstName(node: SyntaxNode): string {
  if (node.type === 'command') {
    const name = node.childForFieldName('name');
    return name ? name.text.replace(/['"\\]/g, '') : '';
  }
  const body = node.childForFieldName('body') ?? node.namedChildren[0];
  return body ? firstName(body) : '';
}
