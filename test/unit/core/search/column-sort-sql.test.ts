import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../../src/core/cache'
import { createSearch, type LocalSearch } from '../../../../src/core/search'
import { SearchQuery, type CallRecord, type ColumnSort, type SearchQueryInput } from '../../../../src/shared/domain'
import { prng } from '../../../support/prng'
import { connectionOf } from '../../../../src/core/cache/call-cache'
import { itemRowsTable } from '../cache/old-layouts'

// Sorted pages against SQL brute force on the same file: the rows of
// `ORDER BY value, call_at, call_id` (descending: `value DESC, call_at DESC, call_id DESC`),
// calls without a value last in date order, the query's matches selected by plain SQL (LIKE
// on the stored summary, the score compared in SQL; no FTS5, none of the search's code).
// Numeric and text keys, both directions, ties, no value; paged in pages of 37 (keyset
// paging from the position each page ended at), jumps, and after the count read the list.
// The queries reach every driver of sorted-page.ts: a common word (asking SQL along the
// order), a rare word (its counted ids sorted by place), a word in a few percent of calls
// and a date range (asking gives up, the list is read), and the bitmap walk after a count.

const T0 = Date.UTC(2026, 2, 1)
/** ASCII only and no i/I, so SQLite's NOCASE then BINARY orders them as the list does: letters, then capitals first. */
const QUEUES = ['alpha', 'Beta', 'beta', 'gamma', 'Delta', 'echo', 'foxtrot']

let dir = ''
let cache: CallCache
let search: LocalSearch

