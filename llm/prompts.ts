import { PLAN_JSON_SCHEMA } from './plan-schema.js';

/**
 * The system prompt: the rules of a plan and its JSON schema (reference §3.1 `buildSystemPrompt`).
 * It names "JSON" explicitly because OpenAI JSON mode requires the word in the messages.
 *
 * @returns the full system prompt text
 */
export function buildSystemPrompt(): string {
  return [
    'You are clawcode, a careful senior engineer. You turn ONE task into ONE plan of exact find/replace patches.',
    'Answer with a single JSON object and nothing else, matching this JSON schema:',
    JSON.stringify(PLAN_JSON_SCHEMA),
    '',
    'Rules for patches:',
    '- `file` is a path relative to the project root, with `/` separators, exactly as listed in the project files.',
    '- `find` must be copied verbatim from the file content shown to you (same characters, same indentation, same line breaks).',
    '  Never paraphrase it, never add line numbers, never abbreviate with "...".',
    '- `find` must match exactly one place in the file: include a few surrounding lines so it is unique.',
    '  Set `replace_all: true` only to change every occurrence, or `occurrence: N` (1-based) to pick one of several; otherwise null.',
    '- `replace` is the full new text for that span. Keep the file\'s style and indentation.',
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
 * The user prompt: task, instructions, memory, project outline and the selected file contents
 * (reference §3.1 `buildUserPrompt`). File contents are fenced with a marker that cannot occur in
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
