/**
 * The first analysis-term page on a search just opened (a keystroke must not wait for a whole column): the keystroke that
 * used to read the key's whole column (0.8–2 s at 1,000,000 calls) before its first rows. The
 * search is opened fresh for each sample and its opening page (no text) is read untimed, as
 * the app reads it when it opens; then the first page of each analysis query is timed once.
 * Old path (WHOLE_COLUMN_WINDOW, bench/baselines: the window reads the cold column whole, as main did before)
 * and ours (the window's items alone) on the same file in the same run; no warm-up on either
 * side (the app's background warm-up would hide the path measured here).
 */
import { openCache } from '../src/core/cache'
import { createSearch } from '../src/core/search'
import { WHOLE_COLUMN_WINDOW } from './baselines/search-strategies'
import { SearchQuery } from '../src/shared/domain'
import { percentile, type BenchRow } from './types'

const QUERIES = ['csat>=4', 'duygu:olumsuz'] as const

export function coldAnalysisRows(file: string, samples: number, log: (m: string) => void): BenchRow[] {
  const times = new Map<string, { before: number[]; after: number[] }>(QUERIES.map((q) => [q, { before: [], after: [] }]))
  for (let s = 0; s < samples; s++) {
    for (const phase of ['before', 'after'] as const) {
      const cache = openCache(file, { readonly: true })
      try {
        const search = createSearch(cache, {}, phase === 'after' ? {} : WHOLE_COLUMN_WINDOW)
        search.page(SearchQuery.parse({ text: '' }), 0, 100)
        for (const text of QUERIES) {
          const t0 = performance.now()
          search.page(SearchQuery.parse({ text }), 0, 100)
          times.get(text)![phase].push(performance.now() - t0)
        }
      } finally {
        cache.close()
      }
    }
  }
  log(`cold analysis pages: ${JSON.stringify(Object.fromEntries(times))}`)
  return QUERIES.map((text) => {
    const t = times.get(text)!
    const before = percentile(t.before, 50)
    const after = percentile(t.after, 50)
    return {
      metric: `opened: first page of "${text}", the search's first analysis query (median of ${samples})`,
      value: after,
      unit: 'ms',
      baseline: before,
      ratio: before / after,
      target: 25,
      targetKind: 'max' as const,
      note: 'baseline: same run, same file, the window reading the cold column whole (as before first pages read only a window of items); each sample on a search opened fresh'
    }
  })
}
