/**
 * Sorting the results list by a chosen column (issue 18) over synthetic calls: first pages
 * and deep pages sorted by a numeric and a text analysis key, with and without a common
 * word, against the date order measured in the same run on the same file. The sorted order
 * of a column is built once per data version (after a sync); its build is reported apart.
 */
import { join } from 'node:path'
import { openCache } from '../src/core/cache'
import { createSearch } from '../src/core/search'
import { SearchQuery, type ColumnSort, type SearchQueryInput } from '../src/shared/domain'
import { ingest, timeIt } from './search'
import { COMMON_TERM } from './search-data'
import { percentile, type BenchFn, type BenchRow } from './types'

export const run: BenchFn = async (ctx) => {
  const n = ctx.quick ? 100_000 : 1_000_000
  const deep = n / 2
  const iters = ctx.quick ? 10 : 20
  const rows: BenchRow[] = []
  const cache = openCache(join(ctx.workDir, 'column-sort-bench.db'))
  try {
    ctx.log(`ingesting ${n.toLocaleString('en')} calls with 10 analysis items each`)
    ingest(cache, n, 20, ctx.log)
    cache.optimizeIndex()
    const Q = (input: SearchQueryInput): SearchQuery => SearchQuery.parse(input)
    const numeric: ColumnSort = { column: 'analysis:score', dir: 'desc' }
    const text: ColumnSort = { column: 'analysis:agent', dir: 'asc' }

    // The build of a column's sorted order, on a search that has read nothing yet (the date
    // order and the key's items are read too): what the first sort after a sync costs.
    for (const [label, sort] of [
      ['numeric key score', numeric],
      ['text key agent (Turkish collation)', text]
    ] as const) {
      const builds = timeIt(ctx.quick ? 3 : 5, 20_000, () => createSearch(cache).page(Q({}), 0, 100, { sortBy: sort }))
      rows.push({
        metric: `sort by ${label}: first page on a cold search (builds the sorted order) p50`,
        value: percentile(builds, 50),
        unit: 'ms',
        note: 'once per data version'
      })
    }

    const search = createSearch(cache)
    const cases: Array<[string, SearchQuery]> = [
      ['no filter', Q({})],
      [`text common "${COMMON_TERM}" (~90%)`, Q({ text: COMMON_TERM })],
      ['text 1% "iptal"', Q({ text: 'iptal' })]
    ]
    for (const [label, q] of cases) {
      for (const [what, offset] of [
        ['first page', 0],
        [`page ${deep.toLocaleString('en')} deep`, deep]
      ] as const) {
        if (offset > 0 && label.startsWith('text 1%')) continue
        const date = timeIt(iters, 6_000, () => {
          search.resetCaches()
          search.page(q, offset, 100)
        })
        const b50 = percentile(date, 50)
        const b95 = percentile(date, 95)
        for (const [sortLabel, sort] of [
          ['numeric key score', numeric],
          ['text key agent', text]
        ] as const) {
          search.page(q, 0, 1, { sortBy: sort })
          const ours = timeIt(iters, 6_000, () => {
            search.resetCaches()
            search.page(q, offset, 100, { sortBy: sort })
          })
          const p50 = percentile(ours, 50)
          const p95 = percentile(ours, 95)
          rows.push({
            metric: `${what}, sorted by ${sortLabel}: ${label} p50`,
            value: p50,
            unit: 'ms',
            baseline: b50,
            ratio: b50 / p50,
            note: 'baseline: the same page in date order, same run; ratio = baseline / ours'
          })
          rows.push({
            metric: `${what}, sorted by ${sortLabel}: ${label} p95`,
            value: p95,
            unit: 'ms',
            baseline: b95,
            ratio: b95 / p95,
            target: 25,
            targetKind: 'max',
            note: 'cold query (no anchors, no match list); the sorted order built'
          })
        }
      }
    }
    // Reading on: the next page after one served, through the position remembered.
    const q = Q({ text: COMMON_TERM })
    search.resetCaches()
    search.page(q, deep, 100, { sortBy: numeric })
    const seq: number[] = []
    for (let i = 1; i <= iters; i++) {
      const t0 = performance.now()
      search.page(q, deep + i * 100, 100, { sortBy: numeric })
      seq.push(performance.now() - t0)
    }
    rows.push({
      metric: `next page after a deep one, sorted by numeric key score: text common p95`,
      value: percentile(seq, 95),
      unit: 'ms',
      target: 25,
      targetKind: 'max'
    })
    return { name: 'column-sort', rows }
  } finally {
    cache.close()
  }
}
