import { lstatSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { foldSegment } from '../policy/paths.js';
import { BUILD_FOLDERS, classifyCommand } from './safety.js';
import type { ParsedShell, ShellParser, ShellWord, SimpleCommand } from './parse.js';
import { commandMatchesRule } from './rule-match.js';
import { PYTHON_NAME, PYTHON_TOOL_MODULES } from './tool-options.js';
import {
  allowListed,
  AS_OTHER_USER,
  ASK,
  AUTO,
  DISK,
  EVALUATORS,
  INLINE_CODE,
  INTERPRETERS,
  judgeGit,
  NETWORK,
  POWER,
  PUBLISH,
  REJECT,
  runnerCommandStarts,
  SAFE_DEVICES,
  SAFE_ENV,
  SHELLS,
  WRAPPERS,
  type Verdict,
} from './rules.js';

/**
 * What to do with one plan command:
 * - `auto-approve`: every part is understood and on the allow-list; runs with `--run-commands` (inside the sandbox)
 * - `ask-user`: runs only after a person's yes for this command; without a terminal it is not run
 * - `reject`: refused, never run
 * `reason` is a few words for the report ("deletes S recursively, outside the project").
 */
export type CommandApproval =
  { type: 'auto-approve'; reason: string } | { type: 'ask-user'; reason: string } | { type: 'reject'; reason: string };

/** Inputs of {@link decideCommand} besides the command line. */
export interface ApprovalOptions {
  /** the project root (absolute); paths resolving inside it are local */
  rootDir: string;
  /** the parser from loadShellParser() */
  parse: ShellParser;
  /**
   * Command rules from (trusted) settings: prefixes of the fixed words, such as `npm run *` or `make lint`.
   * A deny match rejects; an allow match puts a simple command on the allow-list (it never lifts the checks for
   * substitutions, paths outside the root or destructive commands).
   */
  rules?: { allow: readonly string[]; deny: readonly string[] };
  /** true when commands run inside the OS sandbox; without one nothing is auto-approved */
  sandboxed: boolean;
}

/**
 * Decide one plan command. The line is parsed as bash (utils/shell/parse.ts); it is auto-approved only when
 * it is a plain list of simple commands (`&&`, `||`, `;`, pipes between them, file redirections inside the
 * root), every word is fixed text, and every command is on the short allow-list of local build, test and lint
 * tools (or matches an allow rule). Substitutions, expansions (brace expansion too), a glob that may expand to an
 * option, a `>` over something that exists in the root (looked up on disk), `eval`/`source`, shells and
 * interpreters given code, network tools, publishing, paths outside the root, unknown tools: ask. Deleting or writing outside
 * the root, deleting the project itself, disks, other users, a download run by a shell, a deny rule: reject.
 * Nested commands (inside `$(…)`, `bash -c '…'`, `eval '…'`) are judged too; the worst verdict wins.
 * Without a sandbox an otherwise auto-approved command is asked about.
 *
 * @param command  one shell command line as the plan gives it
 * @returns the decision with a short reason; never throws
 */
export function decideCommand(command: string, options: ApprovalOptions): CommandApproval {
  const root = resolve(options.rootDir);
  if (command.length > MAX_COMMAND_CHARS)
    return { type: 'ask-user', reason: `too long to read (${command.length} characters)` };
  let verdict: Verdict;
  try {
    verdict = judgeLine(command, root, options, 0);
  } catch (error) {
    // The parse tree is walked recursively: 50,000 `&&` or nested `$(` overflow the stack. Unread is unallowed.
    if (!(error instanceof RangeError)) throw error;
    return { type: 'ask-user', reason: 'nested too deeply to read' };
  }
  if (verdict.level === REJECT) return { type: 'reject', reason: verdict.reason };
  if (verdict.level === ASK) return { type: 'ask-user', reason: verdict.reason };
  if (!options.sandboxed) return { type: 'ask-user', reason: `no sandbox on this machine (${verdict.reason})` };
  return { type: 'auto-approve', reason: verdict.reason };
}

/** Longest command line judged, in characters; a longer one is asked about unread (parsing grows with it). */
const MAX_COMMAND_CHARS = 100_000;

/** The stricter verdict; at the same level a specific reason beats "not on the allow-list". */
function worst(a: Verdict, b: Verdict): Verdict {
  if (b.level !== a.level) return b.level > a.level ? b : a;
  return a.reason.startsWith('not on the allow-list') && b.reason !== '' ? b : a;
}

function judgeLine(line: string, root: string, options: ApprovalOptions, depth: number): Verdict {
  if (line.trim() === '') return { level: ASK, reason: 'empty command' };
  if (depth > 3) return { level: ASK, reason: 'nested too deeply to read' };
  const parsed: ParsedShell = options.parse(line);
  let verdict: Verdict = { level: AUTO, reason: 'local build/test tool' };
  // The older rule set still speaks for lines it calls destructive (e.g. `git reset --hard`): never auto.
  const legacy = classifyCommand(line, root);
  if (legacy.destructive)
    verdict = worst(verdict, { level: ASK, reason: `destructive: ${legacy.reason ?? 'unknown'}` });
  if (parsed.error) verdict = worst(verdict, { level: ASK, reason: `cannot be read as shell (${parsed.error})` });
  if (parsed.constructs.length > 0)
    verdict = worst(verdict, { level: ASK, reason: `uses ${parsed.constructs.join(', ')}` });
  if (parsed.commands.length === 0) verdict = worst(verdict, { level: ASK, reason: 'no command found' });
  const reasons: string[] = [];
  for (const cmd of parsed.commands) {
    const one = judgeCommand(cmd, root, options, depth);
    verdict = worst(verdict, one);
    if (one.level === AUTO) reasons.push(one.reason);
  }
  if (verdict.level === AUTO && reasons.length > 0) verdict.reason = [...new Set(reasons)].join('; ');
  return verdict;
}

function judgeCommand(cmd: SimpleCommand, root: string, options: ApprovalOptions, depth: number): Verdict {
  let verdict: Verdict = { level: AUTO, reason: '' };
  for (const { name, value } of cmd.assignments) {
    if (value.text === undefined) verdict = worst(verdict, { level: ASK, reason: `sets ${name} from an expansion` });
    else if (cmd.words.length > 0 && !SAFE_ENV.has(name))
      verdict = worst(verdict, { level: ASK, reason: `sets environment variable ${name}` });
  }
  for (const r of cmd.redirects) verdict = worst(verdict, judgeRedirect(r.op, r.target, root));
  if (cmd.words.length === 0) return verdict.level === AUTO ? { level: ASK, reason: 'a bare assignment' } : verdict;

  const { words, via } = unwrap(cmd.words);
  const first = words[0];
  if (first?.text === undefined) {
    return worst(verdict, {
      level: ASK,
      reason: `the command name comes from an expansion (${first?.raw ?? cmd.words[0]!.raw})`,
    });
  }
  const fixed = words.map((w) => w.text);
  const text = fixed.every((t) => t !== undefined) ? (fixed as string[]).join(' ') : undefined;
  if (text !== undefined && options.rules?.deny.some((rule) => commandMatchesRule(text, rule))) {
    return { level: REJECT, reason: `matches a deny rule: ${text}` };
  }
  const name = first.text.slice(first.text.lastIndexOf('/') + 1);
  const args = words.slice(1);
  verdict = worst(verdict, judgeDanger(name, args, cmd, root, via));
  // A coverage tool (`c8 rm -rf src`) is judged by the command it runs too.
  for (const start of runnerCommandStarts(
    name,
    args.map((w) => w.text),
  )) {
    const inner = { ...cmd, assignments: [], redirects: [], words: args.slice(start) };
    verdict = worst(verdict, judgeCommand(inner, root, options, depth));
  }
  if (verdict.level === REJECT) return verdict;
  verdict = worst(verdict, judgeNested(name, args, root, options, depth));
  if (first.text.includes('/'))
    verdict = worst(verdict, { level: ASK, reason: `runs a program by path (${first.text})` });
  if (via.length > 0) verdict = worst(verdict, { level: ASK, reason: `runs through ${via.join(', ')}` });
  const outside = args.find((w) => pathOutside(w, root));
  if (outside) verdict = worst(verdict, { level: ASK, reason: `names a path outside the project (${outside.raw})` });
  const dynamic = args.find((w) => w.text === undefined);
  if (dynamic) verdict = worst(verdict, { level: ASK, reason: `an argument comes from an expansion (${dynamic.raw})` });
  // `*` matches a file named `--node-options=--require=./x.js` as well: bash passes it as an option.
  const glob = args.find((w) => w.expands && /^[*?[]/.test(w.text ?? ''));
  if (glob) verdict = worst(verdict, { level: ASK, reason: `a glob may expand to an option (${glob.raw})` });
  if (verdict.level > AUTO) return verdict;
  if (text !== undefined && options.rules?.allow.some((rule) => commandMatchesRule(text, rule))) {
    return { level: AUTO, reason: `allowed by a settings rule: ${text}` };
  }
  const listed = allowListed(
    name,
    args.map((w) => w.text ?? ''),
  );
  return listed ? { level: AUTO, reason: listed } : { level: ASK, reason: `not on the allow-list: ${name}` };
}

/** Drop wrappers (`env FOO=1 rm`, `xargs -0 rm`, `nice -n 5 rm`) so the real command is judged. */
function unwrap(words: ShellWord[]): { words: ShellWord[]; via: string[] } {
  const via: string[] = [];
  let i = 0;
  while (i < words.length) {
    const t = words[i]!.text ?? '';
    const base = t.slice(t.lastIndexOf('/') + 1);
    if (WRAPPERS.has(base)) {
      via.push(base);
      i += 1;
      while (i < words.length && /^-/.test(words[i]!.text ?? '')) {
        const option = words[i]!.text ?? '';
        i += 1;
        if (['-n', '-I', '-L', '-P', '-u', '-d', '-s', '-c', '-k', '-S'].includes(option) && i < words.length) i += 1;
      }
      // timeout's duration, nice's bare priority
      if (
        i < words.length &&
        /^-?\d+[smhd]?$/.test(words[i]!.text ?? '') &&
        ['timeout', 'nice'].includes(via.at(-1) ?? '')
      )
        i += 1;
      continue;
    }
    if (via.at(-1) === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(t)) {
      i += 1;
      continue;
    }
    break;
  }
  return { words: words.slice(i), via };
}

/** The clearly destructive (reject) and the risky (ask) by command name. */
function judgeDanger(name: string, args: ShellWord[], cmd: SimpleCommand, root: string, via: string[]): Verdict {
  const texts = args.map((w) => w.text);
  const fromInput = via.includes('xargs');
  if (AS_OTHER_USER.has(name)) return { level: REJECT, reason: `runs as another user (${name})` };
  if (DISK.test(name)) return { level: REJECT, reason: `writes a disk or wipes files (${name})` };
  if (POWER.has(name)) return { level: REJECT, reason: `stops the machine or other processes (${name})` };
  if (name === 'dd' && texts.some((a) => a?.startsWith('of='))) return { level: REJECT, reason: 'dd writes raw bytes' };
  if (
    (SHELLS.has(name) || INTERPRETERS.has(name) || name === 'source') &&
    cmd.pipedFrom.some((n) => NETWORK.has(base(n)))
  ) {
    return { level: REJECT, reason: `runs a download in ${name}` };
  }
  if (name === 'rm' || name === 'rmdir' || name === 'unlink') {
    const recursive = texts.some((a) => a === '--recursive' || /^-[a-zA-Z]*[rR]/.test(a ?? ''));
    const paths = args.filter((w) => !(w.text ?? '').startsWith('-'));
    if (fromInput) return { level: recursive ? REJECT : ASK, reason: 'deletes paths read from its input' };
    for (const p of paths) {
      if (p.text === undefined)
        return { level: recursive ? REJECT : ASK, reason: `deletes a path that comes from an expansion (${p.raw})` };
      if (pathOutside(p, root)) return { level: REJECT, reason: `deletes ${p.raw}, outside the project` };
      if (isRootItself(p, root) && recursive) return { level: REJECT, reason: `deletes the whole project (${p.raw})` };
      if (isControlPath(p.text, root)) return { level: REJECT, reason: `deletes ${p.raw}` };
    }
    if (recursive && !paths.every((p) => isBuildFolder(p.text ?? '', root))) {
      return { level: ASK, reason: `deletes ${paths.map((p) => p.raw).join(' ')} recursively` };
    }
    return { level: ASK, reason: 'deletes files' };
  }
  if (name === 'find') {
    const deletes =
      texts.some((a) => a === '-delete') ||
      findExecs(texts).some((c) => ['rm', 'shred', 'unlink', 'mv'].includes(base(c)));
    const starts = args.filter((w, i) => !(w.text ?? '').startsWith('-') && i < firstFindOption(texts));
    if (deletes) {
      if (
        starts.length === 0 ||
        starts.some((w) => w.text === undefined || pathOutside(w, root) || isRootItself(w, root))
      ) {
        return {
          level: REJECT,
          reason: `find deletes files in ${starts.map((w) => w.raw).join(' ') || 'the project'}`,
        };
      }
      return { level: ASK, reason: 'find deletes files' };
    }
    if (texts.some((a) => a === '-exec' || a === '-execdir' || a === '-ok' || a === '-fprint' || a === '-fls')) {
      return { level: ASK, reason: 'find runs a command' };
    }
  }
  if (
    (name === 'chmod' || name === 'chown' || name === 'chgrp') &&
    args.some((w) => pathOutside(w, root) || isRootItself(w, root))
  ) {
    return { level: REJECT, reason: `${name} outside or on the whole project` };
  }
  if (
    ['cp', 'mv', 'ln', 'install', 'tee', 'touch', 'mkdir', 'truncate'].includes(name) &&
    args.some((w) => pathOutside(w, root))
  ) {
    return { level: REJECT, reason: `${name} writes outside the project` };
  }
  if (name === 'git') return judgeGit(texts);
  const publish = PUBLISH[name];
  if (publish && texts.some((a) => a !== undefined && publish.test(a)))
    return { level: ASK, reason: `publishes (${name} ${texts.join(' ')})` };
  if (NETWORK.has(name)) return { level: ASK, reason: `uses the network (${name})` };
  if (EVALUATORS.has(name)) return { level: ASK, reason: `runs text as shell code (${name})` };
  return { level: AUTO, reason: '' };
}

/** `bash -c '…'`, `eval '…'`, `node -e '…'`: judge the inline code when it is a shell line; always ask. */
function judgeNested(name: string, args: ShellWord[], root: string, options: ApprovalOptions, depth: number): Verdict {
  const texts = args.map((w) => w.text);
  if (SHELLS.has(name)) {
    const at = texts.findIndex((a) => a !== undefined && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a));
    const code = at >= 0 ? args[at + 1] : undefined;
    if (code?.text !== undefined) {
      const inner = judgeLine(code.text, root, options, depth + 1);
      return inner.level === REJECT ? inner : { level: ASK, reason: `runs a shell with inline code (${name} -c)` };
    }
    // A script file is project code like an npm script (allow rules may list it); stdin is whatever is piped in.
    return texts.some((a) => a !== undefined && !a.startsWith('-'))
      ? { level: AUTO, reason: '' }
      : { level: ASK, reason: `runs shell code from its input (${name})` };
  }
  if (name === 'eval') {
    const code = args.map((w) => w.text).join(' ');
    const inner = args.every((w) => w.text !== undefined) ? judgeLine(code, root, options, depth + 1) : undefined;
    return inner?.level === REJECT ? inner : { level: ASK, reason: 'eval runs text as shell code' };
  }
  if (INTERPRETERS.has(name)) {
    const inline = texts.some((a) => a !== undefined && (INLINE_CODE.has(a) || /^--(eval|print)=/.test(a)));
    if (PYTHON_NAME.test(name) && texts[0] === '-m' && PYTHON_TOOL_MODULES.has(texts[1] ?? '')) {
      return { level: AUTO, reason: '' };
    }
    // awk's first argument is its program: always inline code.
    if (['awk', 'gawk', 'mawk'].includes(name)) return { level: ASK, reason: `runs inline code (an ${name} program)` };
    if (inline)
      return { level: ASK, reason: `runs inline code (${name} ${texts.find((a) => a && INLINE_CODE.has(a))})` };
    if (!texts.some((a) => a !== undefined && !a.startsWith('-')))
      return { level: ASK, reason: `runs code from its input (${name})` };
    return { level: AUTO, reason: '' };
  }
  return { level: AUTO, reason: '' };
}

/** Redirection operators that empty their target before writing (`>>`, `&>>` append; `<>` does not truncate). */
const TRUNCATES = new Set(['>', '>|', '&>', '>&']);

/** Whether something exists at `path` (resolved from `root`), a symlink or dangling one included. */
function existsIn(root: string, path: string): boolean {
  try {
    lstatSync(resolve(root, path));
    return true;
  } catch {
    return false;
  }
}

/** Redirections: `>` outside the root is a write outside the project (reject); any other outside path asks. */
function judgeRedirect(op: string, target: ShellWord, root: string): Verdict {
  if (op.includes('&') && /^(\d+|-)$/.test(target.text ?? '')) return { level: AUTO, reason: '' };
  if (target.text === undefined) return { level: ASK, reason: `redirects to a path from an expansion (${target.raw})` };
  if (SAFE_DEVICES.has(target.text)) return { level: AUTO, reason: '' };
  const writes = op.includes('>');
  if (pathOutside(target, root)) {
    return writes
      ? { level: REJECT, reason: `writes outside the project (${target.raw})` }
      : { level: ASK, reason: `reads ${target.raw}, outside the project` };
  }
  if (writes && isControlPath(target.text, root)) return { level: REJECT, reason: `writes into ${target.raw}` };
  // `>` empties what is there first: over a project file it is a deletion, asked about as `rm` is.
  if (TRUNCATES.has(op) && existsIn(root, target.text)) return { level: ASK, reason: `overwrites ${target.raw}` };
  return { level: AUTO, reason: '' };
}

function base(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}

/** A word naming a path that may leave the root: absolute, `~`, `..` escaping, or an option's `=value` doing so. */
function pathOutside(word: ShellWord, root: string): boolean {
  const text = word.text;
  if (text === undefined) return false;
  const candidates = [text];
  const eq = text.indexOf('=');
  if (text.startsWith('-') && eq > 0) candidates.push(text.slice(eq + 1));
  if (/^-[a-zA-Z]\//.test(text)) candidates.push(text.slice(2)); // -o/tmp/x
  return candidates.some((c) => {
    if (SAFE_DEVICES.has(c)) return false;
    if (c.startsWith('~') && word.raw.startsWith('~')) return true;
    if (!isAbsolute(c) && !c.split(/[\\/]/).includes('..')) return false;
    const rel = relative(root, resolve(root, c));
    return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
  });
}

function isRootItself(word: ShellWord, root: string): boolean {
  const text = word.text ?? '';
  if (/^\*|^\.\/?\*$|^\.\*$/.test(text)) return true;
  return relative(root, resolve(root, text)) === '';
}

function isControlPath(text: string, root: string): boolean {
  // Folded as the path policy folds a name (`.GIT`, `.git.`, `git~1` are `.git` on some file systems).
  const rel = relative(root, resolve(root, text)).split(sep).map(foldSegment);
  return rel.some((part) => ['.git', '.hg', '.svn', '.clawcode'].includes(part));
}

function isBuildFolder(text: string, root: string): boolean {
  const parts = relative(root, resolve(root, text)).split(sep);
  const index = parts.findIndex((p) => BUILD_FOLDERS.includes(p));
  return index >= 0 && !parts.slice(0, index).some((p) => /[*?[]/.test(p));
}

function firstFindOption(args: (string | undefined)[]): number {
  const i = args.findIndex((a) => a === undefined || /^[-(!]/.test(a));
  return i === -1 ? args.length : i;
}

function findExecs(args: (string | undefined)[]): string[] {
  return args.flatMap((a, i) => (a === '-exec' || a === '-execdir' || a === '-ok' ? [args[i + 1] ?? ''] : []));
}
