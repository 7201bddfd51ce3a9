import { PLAN_JSON_SCHEMA } from '../utils/plan.js';

/**
 * The system prompt: the rules of a plan and its JSON schema.
 * It names "JSON" explicitly because OpenAI JSON mode requires the word in the messages.
 *
 * @returns the full system prompt text
 */
export function buildSystemPrompt(): string {
  return [
    'You are clawcode, a careful senior engineer. You turn ONE task into ONE plan of exact find/replace patches and codemod rules.',
    'Answer with a single JSON object and nothing else, matching this JSON schema:',
    JSON.stringify(PLAN_JSON_SCHEMA),
    '',
    'Two operations:',
    '- `"operation": "replace"` (find/replace) for local logic: one place in one file, e.g.',
    '  {"file": "src/api.ts", "operation": "replace", "find": "  return res;\\n", "replace": "  log(res);\\n  return res;\\n", "replace_all": null, "occurrence": null}',
    '- `"operation": "rewrite"` (a rule) for a mechanical change repeated across files (a rename, a call-shape migration, an import move):',
    '  `find` is an ast-grep pattern (code with `$NAME` for one node, `$$$ARGS` for several, `$_` for any), `replace` its template,',
    '  `file` a git pathspec of the files to rewrite (`src/**/*.ts`, `lib/`), taken from the project files list, e.g.',
    '  {"file": "src/**/*.ts", "operation": "rewrite", "find": "getUser($ID)", "replace": "fetchUser($ID, { cache: true })", "replace_all": null, "occurrence": null}',
    '  A rule rewrites every match, also in files you were not shown; use only metavariables `find` captures.',
    '',
    'Rules for find/replace patches:',
    '- `file` is a path relative to the project root, with `/` separators, exactly as listed in the project files.',
    '- `find` must be copied verbatim from the file content shown to you (same characters, same indentation, same line breaks).',
    '  Never paraphrase it, never add line numbers, never abbreviate with "...".',
    '- `find` must match exactly one place in the file: include a few surrounding lines so it is unique.',
    '  Set `replace_all: true` only to change every occurrence, or `occurrence: N` (1-based) to pick one of several; otherwise null.',
    "- `replace` is the full new text for that span. Keep the file's style and indentation.",
    '- With `replace_all: true`, `file` may also be a pathspec: a literal replacement in every file it names (docs, YAML, config).',
    '- To create a new file, use `find: ""` and put the whole file in `replace`.',
    '- Patches apply in order; a later patch for the same file sees the earlier result. Patches must not overlap.',
    '- Only edit files whose content you were shown, or create new files. Keep the change minimal and complete.',
    '',
    'Other fields:',
    '- `analysis`: two or three sentences on what you will change and why.',
    '- `files_to_edit`: each file you patch, with a short reason.',
    '- `commands`: shell commands worth running afterwards (for example the test command); empty when none. They run only if the user confirms.',
    '- `agent_notes`: short facts about this project worth remembering for later tasks (framework, test command, conventions); may be empty.',
  ].join('\n');
}

/** What the user prompt is built from; every field is plain text already cut to the budget. */
export interface UserPromptParts {
  task: string;
  /** Project files list / outline (from the context stage). */
  outline: string;
  /**
   * Selected files: `text` is the file's whole prompt block, sent as is: one `## <path>` header
   * line, then the content in code fences (`[lines a-b]` markers outside them for excerpts).
   */
  files: readonly { path: string; text: string; ranges: readonly (readonly [number, number])[] | null }[];
  /** `[Context memory]` block from memory/memory.ts, or "". */
  memoryContext: string;
  /** Project instructions (AGENTS.md etc.), or "". */
  instructions?: string;
}

/**
 * The user prompt: task, instructions, memory, project outline and the selected file contents.
 * File contents are fenced with a marker that cannot occur in
 * them, so the model can copy `find` text verbatim.
 *
 * @returns the prompt text; its size is the sum of its parts plus a few hundred characters of framing
 */
export function buildUserPrompt(parts: UserPromptParts): string {
  const sections: string[] = [`# Task\n${parts.task.trim()}`];
  if (parts.instructions?.trim()) sections.push(`# Project instructions\n${parts.instructions.trim()}`);
  if (parts.memoryContext.trim()) sections.push(parts.memoryContext.trim());
  if (parts.outline.trim()) sections.push(`# Project files\n${parts.outline.trim()}`);
  if (parts.files.length > 0) {
    sections.push(`# File contents\n${parts.files.map((f) => f.text.trimEnd()).join('\n\n')}`);
  } else {
    sections.push('# File contents\n(no file content selected; create files or name files from the list above)');
  }
  sections.push('Reply with the JSON plan only.');
  return sections.join('\n\n');
}

/** A backtick fence longer than any backtick run inside `text` (CommonMark rule). */
function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** One refused patch, as the repair request shows it to the model. */
export interface RepairItem {
  /** 1-based number of the patch in the plan. */
  number: number;
  /** the patch's file, or a rule's pathspec */
  file: string;
  find: string;
  /** `rewrite` for a codemod rule (its find is an ast-grep pattern); default `replace` */
  operation?: 'replace' | 'rewrite';
  /** Why it was refused, one line. */
  error: string;
  /** The file's real text around the closest match (or every location of an ambiguous find). */
  excerpts: readonly { startLine: number; endLine: number; text: string }[];
}

/**
 * The user message of the one repair round after patches were refused: the original prompt, then, for each
 * refused patch only, its number, file, find, the error and the file's real text near the closest match.
 * Line numbers stand in the headings, never inside the text to copy. It asks for exactly one replacement
 * patch per refused patch, in order, in the same JSON plan schema.
 *
 * @param userPrompt  the first request's user message (task and context)
 * @param items       the refused patches, in plan order
 * @returns the prompt text
 */
export function buildPatchRepairPrompt(userPrompt: string, items: readonly RepairItem[]): string {
  const blocks = items.map((item) => {
    const rule = item.operation === 'rewrite';
    const parts = [
      `## Patch ${item.number} (${rule ? `rewrite rule over ${item.file}` : item.file})`,
      `Error: ${item.error}`,
      `${rule ? 'The pattern' : 'find'} was:\n${fenced(item.find)}`,
    ];
    for (const e of item.excerpts) {
      parts.push(
        `Lines ${e.startLine}-${e.endLine} of ${item.file}, exactly as in the file (copy from here):\n${fenced(e.text)}`,
      );
    }
    return parts.join('\n\n');
  });
  const n = items.length;
  return [
    userPrompt,
    '---',
    `${n === 1 ? 'One patch' : `${n} patches`} of your plan could not be applied, so nothing was changed. The other patches were fine; do not send them again.`,
    blocks.join('\n\n'),
    `Reply with a JSON plan in the same schema whose \`patches\` holds exactly ${n} patch${n === 1 ? '' : 'es'}: the replacement${n === 1 ? '' : 's'} for ` +
      `${items.map((i) => `patch ${i.number}`).join(', ')}, in that order. Copy each \`find\` verbatim from the file text shown above ` +
      '(without the line numbers of the headings), with enough lines to be unique. Use `find: ""` only to create a file that does not exist. ' +
      'A rewrite rule is replaced by a rule whose pattern is code as it appears in the files, or by find/replace patches.',
  ].join('\n\n');
}

function fenced(text: string): string {
  const fence = fenceFor(text);
  return `${fence}\n${text}${text.endsWith('\n') ? '' : '\n'}${fence}`;
}
