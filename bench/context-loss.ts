/**
 * Where hunk recall is lost, summed over a benchmark run (for `bench/context-diag.ts`): each missed
 * hunk weighs 1 / (its task's hunk count) / (tasks in the run), so the parts add up to 1 − the run's
 * mean hunk recall. A missed hunk is either in a file that was not sent at all (split by the file's
 * rank in the ranking) or in a file sent in part (split by the file's place in the send order and
 * by its size in characters).
 */

/** One missed hunk of one task. */
export interface Miss {
  /** gold hunks of the task (the weight's denominator), > 0 */
  taskHunks: number;
  /** the file's place among the files sent (0 = first), or null when it was not sent */
  sentAt: number | null;
  /** the file's rank in the full ranking (0 = first), or -1 when the ranking does not hold it */
  rank: number;
  /** the file's size in characters, or -1 when it is not in the tree */
  size: number;
}

/** The lost share of hunk recall by cause; every value is a share of all hunks of the run (0..1). */
export interface LossSummary {
  notSent: number;
  notSentByRank: Record<string, number>;
  sentInPart: number;
  sentInPartByPlace: Record<string, number>;
  sentInPartBySize: Record<string, number>;
}

const RANK_BANDS: readonly [number, string][] = [
  [5, '0-5'],
  [10, '6-10'],
  [20, '11-20'],
  [60, '21-60'],
  [Infinity, '>60'],
];
const PLACE_BANDS: readonly [number, string][] = [
  [0, '#0'],
  [1, '#1'],
  [4, '#2-4'],
  [Infinity, '#5+'],
];
const SIZE_BANDS: readonly [number, string][] = [
  [19_999, '<20k'],
  [59_999, '20k-60k'],
  [Infinity, '>=60k'],
];

/** The name of the first band whose upper bound (inclusive) holds `x`; the last band is open. */
function band(x: number, bands: readonly [number, string][]): string {
  return bands.find(([max]) => x <= max)![1];
}

function add(to: Record<string, number>, key: string, w: number): void {
  to[key] = (to[key] ?? 0) + w;
}

/**
 * Sum the misses of a run by cause.
 *
 * @param misses  every missed hunk of the run
 * @param tasks   tasks in the run (those with no miss included), > 0
 * @returns shares of the run's hunks; notSent + sentInPart = 1 − mean hunk recall
 */
export function lossSummary(misses: readonly Miss[], tasks: number): LossSummary {
  const out: LossSummary = {
    notSent: 0,
    notSentByRank: {},
    sentInPart: 0,
    sentInPartByPlace: {},
    sentInPartBySize: {},
  };
  for (const m of misses) {
    const w = 1 / m.taskHunks / tasks;
    if (m.sentAt === null) {
      out.notSent += w;
      add(out.notSentByRank, m.rank < 0 ? 'unranked' : band(m.rank, RANK_BANDS), w);
    } else {
      out.sentInPart += w;
      add(out.sentInPartByPlace, band(m.sentAt, PLACE_BANDS), w);
      add(out.sentInPartBySize, m.size < 0 ? 'absent' : band(m.size, SIZE_BANDS), w);
    }
  }
  return out;
}

/** Every band name, in the order the bands run. */
const BAND_ORDER = [
  ...RANK_BANDS.map(([, n]) => n),
  'unranked',
  ...PLACE_BANDS.map(([, n]) => n),
  ...SIZE_BANDS.map(([, n]) => n),
  'absent',
];

/** `lossSummary` as three lines of text, bands in their order, shares to three decimals. */
export function formatLoss(s: LossSummary): string {
  const parts = (r: Record<string, number>): string =>
    BAND_ORDER.filter((k) => k in r)
      .map((k) => `${k} ${r[k]!.toFixed(3)}`)
      .join(', ');
  return [
    `lost: ${(s.notSent + s.sentInPart).toFixed(3)} of hunk recall`,
    `  not sent ${s.notSent.toFixed(3)} (by rank: ${parts(s.notSentByRank)})`,
    `  sent in part ${s.sentInPart.toFixed(3)} (by place sent: ${parts(s.sentInPartByPlace)}; by size: ${parts(s.sentInPartBySize)})`,
  ].join('\n');
}
