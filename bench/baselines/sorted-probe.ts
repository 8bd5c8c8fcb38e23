import type { QueryState } from '../../src/core/search/paging/anchors'
import { PROBE_MAX, type SortedMatches, type SortedPager } from '../../src/core/search/paging/sorted-page'
import { positionAt, type SortedColumn } from '../../src/core/search/memory/view-columns'

/** Sorted by a column, candidates asked about at once when the query's match list is not read. */
const PROBE_BATCH = 500

/**
 * The first way a sorted page was served (before the drivers of sorted-page.ts),
 * kept as the benchmark's same-run baseline (LEGACY_SORT in search-strategies.ts) and the tests' reference:
 * a rare word's or a long jump's page walks the whole order against the match bitmap, other
 * pages ask SQL about candidates PROBE_BATCH at a time and give up after PROBE_MAX.
 */
export function legacySortedPage(
  s: SortedColumn,
  dir: 'asc' | 'desc',
  m: SortedMatches,
  state: QueryState,
  offset: number,
  limit: number
): number[] {
  const at = (i: number): number => positionAt(s, dir, i)
  const near = state.nearest(offset)
  const start = near.key === null ? 0 : near.key[0] + 1
  const far = offset - near.position >= PROBE_MAX / 2
  const probed = m.read || m.rare || far ? null : probeSorted(m.probe, at, s.order.length, start, offset - near.position, limit)
  const ids: number[] = []
  let end: number
  if (probed !== null) {
    ids.push(...probed.ids)
    end = probed.end
  } else {
    const bits = m.bitmap()
    let seen = near.position
    let i = start
    for (; i < s.order.length && ids.length < limit; i++) {
      const id = at(i)
      if (bits[id] !== 1) continue
      if (seen++ >= offset) ids.push(id)
    }
    end = i
  }
  if (ids.length > 0) state.remember(offset + ids.length, [end - 1, 0])
  return ids
}

function probeSorted(
  probe: (ids: readonly number[]) => Set<number>,
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
    const hits = probe(batch)
    for (const id of batch) {
      i++
      if (!hits.has(id)) continue
      if (seen++ >= skip) ids.push(id)
      if (ids.length === limit) break
    }
  }
  return { ids, end: i }
}

/** legacySortedPage as the search's SortedPager: its one path has no name among the product's. */
export const legacySortedPager: SortedPager = (s, dir, m, state, offset, limit) => {
  const started = performance.now()
  const ids = legacySortedPage(s, dir, m, state, offset, limit)
  return { ids, trace: { plan: 'column-probe', tried: [], inputs: { baseline: 'legacy sorted page' }, ms: performance.now() - started } }
}
