import type { SearchReader } from '../cache'
import type { CompiledQuery } from './compile'
import { matchedAmong } from './sql'

/** Sorted by a column, candidates asked about at once when the query's match list is not read. */
const PROBE_BATCH = 500
/** Candidates asked about per page before reading the match list instead (a rare filter). */
export const PROBE_MAX = 10_000

/**
 * Matches along a sorted order from position `start`, skipping `skip` of them, up to
 * `limit`: candidates asked about PROBE_BATCH at a time. Null when PROBE_MAX candidates
 * were not enough (a rare filter: its match list is the cheaper way).
 */
export function probeSorted(
  reader: SearchReader,
  q: CompiledQuery,
  at: (i: number) => number,
  length: number,
  start: number,
  skip: number,
  limit: number
): { ids: number[]; end: number } | null {
  const ids: number[] = []
  let seen = 0
  let i = start
  while (i < length && ids.length < limit) {
    if (i - start >= PROBE_MAX) return null
    const batch: number[] = []
    for (let k = i; k < Math.min(length, i + PROBE_BATCH); k++) batch.push(at(k))
    const hits = new Set(reader.matches.idList(matchedAmong(q, JSON.stringify(batch))))
    for (const id of batch) {
      i++
      if (!hits.has(id)) continue
      if (seen++ >= skip) ids.push(id)
      if (ids.length === limit) break
    }
  }
  return { ids, end: i }
}
