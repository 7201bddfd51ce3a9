/**
 * Patches that spread over the files of a pathspec: a codemod rule (`operation: "rewrite"`, through the
 * rewrite engine) and a literal `replace_all` over a pathspec (for files no grammar covers: docs, YAML,
 * config). Each applies to the current in-memory text of every file it names; it fails as a whole when
 * it matches nothing anywhere.
 */
import type { PatchOp } from '../plan.js';
import type { PatchOutcome, SpreadFile } from './plan-apply.js';
import { rewriteFile } from './rewrite.js';
import { languageLabel, type RewriteLanguage } from './rewrite-lang.js';

const DROPPED = 'find equals replace: nothing to change; dropped';

/**
 * Apply one rule to every file it names, updating `current` only when it matched somewhere (a file that
 * does not parse is left out and listed in `unparsed`).
 *
 * @param current  path → text, updated in place on success
 * @param files    the files the rule's pathspec names, each with a grammar
 * @returns the rule's outcome: matches and changed files, or `rewrite_no_match` / `rewrite_bad_pattern`
 */
export function applyRule(
  current: Map<string, string>,
  patch: PatchOp,
  files: readonly string[],
  base: { index: number; file: string },
): PatchOutcome {
  if (patch.find === patch.replace) return { ...base, applied: true, dropped: true, note: DROPPED };
  let matches = 0;
  const changed: SpreadFile[] = [];
  const unparsed: string[] = [];
  const searched = new Map<RewriteLanguage, number>();
  const updates = new Map<string, string>();
  for (const path of files) {
    const content = current.get(path);
    if (content === undefined) continue;
    const r = rewriteFile({ path, content, find: patch.find, replace: patch.replace });
    if (r.language) searched.set(r.language, (searched.get(r.language) ?? 0) + 1);
    if (r.ok) {
      matches += r.matches;
      if (r.content !== content) {
        updates.set(path, r.content);
        changed.push({ path, matches: r.matches });
      }
    } else if (r.code === 'rewrite_parse_error') unparsed.push(path);
    else if (r.code === 'rewrite_bad_pattern') {
      return {
        ...base,
        applied: false,
        code: 'rewrite_bad_pattern',
        error: `find is not one ${languageLabel(r.language!)} pattern: ${r.message.slice(path.length + 2)}`,
        hint: 'write find as one piece of code (an expression, a statement), with $NAME where sites differ',
      };
    }
  }
  const where = [...searched].map(([lang, n]) => `${n} ${languageLabel(lang)} file${n === 1 ? '' : 's'}`);
  const unparsedNote =
    unparsed.length > 0 ? `; ${unparsed.length} file${unparsed.length === 1 ? '' : 's'} did not parse` : '';
  if (matches === 0) {
    return {
      ...base,
      applied: false,
      code: 'rewrite_no_match',
      error: `pattern matched 0 nodes in ${where.join(' and ') || '0 files'}${unparsedNote}`,
      hint: 'write find as code of the files, with $NAME for what varies between sites; check the pathspec',
      unparsed,
      searched: files.length,
    };
  }
  for (const [path, text] of updates) current.set(path, text);
  return {
    ...base,
    applied: true,
    matchCount: matches,
    replacements: matches,
    files: changed,
    unparsed,
    searched: files.length,
    ...(changed.length === 0 ? { note: `matched ${matches} nodes, but the template writes them as they are` } : {}),
  };
}

/**
 * Replace every occurrence of a literal `find` in every file a pathspec names (`replace_all: true`), exactly
 * as written: no relaxed matching across hundreds of files.
 *
 * @returns the outcome: occurrences and changed files, or `patch_no_match` when no file holds `find`
 */
export function applyLiteralEverywhere(
  current: Map<string, string>,
  patch: PatchOp,
  files: readonly string[],
  base: { index: number; file: string },
): PatchOutcome {
  if (patch.find === '') {
    return { ...base, applied: false, code: 'patch_empty_find', error: 'a replacement over a pathspec needs a find' };
  }
  if (patch.find === patch.replace) return { ...base, applied: true, dropped: true, note: DROPPED };
  let matches = 0;
  const changed: SpreadFile[] = [];
  for (const path of files) {
    const content = current.get(path);
    if (content === undefined || !content.includes(patch.find)) continue;
    const parts = content.split(patch.find);
    matches += parts.length - 1;
    changed.push({ path, matches: parts.length - 1 });
    current.set(path, parts.join(patch.replace));
  }
  if (matches === 0) {
    return {
      ...base,
      applied: false,
      code: 'patch_no_match',
      error: `find text not found in any of ${files.length} file${files.length === 1 ? '' : 's'}`,
      hint: 'copy find exactly as it appears in the files',
      searched: files.length,
    };
  }
  return { ...base, applied: true, matchCount: matches, replacements: matches, files: changed, searched: files.length };
}
