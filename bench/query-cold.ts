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
import { WHOLE_COLUMN_WINDOW, WHOLE_ORDER_WINDOW } from './baselines/search-strategies'
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

/**
 * The first query after opening: the cache opened and the search created, then at once the
 * first page of a word in about half the calls (no opening page, no warm-up before it), as a
 * user who types the moment the window shows. Old path (WHOLE_ORDER_WINDOW: the window reads
 * the whole date order, the quarter hours and the scope's members first) and ours (window-slice:
 * the window's slice of the date index) alternately on the same file, each sample on a cache
 * opened fresh.
 */
export function openedFirstPageRows(file: string, word: string, samples: number, log: (m: string) => void): BenchRow[] {
  const times = { before: [] as number[], after: [] as number[] }
  const plans = { before: '', after: '' }
  for (let s = 0; s < samples; s++) {
    for (const phase of ['before', 'after'] as const) {
      const cache = openCache(file, { readonly: true })
      try {
        const search = createSearch(cache, {}, phase === 'after' ? {} : WHOLE_ORDER_WINDOW)
        const q = SearchQuery.parse({ text: word })
        const t0 = performance.now()
        search.page(q, 0, 100)
        times[phase].push(performance.now() - t0)
        if (s === 0) plans[phase] = search.explain(q, 100).served.plan
      } finally {
        cache.close()
      }
    }
  }
  log(`opened, first page of "${word}": ${JSON.stringify(times)} ${JSON.stringify(plans)}`)
  return [50, 95].map((p) => {
    const before = percentile(times.before, p)
    const after = percentile(times.after, p)
    return {
      metric: `opened: first page of a 50% word "${word}", the first query after opening [${plans.after}] p${p} of ${samples}`,
      value: after,
      unit: 'ms',
      baseline: before,
      ratio: before / after,
      target: p === 95 ? 25 : undefined,
      targetKind: 'max' as const,
      note: `baseline: same run, same file, alternating, the window reading the whole date order first [${plans.before}]; each sample on a cache opened fresh`
    }
  })
}
