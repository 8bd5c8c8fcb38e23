/**
 * The search language as analysts type it (issue 17): short prefixes, relevance over a week,
 * AND / phrase / OR / NOT of 5 % words, analysis terms. Every shape is measured twice in the
 * same run on the same calls: first on the index as main had it at 772697e (schema 6, no
 * prefix index: a short prefix merges every doclist under it), then after migration 7 (FTS5
 * prefix='1 2'), which is timed too. Cold: the search's per-query memory is reset before each
 * run. First page of 100, count and facets (key sentiment), p95.
 */
import { join } from 'node:path'
import { openCache } from '../src/core/cache'
import { createSearch, type LocalSearch } from '../src/core/search'
import { SearchQuery, type SearchQueryInput } from '../src/shared/domain'
import { tokensOf } from '../src/shared/query'
import { COMMON_TERM, makeCall, prng, START_MS } from './search-data'
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
function wordsNear(share: number, count: number, n: number): string[] {
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

/**
 * What the prefix index costs ingest: the same calls written into a fresh cache at schema 6
 * (no prefix index) and at the current schema, alternately in blocks so a pause of this
 * shared machine falls on both, median calls/s of each (README's target: 20,000).
 */
function ingestCost(ctx: Parameters<BenchFn>[0], n: number): BenchRow {
  const rates: Record<'old' | 'new', number[]> = { old: [], new: [] }
  for (let round = 0; round < 3; round++) {
    for (const which of ['old', 'new'] as const) {
      const file = join(ctx.workDir, `query-ingest-${which}-${round}.db`)
      const cache = openCache(file, which === 'old' ? { schemaVersion: 6 } : {})
      try {
        rates[which].push(ingest(cache, Math.ceil(n / 3), 20, () => undefined).callsPerSec)
      } finally {
        cache.close()
      }
    }
  }
  const median = (xs: number[]): number => percentile(xs, 50)
  ctx.log(`ingest old ${rates.old.map((r) => r.toFixed(0)).join('/')} new ${rates.new.map((r) => r.toFixed(0)).join('/')} calls/s`)
  return {
    metric: `ingest with the prefix index (${Math.ceil(n / 3).toLocaleString('en')} calls × 3 fresh caches, median)`,
    value: median(rates.new),
    unit: 'calls/s',
    baseline: median(rates.old),
    ratio: median(rates.new) / median(rates.old),
    target: 20_000,
    targetKind: 'min',
    note: 'baseline: same run, schema 6 (no prefix index); ratio = ours / baseline'
  }
}

export const run: BenchFn = async (ctx) => {
  const n = ctx.quick ? 100_000 : 1_000_000
  const iters = ctx.quick ? 10 : 20
  const rows: BenchRow[] = []
  const file = join(ctx.workDir, 'query-bench.db')
  const [w1, w2] = wordsNear(0.05, 2, n)
  const [half] = wordsNear(0.5, 1, n)
  const end = START_MS + 365 * DAY
  const Q = (input: SearchQueryInput): SearchQuery => SearchQuery.parse(input)
  const shapes: Array<[string, SearchQuery]> = [
    ['one-letter prefix "i"', Q({ text: 'i' })],
    ['two-letter prefix "ka"', Q({ text: 'ka' })],
    [`common word "${COMMON_TERM}", last 7 days, by relevance`, Q({ text: COMMON_TERM, from: end - 7 * DAY, to: end, sort: 'relevance' })],
    [`two 5% words "${w1} ${w2}"`, Q({ text: `${w1} ${w2}` })],
    [`phrase "\\"${w1} ${w2}\\""`, Q({ text: `"${w1} ${w2}"` })],
    [`OR "${w1} OR iptal"`, Q({ text: `${w1} OR iptal` })],
    [`NOT "${COMMON_TERM} -${w1}"`, Q({ text: `${COMMON_TERM} -${w1}` })],
    [`csat = 1 and a 50% word "csat:1 ${half}"`, Q({ text: `csat:1 ${half}` })],
    ['range and equals "duration:300..600 duygu:olumsuz"', Q({ text: 'duration:300..600 duygu:olumsuz' })]
  ]

  // Schema 6: the index as main had it.
  const before = openCache(file, { schemaVersion: 6 })
  try {
    ctx.log(`ingesting ${n.toLocaleString('en')} calls at schema 6`)
    ingest(before, n, 20, ctx.log)
    before.optimizeIndex()
  } finally {
    before.close()
  }
  const results = new Map<string, { before?: number; after?: number; plan?: string }>()
  const measureAll = (search: LocalSearch, phase: 'before' | 'after'): void => {
    for (const [label, q] of shapes) {
      const plan = search.explain(q, 100).plan
      const measures: Array<[string, () => unknown]> = [
        ['first page', () => search.page(q, 0, 100)],
        ['count', () => search.count(q)],
        ['facets', () => search.facets(q, 'sentiment', 'Europe/Istanbul')]
      ]
      for (const [what, f] of measures) {
        const times = timeIt(iters, 8_000, () => {
          search.resetCaches()
          f()
        })
        const key = `${what}: ${label}`
        const r = results.get(key) ?? {}
        r[phase] = percentile(times, 95)
        if (phase === 'after') r.plan = plan
        results.set(key, r)
      }
      ctx.log(`${phase}: ${label} [${plan}]`)
    }
  }
  const reopened = openCache(file, { schemaVersion: 6 })
  try {
    measureAll(createSearch(reopened), 'before')
  } finally {
    reopened.close()
  }
  const t = performance.now()
  const after = openCache(file)
  const migrateS = (performance.now() - t) / 1000
  rows.push({ metric: `migration 7 (index rebuilt with prefix='1 2') at ${n.toLocaleString('en')} calls`, value: migrateS, unit: 's' })
  try {
    measureAll(createSearch(after), 'after')
  } finally {
    after.close()
  }
  rows.push(ingestCost(ctx, Math.min(n, 200_000)))
  const target: Record<string, number> = { 'first page': 25, count: 100, facets: 300 }
  for (const [key, r] of results) {
    const what = key.slice(0, key.indexOf(':'))
    rows.push({
      metric: `${key} [${r.plan}] p95`,
      value: r.after!,
      unit: 'ms',
      baseline: r.before,
      ratio: r.before !== undefined ? r.before / r.after! : undefined,
      target: target[what],
      targetKind: 'max',
      note: 'baseline: same run, schema 6 (the index as main had it at 772697e); ratio = baseline / ours'
    })
  }
  return { name: 'query', rows }
}
