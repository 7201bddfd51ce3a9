import { describe, expect, it } from 'vitest';
import { formatLoss, lossSummary } from '../../bench/context-loss.js';

describe('lossSummary', () => {
  // Three tasks: the first has 4 hunks and misses 2, the second has 1 and misses it, the third misses none.
  const misses = [
    { taskHunks: 4, sentAt: null, rank: 7, size: 5_000 },
    { taskHunks: 4, sentAt: 0, rank: 0, size: 30_000 },
    { taskHunks: 1, sentAt: null, rank: -1, size: -1 },
  ];

  it('weighs each missed hunk by its task, so the parts add up to one minus the mean hunk recall', () => {
    const s = lossSummary(misses, 3);
    // Mean hunk recall is (2/4 + 0 + 1) / 3 = 0.5.
    expect(s.notSent + s.sentInPart).toBeCloseTo(1 - 0.5);
    expect(s.notSent).toBeCloseTo(1 / 12 + 1 / 3);
    expect(s.notSentByRank).toEqual({ '6-10': expect.closeTo(1 / 12), unranked: expect.closeTo(1 / 3) });
    expect(s.sentInPart).toBeCloseTo(1 / 12);
    expect(s.sentInPartByPlace).toEqual({ '#0': expect.closeTo(1 / 12) });
    expect(s.sentInPartBySize).toEqual({ '20k-60k': expect.closeTo(1 / 12) });
  });

  it('puts ranks, places and sizes in their bands, the last band open', () => {
    const s = lossSummary(
      [
        { taskHunks: 1, sentAt: null, rank: 60, size: 10 },
        { taskHunks: 1, sentAt: null, rank: 61, size: 10 },
        { taskHunks: 1, sentAt: 4, rank: 9, size: 19_999 },
        { taskHunks: 1, sentAt: 5, rank: 9, size: 60_000 },
      ],
      4,
    );
    expect(Object.keys(s.notSentByRank)).toEqual(['21-60', '>60']);
    expect(Object.keys(s.sentInPartByPlace)).toEqual(['#2-4', '#5+']);
    expect(Object.keys(s.sentInPartBySize)).toEqual(['<20k', '>=60k']);
  });

  it('prints the total and both causes, bands in their order', () => {
    expect(formatLoss(lossSummary(misses, 3)).split('\n')).toEqual([
      'lost: 0.500 of hunk recall',
      '  not sent 0.417 (by rank: 6-10 0.083, unranked 0.333)',
      '  sent in part 0.083 (by place sent: #0 0.083; by size: 20k-60k 0.083)',
    ]);
    const late = [
      { taskHunks: 1, sentAt: null, rank: 70, size: 1 },
      { taskHunks: 1, sentAt: null, rank: 0, size: 1 },
    ];
    expect(formatLoss(lossSummary(late, 2))).toContain('(by rank: 0-5 0.500, >60 0.500)');
  });
});
