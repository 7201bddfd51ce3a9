/** One replace patch as a model writes it (the options it leaves unused set to null). */
export function replacePatch(file: string, find: string, replace: string) {
  return { file, operation: 'replace', find, replace, replace_all: null, occurrence: null };
}

/** A plan of `patches` with the other fields minimal, or as `extra` gives them. */
export function planOf(patches: unknown[], extra: Record<string, unknown> = {}) {
  return { analysis: 'x', files_to_edit: [], patches, commands: [], agent_notes: [], ...extra };
}
