/**
 * Local search over synthetic calls (bench/search-data.ts): ingest rate, then p50/p95 of
 * first pages, a deep page, counts and facets, each against the same queries written with
 * LIKE (text) and plain EXISTS (analysis) on the same database, measured in the same run.
 */
import { join } from 'node:path'
import { itemRowsAsTemp } from './baselines/analysis-rows'
import type Database from 'better-sqlite3'
import { openCache, type CallCache, type WritePageInput } from '../src/core/cache'
import { createSearch, type LocalSearch } from '../src/core/search'
import { SearchQuery, type CallRecord, type SearchQueryInput } from '../src/shared/domain'
import { COMMON_TERM, makeCall, prng, RARE_TERM, START_MS } from './search-data'
import { percentile, type BenchFn, type BenchRow } from './types'
import { connectionOf } from '../src/core/cache/call-cache'

const DAY = 24 * 3600 * 1000
const ALL_SCOPE = { callTypes: [], direction: null, results: 'answered' as const, hasNewRequest: null, includeAnalysis: true }
const TYPE_SCOPE = { callTypes: ['Fatura'], direction: null, results: 'answered' as const, hasNewRequest: null, includeAnalysis: false }

export function timeIt(iterations: number, budgetMs: number, f: () => unknown): number[] {
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

/**
 * Writes n generated calls in pages of 100 (as synced with analysis), `group` pages per
 * transaction: the sync engine stores pages that arrived together in one (up to 20).
 */
export function ingest(
  cache: CallCache,
  n: number,
  group: number,
  log: (l: string) => void
): { callsPerSec: number; medianPerSec: number; cpuPerSec: number; seconds: number } {
  cache.ensureScope('all', ALL_SCOPE)
  cache.ensureScope('type:Fatura', TYPE_SCOPE)
  const rnd = prng(42)
  let writeMs = 0
  let cpuUs = 0
  const faturaPage: CallRecord[] = []
  let held: WritePageInput[] = []
  // Rates per block of calls, for a median that a pause of this shared machine cannot move.
  const block = Math.max(100, n / 10)
  const blockRates: number[] = []
  let blockMs = 0
  let blockCalls = 0
  const store = (): void => {
    const cpu = process.cpuUsage()
    const t = performance.now()
    cache.writePages(held)
    const ms = performance.now() - t
    writeMs += ms
    blockMs += ms
    for (const p of held) if (p.scopeKey === 'all') blockCalls += p.records.length
    if (blockCalls >= block) {
      blockRates.push(blockCalls / (blockMs / 1000))
      blockMs = 0
      blockCalls = 0
    }
    const used = process.cpuUsage(cpu)
    cpuUs += used.user + used.system
    held = []
  }
  for (let i = 0; i < n; i += 100) {
    const page: CallRecord[] = []
    for (let k = i; k < Math.min(n, i + 100); k++) {
      const g = makeCall(k, n, rnd)
      page.push(g.record)
      if (g.topic === 0) faturaPage.push(g.record)
    }
    held.push({ scopeKey: 'all', records: page, includeAnalysis: true, checkpoint: { next: i + 100 } })
    // A second, narrower scope returns some of the same calls (without analysis).
    if (faturaPage.length >= 500)
      held.push({ scopeKey: 'type:Fatura', records: faturaPage.splice(0), includeAnalysis: false, checkpoint: { next: i } })
    if (held.length >= group) store()
    if (i % 200_000 === 0 && i > 0) log(`ingested ${i.toLocaleString('en')} calls`)
  }
  if (faturaPage.length) held.push({ scopeKey: 'type:Fatura', records: faturaPage, includeAnalysis: false, checkpoint: null })
  store()
  if (blockCalls > 0 && blockMs > 0) blockRates.push(blockCalls / (blockMs / 1000))
  return {
    callsPerSec: n / (writeMs / 1000),
    medianPerSec: percentile(blockRates, 50),
    cpuPerSec: n / (cpuUs / 1e6),
    seconds: writeMs / 1000
  }
}

/** The same questions in naive SQL: LIKE on raw text (which cannot even fold Turkish), OFFSET paging. */
class LikeBaseline {
  constructor(private readonly db: Database.Database) {
    // The naive SQL reads one row per item, as schema 18 stored them.
    itemRowsAsTemp(db)
  }

  private where(q: SearchQuery): { sql: string; params: unknown[] } {
    const conds: string[] = []
    const params: unknown[] = []
    for (const word of q.text.split(/\s+/).filter(Boolean)) {
      conds.push('(c.title LIKE ? OR c.summary LIKE ? OR EXISTS (SELECT 1 FROM analysis a WHERE a.call = c.id AND a.value LIKE ?))')
      params.push(`%${word}%`, `%${word}%`, `%${word}%`)
    }
    if (q.from !== null) {
      conds.push('c.call_at >= ?')
      params.push(q.from)
    }
    if (q.to !== null) {
      conds.push('c.call_at < ?')
      params.push(q.to)
    }
    for (const f of q.analysis) {
      if (f.kind === 'equals') {
        conds.push(
          'EXISTS (SELECT 1 FROM analysis a JOIN analysis_keys k ON k.id = a.key_id WHERE a.call = c.id AND k.key = ? AND a.value = ?)'
        )
        params.push(f.key, f.value)
      } else {
        conds.push(
          'EXISTS (SELECT 1 FROM analysis a JOIN analysis_keys k ON k.id = a.key_id WHERE a.call = c.id AND k.key = ? AND a.value_num BETWEEN ? AND ?)'
        )
        params.push(f.key, f.min ?? -1e308, f.max ?? 1e308)
      }
    }
    return { sql: conds.length ? `WHERE ${conds.join(' AND ')}` : '', params }
  }

  page(q: SearchQuery, offset: number, limit: number): unknown[] {
    const w = this.where(q)
    return this.db
      .prepare(
        `SELECT c.call_id, c.call_at, c.call_date, c.title, substr(c.summary, 1, 240), c.analysis_count FROM calls c ${w.sql} ORDER BY c.call_at DESC, c.call_id DESC LIMIT ? OFFSET ?`
      )
      .all(...w.params, limit, offset)
  }

  count(q: SearchQuery): number {
    const w = this.where(q)
    return this.db
      .prepare(`SELECT count(*) FROM calls c ${w.sql}`)
      .pluck()
      .get(...w.params) as number
  }

  facets(q: SearchQuery, key: string): unknown {
    const w = this.where(q)
    const days = this.db
      .prepare(`SELECT date(c.call_at / 1000 + 10800, 'unixepoch') AS d, count(*) FROM calls c ${w.sql} GROUP BY d`)
      .all(...w.params)
    const values = this.db
      .prepare(
        `SELECT a.value, count(*) FROM calls c JOIN analysis a ON a.call = c.id JOIN analysis_keys k ON k.id = a.key_id AND k.key = ? ${w.sql ? w.sql.replace('WHERE', 'WHERE') : ''} GROUP BY a.value`
      )
      .all(key, ...w.params)
    const types = this.db
      .prepare(`SELECT m.scope, count(*) FROM calls c JOIN scope_members m ON m.call = c.id ${w.sql} GROUP BY m.scope`)
      .all(...w.params)
    return [days, values, types]
  }
}

export const run: BenchFn = async (ctx) => {
  const n = ctx.quick ? 100_000 : 1_000_000
  const deep = ctx.quick ? 50_000 : 500_000
  const iters = ctx.quick ? 10 : 20
  const likeIters = 3
  const rows: BenchRow[] = []
  const cache = openCache(join(ctx.workDir, 'search-bench.db'))
  try {
    // One page per transaction, as a slow service delivers them, on a fresh file of its own.
    const single = openCache(join(ctx.workDir, 'ingest-single.db'))
    let one: ReturnType<typeof ingest>
    try {
      one = ingest(single, n / 5, 1, () => undefined)
    } finally {
      single.close()
    }
    rows.push({
      metric: `ingest, one page of 100 per transaction (${(n / 5).toLocaleString('en')} calls + 10 items + FTS), median of 10 blocks`,
      value: Math.round(one.medianPerSec),
      unit: 'calls/s',
      note: `whole run ${Math.round(one.callsPerSec)} calls/s; ${Math.round(one.cpuPerSec)} calls per CPU-second`
    })
    ctx.log(`ingesting ${n.toLocaleString('en')} calls with 10 analysis items each`)
    const ing = ingest(cache, n, 20, ctx.log)
    rows.push({
      metric: 'ingest, pages of 100 stored 20 per transaction as they arrive (calls + 10 items + FTS), median of 10 blocks',
      value: Math.round(ing.medianPerSec),
      unit: 'calls/s',
      target: 20_000,
      targetKind: 'min',
      note: `whole run ${Math.round(ing.callsPerSec)} calls/s over ${ing.seconds.toFixed(1)} s of writes; ${Math.round(ing.cpuPerSec)} calls per CPU-second`
    })
    const t = performance.now()
    cache.optimizeIndex()
    const optimizeS = (performance.now() - t) / 1000
    rows.push({
      metric: 'FTS optimize after ingest',
      value: optimizeS,
      unit: 's',
      note: `once per sync run; ingest incl. this: ${Math.round(n / (ing.seconds + optimizeS))} calls/s`
    })

    const search: LocalSearch = createSearch(cache)
    const like = new LikeBaseline(connectionOf(cache))
    const Q = (input: SearchQueryInput): SearchQuery => SearchQuery.parse(input)
    const month = { from: START_MS + 150 * DAY, to: START_MS + 180 * DAY }
    const firstPages: Array<[string, SearchQuery]> = [
      [`text common "${COMMON_TERM}" (~90%)`, Q({ text: COMMON_TERM })],
      [`text 1% "iptal"`, Q({ text: 'iptal' })],
      [`text rare "${RARE_TERM}" (~0.01%)`, Q({ text: RARE_TERM })],
      [`text common + 1% "${COMMON_TERM} iptal"`, Q({ text: `${COMMON_TERM} iptal` })],
      ['text prefix as typed "fatur"', Q({ text: 'fatur' })],
      [`text common + 30 days`, Q({ text: COMMON_TERM, ...month })],
      [`text 1% + 30 days`, Q({ text: 'iptal', ...month })],
      ['analysis sentiment = olumsuz (~33%)', Q({ analysis: [{ kind: 'equals', key: 'sentiment', value: 'olumsuz' }] })],
      ['analysis vip = platin (~0.01%)', Q({ analysis: [{ kind: 'equals', key: 'vip', value: 'platin' }] })],
      ['analysis score 95..100', Q({ analysis: [{ kind: 'range', key: 'score', min: 95, max: 100 }] })],
      ['relevance "iptal"', Q({ text: 'iptal', sort: 'relevance' })]
    ]
    const measure = (label: string, f: () => unknown, base: (() => unknown) | null, target?: number): void => {
      const ours = timeIt(iters, 6_000, () => {
        search.resetCaches()
        f()
      })
      const theirs = base ? timeIt(likeIters, 3_000, base) : []
      const p50 = percentile(ours, 50)
      const p95 = percentile(ours, 95)
      const b50 = theirs.length ? percentile(theirs, 50) : undefined
      const b95 = theirs.length ? percentile(theirs, 95) : undefined
      rows.push({
        metric: `${label} p50`,
        value: p50,
        unit: 'ms',
        baseline: b50,
        ratio: b50 === undefined ? undefined : b50 / p50,
        note: 'ratio = baseline / ours'
      })
      rows.push({
        metric: `${label} p95`,
        value: p95,
        unit: 'ms',
        baseline: b95,
        ratio: b95 === undefined ? undefined : b95 / p95,
        target,
        targetKind: target === undefined ? undefined : 'max',
        note: 'ratio = baseline / ours'
      })
    }
    for (const [label, q] of firstPages) {
      const plan = search.explain(q, 100).plan
      measure(
        `first page: ${label} [${plan}]`,
        () => search.page(q, 0, 100),
        q.sort === 'relevance' ? null : () => like.page(q, 0, 100),
        25
      )
    }
    for (const [label, q] of [
      ['no filter', Q({})],
      [`text common "${COMMON_TERM}"`, Q({ text: COMMON_TERM })]
    ] as Array<[string, SearchQuery]>) {
      measure(
        `page ${deep.toLocaleString('en')} deep, cold: ${label}`,
        () => search.page(q, deep, 100),
        () => like.page(q, deep, 100),
        25
      )
      // What the app does: the count comes with the first page, then the user drags the scrollbar.
      const afterCount: number[] = []
      for (let i = 0; i < iters; i++) {
        search.resetCaches()
        search.count(q)
        const t0 = performance.now()
        search.page(q, deep, 100)
        afterCount.push(performance.now() - t0)
      }
      rows.push({
        metric: `page ${deep.toLocaleString('en')} deep right after the count (as the app asks): ${label} p95`,
        value: percentile(afterCount, 95),
        unit: 'ms',
        target: 25,
        targetKind: 'max'
      })
      search.resetCaches()
      search.page(q, deep, 100)
      const warm = timeIt(iters, 10_000, () => search.page(q, deep + 100 + Math.floor(Math.random() * 50_000), 100))
      rows.push({
        metric: `random page up to 50,000 rows past a visited deep page: ${label} p95`,
        value: percentile(warm, 95),
        unit: 'ms',
        target: 25,
        targetKind: 'max'
      })
      const seq: number[] = []
      for (let i = 1; i <= iters; i++) {
        const t0 = performance.now()
        search.page(q, deep + i * 100, 100)
        seq.push(performance.now() - t0)
      }
      rows.push({
        metric: `next page after a deep one (sequential): ${label} p95`,
        value: percentile(seq, 95),
        unit: 'ms',
        target: 25,
        targetKind: 'max'
      })
    }
    for (const [label, q] of [
      ['no filter', Q({})],
      [`text common "${COMMON_TERM}"`, Q({ text: COMMON_TERM })],
      ['text 1% "iptal"', Q({ text: 'iptal' })],
      ['text 1% + 30 days', Q({ text: 'iptal', ...month })],
      ['analysis sentiment = olumsuz', Q({ analysis: [{ kind: 'equals', key: 'sentiment', value: 'olumsuz' }] })]
    ] as Array<[string, SearchQuery]>) {
      measure(
        `count: ${label}`,
        () => search.count(q),
        () => like.count(q)
      )
    }
    for (const [label, q, key] of [
      ['no filter, key score (numeric)', Q({}), 'score'],
      ['text 1% "iptal", key sentiment', Q({ text: 'iptal' }), 'sentiment'],
      [`text common "${COMMON_TERM}", key sentiment`, Q({ text: COMMON_TERM }), 'sentiment'],
      [`text common "${COMMON_TERM}", key score (numeric)`, Q({ text: COMMON_TERM }), 'score'],
      ['30 days, key agent', Q({ ...month }), 'agent']
    ] as Array<[string, SearchQuery, string]>) {
      measure(
        `facets: ${label}`,
        () => search.facets(q, key, 'Europe/Istanbul'),
        () => like.facets(q, key),
        300
      )
    }
    // During a sync, facets follow each stored page: the in-memory columns read again only
    // the calls the page added or changed (the cache's change journal).
    const extra = prng(4242)
    const firstAfterWrite: number[] = []
    search.facets(Q({ text: COMMON_TERM }), 'sentiment', 'Europe/Istanbul')
    for (let i = 0; i < Math.min(iters, 5); i++) {
      const page = Array.from({ length: 100 }, (_, k) => makeCall(n + i * 100 + k, n, extra).record)
      cache.writePages([{ scopeKey: 'all', records: page, includeAnalysis: true, checkpoint: { next: n + i * 100 } }])
      const t0 = performance.now()
      search.facets(Q({ text: COMMON_TERM }), 'sentiment', 'Europe/Istanbul')
      firstAfterWrite.push(performance.now() - t0)
    }
    rows.push({
      metric: `facets: text common "${COMMON_TERM}", key sentiment, right after a page of 100 new calls was stored p95`,
      value: percentile(firstAfterWrite, 95),
      unit: 'ms',
      target: 300,
      targetKind: 'max'
    })
    return { name: 'search', rows }
  } finally {
    cache.close()
  }
}
