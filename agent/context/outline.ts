/**
 * The project map sent with the context: every path, folded by folder, with defined symbols for the
 * top-ranked files, so the model sees what exists and can name (or create beside) files it was not
 * shown. When the full map does not fit its share of the budget, the least relevant folders are
 * folded first: a folder's file list becomes a count, then whole subtrees become one `dir/** (N
 * files)` line, then the least relevant lines are left out (Aider's repo map packs a ranked map into
 * a token budget the same way, with a binary search over how much to show).
 */

/** Inputs of `buildOutline`. */
export interface OutlineInput {
  /** every candidate path, in priority order (most relevant first) */
  paths: readonly string[];
  /** paths whose text is in the context (marked with `*`) */
  sent: ReadonlySet<string>;
  /** symbols to show per path (the top-ranked files) */
  symbols?: ReadonlyMap<string, readonly string[]>;
  /** hard cap on the outline's length in characters */
  maxChars: number;
}

interface Folder {
  dir: string;
  /** files directly inside, in priority order */
  files: string[];
  /** best (lowest) priority index of its files */
  rank: number;
  /** listed (names shown) or folded to a count */
  listed: boolean;
  /** the folder's line when listed, for the current symbols ('' until rendered: only listed lines are) */
  line: string;
  /** length of `line`, computed without rendering it */
  lineLen: number;
  /** path segments of `dir` */
  segs: string[];
  /** the folded line's key per merge depth, built on first use */
  keys: string[];
}

/** When the map must shrink, symbols are first cut to this many files and symbols per file. */
const FEW_SYMBOL_FILES = 6;
const FEW_SYMBOLS = 3;
/** Folders tried for listing again after subtrees were merged (each try re-measures the map). */
const MAX_UNFOLD_TRIES = 64;

function dirOf(p: string): string {
  const slash = p.lastIndexOf('/');
  return slash === -1 ? '' : p.slice(0, slash + 1);
}

function fileLabel(input: OutlineInput, p: string): string {
  let name = p.slice(p.lastIndexOf('/') + 1);
  if (input.sent.has(p)) name += '*';
  const syms = input.symbols?.get(p);
  if (syms && syms.length > 0) name += ` (defines ${syms.join(', ')})`;
  return name;
}

function header(total: number): string {
  return `Project files (${total}; * = shown below; (N files) = folded):\n`;
}

/** Lines of the map: listed folders with their files, folded ones as counts, folded subtrees deeper than `depth` merged. */
function renderLines(
  input: OutlineInput,
  folders: readonly Folder[],
  depth: number,
  sorted = true,
): { key: string; line: string; rank: number }[] {
  const out: { key: string; line: string; rank: number }[] = [];
  const folded = new Map<string, { count: number; rank: number }>();
  for (const f of folders) {
    if (f.listed) {
      if (f.line === '') f.line = listedLine(input, f);
      out.push({ key: f.dir, line: f.line, rank: f.rank });
      continue;
    }
    const segs = f.segs;
    let key = f.keys[depth];
    if (key === undefined)
      f.keys[depth] = key = segs.length > depth ? `${segs.slice(0, depth).join('/')}/**` : f.dir || './';
    const prev = folded.get(key);
    folded.set(key, { count: (prev?.count ?? 0) + f.files.length, rank: Math.min(prev?.rank ?? Infinity, f.rank) });
  }
  for (const [key, v] of folded)
    out.push({ key, line: `${key} (${v.count} file${v.count === 1 ? '' : 's'})`, rank: v.rank });
  return sorted ? out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)) : out;
}

/** The folder's line with every file named (and symbols of the top files). */
function listedLine(input: OutlineInput, f: Folder): string {
  return `${f.dir || './'} ${[...f.files]
    .sort()
    .map((p) => fileLabel(input, p))
    .join(', ')}`;
}

/** The length of `listedLine(input, f)`, without building it (a 9k-file map measures every folder). */
function listedLength(input: OutlineInput, f: Folder): number {
  let n = (f.dir || './').length + 1 + 2 * (f.files.length - 1);
  for (let i = 0; i < f.files.length; i++) {
    const p = f.files[i]!;
    n += p.length - f.dir.length + (input.sent.has(p) ? 1 : 0);
    const syms = input.symbols?.get(p);
    if (syms && syms.length > 0) n += ' (defines '.length + syms.join(', ').length + 1;
  }
  return n;
}

function join(input: OutlineInput, lines: readonly { line: string }[], omitted: number): string {
  let out = header(input.paths.length);
  for (const l of lines) out += `${l.line}\n`;
  if (omitted > 0) out += `(${omitted} more folders not listed)\n`;
  return out;
}

/**
 * Render the project map within `maxChars`.
 *
 * @returns the map text (length ≤ maxChars), or '' when not even its header fits
 * @throws never
 */
export function buildOutline(outlineInput: OutlineInput): string {
  let input = outlineInput;
  if (input.paths.length === 0 || input.maxChars <= 0) return '';
  const folders = groupFolders(input);
  const maxDepth = Math.max(0, ...folders.map((f) => f.dir.split('/').length - 1));
  // Lengths are summed before any text is joined: a 9k-file project tries a map many times.
  const headLen = header(input.paths.length).length;
  let out = fitsAt(input, folders, headLen, maxDepth);
  if (out !== undefined) return out;
  // Every name is worth more than many symbols: fewer symbols first, then fold.
  input = withFewerSymbols(input, folders);
  out = fitsAt(input, folders, headLen, maxDepth);
  if (out !== undefined) return out;
  // Fold file lists, least relevant folders first, until the map fits (binary search on how many).
  const byRelevance = [...folders].sort((a, b) => b.rank - a.rank);
  const foldFirst = (k: number): void => byRelevance.forEach((f, i) => (f.listed = i >= k));
  let lo = 1;
  let hi = byRelevance.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    foldFirst(mid);
    if (fitsLength(input, folders, headLen, maxDepth)) hi = mid;
    else lo = mid + 1;
  }
  foldFirst(lo);
  out = fitsAt(input, folders, headLen, maxDepth);
  if (out !== undefined) return out;
  // Still too long: merge folded subtrees into their ancestors, deepest first.
  for (let depth = maxDepth - 1; depth >= 1; depth--) {
    if (fitsLength(input, folders, headLen, depth)) return unfoldWhileFits(input, folders, headLen, depth, byRelevance);
  }
  return mostRelevantLines(input, folders);
}