function makeCalls(n: number): CallRecord[] {
  const r = prng(91)
  const out: CallRecord[] = []
  for (let i = 0; i < n; i++) {
    // Ties of time: a call now and then in the same millisecond as the one before.
    const callAt = i > 0 && r() < 0.1 ? out[i - 1]!.callAt : T0 + Math.floor(r() * 30 * 86_400) * 1000
    const analysis = []
    // No score for some calls; few distinct scores, so ties of value are many.
    if (r() < 0.8) analysis.push({ key: 'score', friendlyName: 'Puan', value: String(Math.floor(r() * 60) - 20) })
    if (r() < 0.85) analysis.push({ key: 'queue', friendlyName: 'Kuyruk', value: QUEUES[Math.floor(r() * QUEUES.length)]! })
    const words = ['görüşme']
    if (r() < 0.9) words.push('müşteri')
    if (r() < 0.06) words.push('kampanya')
    if (r() < 0.01) words.push('kuzguncuk')
    out.push({
      callId: `s${Math.floor(r() * 1e9).toString(36)}-${i}`,
      callAt,
      callDate: new Date(callAt).toISOString(),
      title: `çağrı ${i}`,
      summary: words.join(' '),
      analysis,
      extra: {}
    })
  }
  return out
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-colsort-sql-'))
  cache = openCache(join(dir, 'cache.db'))
  cache.ensureScope('all', { callTypes: [], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: true })
  const calls = makeCalls(4_000)
  for (let i = 0; i < calls.length; i += 200)
    cache.writePage({ scopeKey: 'all', records: calls.slice(i, i + 200), includeAnalysis: true, checkpoint: null })
  cache.optimizeIndex()
  // The brute force reads the items as rows (temp.analysis).
  itemRowsTable(connectionOf(cache))
  search = createSearch(cache)
})
afterAll(() => {
  cache.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The query's matches as plain SQL over calls (c) and the call's score (s). */
interface Case {
  name: string
  input: SearchQueryInput
  where: string
}

const DAY = 86_400_000
const CASES: Case[] = [
  { name: 'no filter', input: {}, where: '1' },
  { name: 'a common word (~90 %)', input: { text: 'müşteri' }, where: "c.summary LIKE '%müşteri%'" },
  { name: 'a word in ~6 %', input: { text: 'kampanya' }, where: "c.summary LIKE '%kampanya%'" },
  { name: 'a rare word (~1 %)', input: { text: 'kuzguncuk' }, where: "c.summary LIKE '%kuzguncuk%'" },
  {
    name: 'a common word and a score range',
    input: { text: 'müşteri', analysis: [{ kind: 'range', key: 'score', min: 30 }] },
    where:
      "c.summary LIKE '%müşteri%' AND EXISTS (SELECT 1 FROM analysis a JOIN analysis_keys k ON k.id = a.key_id WHERE a.call = c.id AND k.key = 'score' AND a.value_num >= 30)"
  },
  {
    name: 'a rare word and a score range',
    input: { text: 'kuzguncuk', analysis: [{ kind: 'range', key: 'score', max: 10 }] },
    where:
      "c.summary LIKE '%kuzguncuk%' AND EXISTS (SELECT 1 FROM analysis a JOIN analysis_keys k ON k.id = a.key_id WHERE a.call = c.id AND k.key = 'score' AND a.value_num <= 10)"
  },
  {
    name: 'a date range alone (~3 %)',
    input: { from: T0 + 10 * DAY, to: T0 + 11 * DAY },
    where: `c.call_at >= ${T0 + 10 * DAY} AND c.call_at < ${T0 + 11 * DAY}`
  }
]

/** The sorted ids by brute force: the key's first item per call, ordered in SQL. */
function bruteForce(c: Case, sort: ColumnSort): string[] {
  const key = sort.column.slice('analysis:'.length)
  const d = sort.dir === 'desc' ? 'DESC' : 'ASC'
  // Valued calls first by value (text: letters, then capitals first), time and id in the
  // direction; then the calls without a value, in date order.
  const valued = (e: string): string => `CASE WHEN v.call IS NOT NULL THEN ${e} END ${d}`
  const byValue = key === 'score' ? [valued('v.value_num')] : [valued('v.value COLLATE NOCASE'), valued('v.value COLLATE BINARY')]
  const sql = `
    WITH firsts AS (
      SELECT a.call, a.value, a.value_num FROM analysis a JOIN analysis_keys k ON k.id = a.key_id
      WHERE k.key = ? AND a.ord = (SELECT min(b.ord) FROM analysis b WHERE b.call = a.call AND b.key_id = a.key_id))
    SELECT c.call_id FROM calls c LEFT JOIN firsts v ON v.call = c.id
    WHERE ${c.where}
    ORDER BY (v.call IS NULL), ${byValue.join(', ')}, ${valued('c.call_at')}, ${valued('c.call_id')}, c.call_at, c.call_id`
  return (connectionOf(cache).prepare(sql).pluck().all(key) as string[]).slice()
}

function pages(q: SearchQuery, sortBy: ColumnSort, limit: number): string[] {
  const out: string[] = []
  for (let offset = 0; ; offset += limit) {
    const rows = search.page(q, offset, limit, { sortBy }).rows
    out.push(...rows.map((r) => r.callId))
    if (rows.length < limit) return out
  }
}

const SORTS: ColumnSort[] = [
  { column: 'analysis:score', dir: 'asc' },
  { column: 'analysis:score', dir: 'desc' },
  { column: 'analysis:queue', dir: 'asc' },
  { column: 'analysis:queue', dir: 'desc' }
]

describe('sorted pages against SQL brute force', () => {
  it.each(SORTS.map((s) => [`${s.column} ${s.dir}`, s] as const))('%s: every query, paged, jumped, after a count', (_n, sort) => {
    for (const c of CASES) {
      const want = bruteForce(c, sort)
      const q = SearchQuery.parse({ results: 'all', ...c.input })
      search.resetCaches()
      // The first page alone (what a first sorted page costs is served by the driver chosen
      // cold), then reading on page by page from where each ended.
      expect(
        search.page(q, 0, 37, { sortBy: sort }).rows.map((r) => r.callId),
        `${c.name}: first page`
      ).toEqual(want.slice(0, 37))
      expect(pages(q, sort, 37), c.name).toEqual(want)
      search.resetCaches()
      // A jump deep into the list first, then back to the start, cold.
      const mid = Math.floor(want.length / 2)
      expect(
        search.page(q, mid, 25, { sortBy: sort }).rows.map((r) => r.callId),
        `${c.name}: jump`
      ).toEqual(want.slice(mid, mid + 25))
      expect(
        search.page(q, 5, 10, { sortBy: sort }).rows.map((r) => r.callId),
        `${c.name}: back`
      ).toEqual(want.slice(5, 15))
      // With the match list read by the count: the bitmap walk or the sorted list.
      search.resetCaches()
      expect(search.count(q)).toBe(want.length)
      expect(pages(q, sort, 37), `${c.name}: after the count`).toEqual(want)
    }
  })

  it('has data that makes the comparison hard: ties of value and time, calls without a value, cases of a letter', () => {
    const db = connectionOf(cache)
    const ties = db.prepare(`SELECT count(*) FROM (SELECT call_at FROM calls GROUP BY call_at HAVING count(*) > 1)`).pluck().get() as number
    expect(ties).toBeGreaterThan(50)
    for (const c of CASES.slice(1)) {
      const n = db.prepare(`SELECT count(*) FROM calls c WHERE ${c.where}`).pluck().get() as number
      expect(n, c.name).toBeGreaterThan(10)
    }
    const noScore =
      bruteForce(CASES[0]!, SORTS[0]!).length -
      (db
        .prepare(`SELECT count(DISTINCT call) FROM analysis a JOIN analysis_keys k ON k.id = a.key_id WHERE k.key = 'score'`)
        .pluck()
        .get() as number)
    expect(noScore).toBeGreaterThan(400)
  })
})
