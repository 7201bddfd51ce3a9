/**
 * What the next task of a session keeps in its context: the files the person pinned (`--files`,
 * `:add`) and the files the previous task planned or edited, so a follow-up ("now finish the
 * extraction") starts from the files just worked on. One small object, passed from turn to turn by
 * the "What next?" loop, the REPL and the TUI.
 */

/** The files a session carries from one task to the next. */
export interface CarriedFiles {
  /** pathspecs pinned by the person, in the order given; sent first */
  pinned: string[];
  /** project paths the previous task planned or edited; sent after the pins, before ranked files */
  kept: string[];
}

/** Nothing carried yet, optionally with pathspecs pinned from the start (`--files`). */
export function createCarriedFiles(pinned: readonly string[] = []): CarriedFiles {
  return { pinned: [...new Set(pinned)], kept: [] };
}

/** The files a finished task leaves for the next: the plan's files and patches, then what was written. */
export interface TaskFiles {
  plan?: { files_to_edit?: readonly { path: string }[]; patches?: readonly { file: string }[] } | null;
  filesWritten?: readonly string[];
}

/**
 * Remember a finished task's files for the next task (replacing what the task before left).
 * A task that planned nothing keeps the previous files: a failed or empty turn does not lose them.
 */
export function rememberTask(session: CarriedFiles, task: TaskFiles): void {
  const files = [
    ...(task.plan?.files_to_edit ?? []).map((f) => f.path),
    ...(task.plan?.patches ?? []).map((p) => p.file),
    ...(task.filesWritten ?? []),
  ].filter((p) => typeof p === 'string' && p !== '');
  if (files.length > 0) session.kept = [...new Set(files)];
}

/** Pin a pathspec (`:add`); returns false when it was already pinned. */
export function pinFile(session: CarriedFiles, spec: string): boolean {
  if (session.pinned.includes(spec)) return false;
  session.pinned.push(spec);
  return true;
}

/** Unpin a pathspec or forget a kept path (`:drop`); returns false when neither held it. */
export function dropFile(session: CarriedFiles, spec: string): boolean {
  const before = session.pinned.length + session.kept.length;
  session.pinned = session.pinned.filter((p) => p !== spec);
  session.kept = session.kept.filter((p) => p !== spec);
  return session.pinned.length + session.kept.length < before;
}

/** Forget everything (`:clear`): the next task starts clean. */
export function clearCarriedFiles(session: CarriedFiles): void {
  session.pinned = [];
  session.kept = [];
}

/** The lines `:files` shows: pinned specs, then kept paths. */
export function describeCarriedFiles(session: CarriedFiles): string[] {
  if (session.pinned.length === 0 && session.kept.length === 0)
    return ['No files pinned or kept; the next task starts clean.'];
  return [...session.pinned.map((p) => `pinned  ${p}`), ...session.kept.map((p) => `kept    ${p}`)];
}

/**
 * A session command typed in the REPL or the TUI: `:add <path...>` pins, `:drop <path...>` unpins or
 * forgets, `:files` lists, `:clear` forgets everything. Words are split on whitespace.
 *
 * @param line  the whole typed line, e.g. `:add src/a.ts src/b.ts`
 * @returns the lines to show (one per path for `:add` and `:drop`), or undefined when `line` is not
 *          one of these commands (it is then a task or another command)
 */
export function carriedFilesCommand(session: CarriedFiles, line: string): string[] | undefined {
  const [command, ...args] = line.trim().split(/\s+/);
  switch (command) {
    case ':files':
      return describeCarriedFiles(session);
    case ':clear':
      clearCarriedFiles(session);
      return ['Cleared: the next task starts clean.'];
    case ':add':
    case ':drop':
      if (args.length === 0) return [`Usage: ${command} <path>`];
      return args.map((spec) =>
        command === ':add'
          ? pinFile(session, spec)
            ? `Pinned ${spec}`
            : `${spec} is already pinned`
          : dropFile(session, spec)
            ? `Dropped ${spec}`
            : `${spec} was not pinned or kept`,
      );
    default:
      return undefined;
  }
}