/** The project's folders in order of first appearance in `input.paths` (best ranked first), each listed. */
function groupFolders(input: OutlineInput): Folder[] {
  const byDir = new Map<string, Folder>();
  input.paths.forEach((p, rank) => {
    const dir = dirOf(p);
    const f = byDir.get(dir);
    if (f) f.files.push(p);
    else
      byDir.set(dir, {
        dir,
        files: [p],
        rank,
        listed: true,
        line: '',
        lineLen: 0,
        segs: dir.split('/').filter((x) => x !== ''),
        keys: [],
      });
  });
  const folders = [...byDir.values()];
  for (const f of folders) f.lineLen = listedLength(input, f);
  return folders;
}

/**
 * The map with listed folders as they are and folded ones merged at `depth`, when it fits in
 * `input.maxChars`; else undefined. Lengths are summed first, the text is joined only when it fits.
 */
function fitsAt(input: OutlineInput, folders: readonly Folder[], headLen: number, depth: number): string | undefined {
  return fitsLength(input, folders, headLen, depth) ? join(input, renderLines(input, folders, depth), 0) : undefined;
}

/** Whether the map `fitsAt` would render fits in `input.maxChars`, measured without rendering it. */
function fitsLength(input: OutlineInput, folders: readonly Folder[], headLen: number, depth: number): boolean {
  let n = headLen;
  // A folded folder no deeper than `depth` keeps a line of its own (its key is its own folder);
  // only deeper ones are merged, and only those need counting per key.
  let merged: Map<string, number> | undefined;
  for (const f of folders) {
    if (f.listed) n += f.lineLen + 1;
    else if (f.segs.length <= depth) n += foldedLength(f.dir || './', f.files.length);
    else {
      let key = f.keys[depth];
      if (key === undefined) f.keys[depth] = key = `${f.segs.slice(0, depth).join('/')}/**`;
      merged ??= new Map();
      merged.set(key, (merged.get(key) ?? 0) + f.files.length);
    }
    if (n > input.maxChars) return false;
  }
  for (const [key, count] of merged ?? []) n += foldedLength(key, count);
  return n <= input.maxChars;
}

/** Length of a folded line `key (N files)` with its newline. */
function foldedLength(key: string, count: number): number {
  return key.length + ` (${count} files)`.length + 1 - (count === 1 ? 1 : 0);
}

/**
 * `input` with symbols for the first FEW_SYMBOL_FILES files only, FEW_SYMBOLS each; the folders
 * holding a file that had symbols are measured again.
 */
function withFewerSymbols(input: OutlineInput, folders: readonly Folder[]): OutlineInput {
  const full = input.symbols ?? new Map<string, readonly string[]>();
  const fewer = {
    ...input,
    symbols: new Map([...full].slice(0, FEW_SYMBOL_FILES).map(([p, syms]) => [p, syms.slice(0, FEW_SYMBOLS)])),
  };
  for (const f of folders) {
    if (!f.files.some((p) => full.has(p))) continue;
    f.line = '';
    f.lineLen = listedLength(fewer, f);
  }
  return fewer;
}

/**
 * Merging at `depth` freed room: list the most relevant folded folders again while the map still
 * fits (at most MAX_UNFOLD_TRIES), then render the last map that fit (the map merged at `depth` fits).
 */
function unfoldWhileFits(
  input: OutlineInput,
  folders: readonly Folder[],
  headLen: number,
  depth: number,
  byRelevance: readonly Folder[],
): string {
  let tries = 0;
  for (const f of [...byRelevance].reverse()) {
    if (f.listed) continue;
    if (++tries > MAX_UNFOLD_TRIES) break;
    f.listed = true;
    if (!fitsLength(input, folders, headLen, depth)) {
      f.listed = false;
      break;
    }
  }
  return join(input, renderLines(input, folders, depth), 0);
}

/** The last resort: the most relevant lines of the map merged at depth 1 that fit, or ''. */
function mostRelevantLines(input: OutlineInput, folders: readonly Folder[]): string {
  const lines = renderLines(input, folders, 1);
  const order = lines.map((l, i) => ({ l, i })).sort((a, b) => a.l.rank - b.l.rank);
  for (let keep = order.length - 1; keep >= 0; keep--) {
    const kept = new Set(order.slice(0, keep).map((x) => x.i));
    const text = join(
      input,
      lines.filter((_, i) => kept.has(i)),
      lines.length - keep,
    );
    if (text.length <= input.maxChars) return text;
  }
  return '';
}

/**
 * A quick upper bound of the full map's length in characters (every path listed, no symbols): what
 * the map needs at most when the project is small, to reserve no more than that.
 */
export function outlineSizeBound(paths: readonly string[]): number {
  let n = header(paths.length).length;
  const dirs = new Set<string>();
  for (let i = 0; i < paths.length; i++) {
    const p = paths[i]!;
    const d = dirOf(p);
    if (!dirs.has(d)) {
      dirs.add(d);
      n += d.length + 3;
    }
    n += p.length - d.length + 2;
  }
  return n;
}
