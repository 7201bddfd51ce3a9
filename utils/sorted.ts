/**
 * How many elements of an ascending array are below `value`: the index of the first element at or after it
 * (the array's length when none is). Binary search, O(log n).
 */
export function countBelow(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
