/**
 * The search language as analysts type it: short prefixes, relevance over a week,
 * AND / phrase / OR / NOT of 5 % words, analysis terms. Every shape is measured twice in the
 * same run on the same cache file: first by search as it was before counting moved to the
 * bitmap evaluator (`createSearch(cache, { bitmaps: false })`), then as it is. Cold: the
 * search's per-query memory is reset before each run (data-level memory, the in-memory columns,
 * is built by one untimed run first; with the bitmap evaluator that includes the kept sets
 * of one- and two-letter prefixes, prefix-sets.ts). First page of 100, count and facets (key
 * sentiment), p95. One row, measured once per side, is the first count and facets of "i" on
 * a search just opened: what the data-level memory costs the first keystroke. Two more rows
 * (query-cold.ts): the first page of the first analysis query on a search just opened.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { openCache } from '../src/core/cache'
import { createSearch, type LocalSearch } from '../src/core/search'
import { tokensOf } from '../src/shared/query'
import { COMMON_TERM, makeCall, prng, START_MS } from './search-data'
import { queryShapes } from '../test/support/query-shapes'
import { coldAnalysisRows, openedFirstPageRows } from './query-cold'
import { ingest } from './search'
import { percentile, type BenchFn, type BenchRow } from './types'

const DAY = 24 * 3600 * 1000

function timeIt(iterations: number, budgetMs: number, f: () => unknown): number[] {
  const out: number[] = []
  const started = performance.now()
  for (let i = 0; i < iterations; i++) {
    const t = performance.now()
    f()
    out.push(performance.now() - t)
    if (performance.now() - started > budgetMs) break
  }
  return out
}

/** Words of the generated summaries whose share of calls is nearest `share`, from a sample of the generator. */
export function wordsNear(share: number, count: number, n: number): string[] {
  const rnd = prng(42)
  const sample = Math.min(20_000, n)
  const docs = new Map<string, number>()
  for (let i = 0; i < sample; i++) {
    for (const t of new Set(tokensOf(makeCall(i, n, rnd).record.summary))) docs.set(t, (docs.get(t) ?? 0) + 1)
  }
  return [...docs.entries()]
    .filter(([t]) => t.length >= 4 && t !== 'musteri')
    .sort((a, b) => Math.abs(a[1] / sample - share) - Math.abs(b[1] / sample - share))
    .slice(0, count)
    .map(([t]) => t)
}

/** The cache file of a size: `CALLSIGHT_BENCH_QUERY_DB` keeps it between runs (iterating on the search code). */
function cacheFile(ctx: Parameters<BenchFn>[0], n: number): string {
  const kept = process.env.CALLSIGHT_BENCH_QUERY_DB
  const file = kept ? `${kept}.${n}.db` : join(ctx.workDir, 'query-bench.db')
  if (kept && existsSync(file)) return file
  const cache = openCache(file)
  try {
    ctx.log(`ingesting ${n.toLocaleString('en')} calls`)
    ingest(cache, n, 20, ctx.log)
    cache.optimizeIndex()
  } finally {
    cache.close()
  }
  return file
}

export const run: BenchFn = async (ctx) => {
  // CALLSIGHT_BENCH_QUERY_CALLS: another size (e.g. 200000 while iterating).
  const n = Number(process.env.CALLSIGHT_BENCH_QUERY_CALLS) || (ctx.quick ? 100_000 : 1_000_000)
  const iters = ctx.quick ? 10 : 20
  const rows: BenchRow[] = []
  const [w1, w2] = wordsNear(0.05, 2, n)
  const [half] = wordsNear(0.5, 1, n)
  const end = START_MS + 365 * DAY
  const shapes = queryShapes({ w1: w1!, w2: w2!, half: half!, common: COMMON_TERM, end })

  const file = cacheFile(ctx, n)
  const results = new Map<string, { before?: number; after?: number; plan?: string }>()
  const OPENED = 'opened: count + facets of "i" on a search just opened (once, not p95)'
  const measureAll = (search: LocalSearch, phase: 'before' | 'after'): void => {
    // Once, on the search just opened: the first count and facets of "i" pay for the
    // data-level memory too (the in-memory columns, the catalog, and with the bitmap
    // evaluator the kept set of the prefix), as the first keystroke after opening or a sync.
    const first = shapes[0]![1]
    const t0 = performance.now()
    search.count(first)
    search.facets(first, 'sentiment', 'Europe/Istanbul')
    const r0 = results.get(OPENED) ?? {}
    r0[phase] = performance.now() - t0
    results.set(OPENED, r0)
    for (const [label, q] of shapes) {
      const plan = search.explain(q, 100).plan
      const measures: Array<[string, () => unknown]> = [
        ['first page', () => search.page(q, 0, 100)],
        ['count', () => search.count(q)],
        ['facets', () => search.facets(q, 'sentiment', 'Europe/Istanbul')]
      ]
      for (const [what, f] of measures) {
        // Once untimed: data-level memory (the facet columns, the catalog) is built, as the
        // app builds it on the first query that needs it; per-query memory is reset below.
        const t0 = performance.now()
        f()
        const once = performance.now() - t0
        // The old search's slowest shapes take minutes at 1,000,000 calls: a first run over
        // 2 s is its only sample (data-level memory, at most a second or two of it, included),
        // so the bench fits the quiet window. Ours is always measured after the warm-up.
        const times =
          phase === 'before' && once > 2_000
            ? [once]
            : timeIt(iters, 8_000, () => {
                search.resetCaches()
                f()
              })
        const key = `${what}: ${label}`
        const r = results.get(key) ?? {}
        r[phase] = percentile(times, 95)
        if (phase === 'after') r.plan = plan
        results.set(key, r)
      }
      ctx.log(`${phase}: ${label} [${plan}] count ${search.count(q)}`)
    }
  }
  // The same calls, the same cache file: first as main had search before this change, then ours.
  for (const phase of ['before', 'after'] as const) {
    const cache = openCache(file)
    try {
      measureAll(createSearch(cache, { bitmaps: phase === 'after' }), phase)
    } finally {
      cache.close()
    }
  }
  const target: Record<string, number> = { 'first page': 25, count: 100, facets: 300 }
  for (const [key, r] of results) {
    const what = key.slice(0, key.indexOf(':'))
    rows.push({
      metric: key === OPENED ? key : `${key} [${r.plan}] p95`,
      value: r.after!,
      unit: 'ms',
      baseline: r.before,
      ratio: r.before !== undefined ? r.before / r.after! : undefined,
      target: target[what],
      targetKind: 'max',
      note: 'baseline: same run, same cache, search without the bitmap evaluator (counts and facets as they were before it); ratio = baseline / ours'
    })
  }
  // The first analysis query's page on a search just opened, old cold path and ours (query-cold.ts).
  rows.push(...coldAnalysisRows(file, 3, ctx.log))
  // The first query after opening: a 50 % word's first page on a cache just opened.
  rows.push(...openedFirstPageRows(file, half!, ctx.quick ? 4 : 12, ctx.log))
  return { name: 'query', rows }
}
