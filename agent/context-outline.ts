/**
 * The project outline sent with the context (issue 5 "Outline"): the project's files grouped by
 * folder, most relevant first when not all fit, with a few defined symbols of relevant files that
 * were not sent, so the model can name (or create beside) files it was not shown.
 */

/** Inputs of `buildOutline`. */
export interface OutlineInput {
  /** every candidate path, in priority order (most relevant first) */
  paths: readonly string[];
  /** paths whose text is in the context (marked with `*`) */
  sent: ReadonlySet<string>;
  /** symbols to show per path (only a few relevant, unsent files need them) */
  symbols?: ReadonlyMap<string, readonly string[]>;
  /** hard cap on the outline's length in characters */
  maxChars: number;
}

function render(input: OutlineInput, k: number): string {
  const byDir = new Map<string, string[]>();
  for (const p of input.paths.slice(0, k)) {
    const slash = p.lastIndexOf('/');
    const dir = slash === -1 ? './' : p.slice(0, slash + 1);
    let name = p.slice(slash + 1);
    if (input.sent.has(p)) name += '*';
    const syms = input.symbols?.get(p);
    if (syms && syms.length > 0) name += ` (defines ${syms.join(', ')})`;
    const list = byDir.get(dir);
    if (list) list.push(name);
    else byDir.set(dir, [name]);
  }
  const total = input.paths.length;
  let out = `Project files (${total}; * = shown above):\n`;
  for (const dir of [...byDir.keys()].sort()) out += `${dir} ${byDir.get(dir)!.sort().join(', ')}\n`;
  if (k < total) out += `(${total - k} more files not listed)\n`;
  return out;
}

/**
 * Render the outline within `maxChars`: as many files as fit, in priority order, grouped by folder.
 *
 * @returns the outline text (length ≤ maxChars), or '' when not even its header fits
 */
export function buildOutline(input: OutlineInput): string {
  if (input.paths.length === 0) return '';
  let lo = 0;
  // Every listed file costs at least its name and a separator: bound the search before rendering.
  let hi = 0;
  for (let cost = 0; hi < input.paths.length && cost <= input.maxChars; hi++) {
    const p = input.paths[hi]!;
    cost += p.length - p.lastIndexOf('/') + 1;
  }
  // Longest prefix of the priority list whose rendering fits (rendering grows with k).
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (render(input, mid).length <= input.maxChars) lo = mid;
    else hi = mid - 1;
  }
  const out = render(input, lo);
  return out.length <= input.maxChars ? out : '';
}
