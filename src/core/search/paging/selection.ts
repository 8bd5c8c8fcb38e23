import type { OffsetRange, SearchPage } from '../../../shared/domain'

/** Rows read per step of a walk: the largest page local search serves. */
const WALK_STEP = 1000

/** Sorted, with overlapping or touching ranges joined: each offset once, in order. */
export function mergeRanges(ranges: readonly OffsetRange[]): Array<[number, number]> {
  const out: Array<[number, number]> = []
  for (const [first, last] of [...ranges].sort((a, b) => a[0] - b[0])) {
    const prev = out[out.length - 1]
    if (prev && first <= prev[1] + 1) prev[1] = Math.max(prev[1], last)
    else out.push([first, last])
  }
  return out
}

/**
 * The call ids at the selected offsets of a query's results, in result order: the ranges
 * walked page by page through the same search that showed the rows, so the ids are the rows
 * the user saw and picked. Offsets past the end of the results select nothing.
 */
export function idsInRanges(page: (offset: number, limit: number) => SearchPage, ranges: readonly OffsetRange[]): string[] {
  const ids: string[] = []
  for (const [first, last] of mergeRanges(ranges)) {
    for (let offset = first; offset <= last; offset += WALK_STEP) {
      const limit = Math.min(WALK_STEP, last - offset + 1)
      const rows = page(offset, limit).rows
      for (const r of rows) ids.push(r.callId)
      if (rows.length < limit) return ids
    }
  }
  return ids
}
