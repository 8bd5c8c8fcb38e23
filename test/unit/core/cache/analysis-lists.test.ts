import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../../src/core/cache'
import { decodeList, encodeList, forEachJoinedId, idCode, SINGLE_MAX } from '../../../../src/core/cache/analysis-lists'
import { connectionOf } from '../../../../src/core/cache/call-cache'
import { parseNumeric } from '../../../../src/core/cache/numeric'
import { LeadReads } from '../../../../src/core/cache/review/lead-reads'
import { CODE_SQL } from '../../../../src/core/cache/schema/migration-19'
import { createSearch } from '../../../../src/core/search'
import { SearchQuery, type AnalysisItem, type CallRecord, type SearchQueryInput } from '../../../../src/shared/domain'
import { foldText } from '../../../../src/shared/text/fold'

const FILTERS = { callTypes: [], direction: null, results: 'all' as const, hasNewRequest: null, includeAnalysis: true }

/** Items that a layout could lose or mistype: numbers and text of one key, repeats, order, Turkish, empty values. */
function itemsOf(i: number): AnalysisItem[] {
  const items: AnalysisItem[] = [
    { key: 'score', friendlyName: 'Skor', value: ['12', '10.5', 'on iki', '', '007', '-3'][i % 6]! },
    { key: 'city', friendlyName: 'Şehir', value: ['İstanbul', 'IĞDIR', 'ışıklı köy', 'Çanakkale'][i % 4]! },
    { key: 'tag', friendlyName: 'Etiket', value: i % 3 === 0 ? 'b' : 'a' },
    { key: 'note', friendlyName: 'Not', value: i % 5 === 0 ? '' : `not ${i % 7}` }
  ]
  // A repeated key, its items out of any sorted order, and a call with none.
  if (i % 4 === 1) items.push({ key: 'tag', friendlyName: 'Etiket', value: 'a' }, { key: 'tag', friendlyName: 'Etiket', value: 'Ünlü' })
  if (i % 9 === 4) items.reverse()
  // The same key under a second friendly name.
  if (i % 11 === 3) items.push({ key: 'city', friendlyName: 'Il', value: 'İzmir' })
  return i % 13 === 7 ? [] : items
}

function rec(i: number, items = itemsOf(i)): CallRecord {
  const at = Date.UTC(2025, 0, 1) + i * 3_600_000
  return {
    callId: `c-${i}`,
    callAt: at,
    callDate: new Date(at).toISOString(),
    title: `görüşme ${i}`,
    summary: `müşteri ${i % 5}`,
    analysis: items,
    extra: {}
  }
}

const N = 120

function fill(cache: CallCache): void {
  cache.ensureScope('all', FILTERS)
  for (let i = 0; i < N; i += 40)
    cache.writePage({
      scopeKey: 'all',
      records: Array.from({ length: 40 }, (_, k) => rec(i + k)),
      includeAnalysis: true,
      checkpoint: null
    })
  // Changed analysis of stored calls: their old items leave, in the totals too.
  cache.writePage({
    scopeKey: 'all',
    records: [rec(3, [{ key: 'score', friendlyName: 'Skor', value: '99' }]), rec(8, itemsOf(9))],
    includeAnalysis: true,
    checkpoint: null
  })
}

const expected = (i: number): AnalysisItem[] => (i === 3 ? [{ key: 'score', friendlyName: 'Skor', value: '99' }] : itemsOf(i === 8 ? 9 : i))

const QUERIES: SearchQueryInput[] = [
  { analysis: [{ kind: 'equals', key: 'city', value: 'istanbul' }] },
  { analysis: [{ kind: 'equals', key: 'city', value: 'Işıklı Köy' }] },
  { analysis: [{ kind: 'equals', key: 'tag', value: 'ünlü' }] },
  { analysis: [{ kind: 'equals', key: 'score', value: 'on iki' }] },
  { analysis: [{ kind: 'range', key: 'score', min: 10, max: 12 }] },
  { analysis: [{ kind: 'range', key: 'score', min: null, max: 0 }] },
  {
    text: 'müşteri',
    analysis: [
      { kind: 'range', key: 'score', min: 7, max: null },
      { kind: 'equals', key: 'tag', value: 'a' }
    ]
  },
  { text: 'izmir' }
]

/** Count, every call id, and the per-value facet of every key, as search gives them. */
function answers(cache: CallCache): unknown {
  const search = createSearch(cache)
  return QUERIES.map((input) => {
    const q = SearchQuery.parse({ results: 'all', ...input })
    const ids = search
      .page(q, 0, 500)
      .rows.map((r) => r.callId)
      .sort()
    const facets = ['city', 'tag'].map((key) =>
      search
        .facets(q, key, 'UTC')
        .perValue.map((v) => ({ value: v.value, count: v.count }))
        .sort((a, b) => (a.value < b.value ? -1 : 1))
    )
    return { count: search.count(q), ids, facets }
  })
}

/** The same answers from the stored item rows of a schema 18 file, by plain SQL. */
function answersFromRows(file: string): unknown {
  const db = new Database(file, { readonly: true })
  db.function('fold_text', { deterministic: true }, (v: unknown) => (typeof v === 'string' ? foldText(v) : v))
  try {
    const items = (callId: string, key: string): Array<{ value: string; num: number | null }> =>
      db
        .prepare(
          `SELECT a.value, a.value_num AS num FROM analysis a JOIN analysis_keys k ON k.id = a.key_id JOIN calls c ON c.id = a.call
           WHERE c.call_id = ? AND k.key = ? ORDER BY a.ord`
        )
        .all(callId, key) as Array<{ value: string; num: number | null }>
    const calls = db.prepare('SELECT call_id, title, summary FROM calls').all() as Array<{
      call_id: string
      title: string
      summary: string
    }>
    return QUERIES.map((input) => {
      const ids = calls
        .filter((c) => {
          if (input.text && !foldText(`${c.title} ${c.summary}`).includes(foldText(input.text))) {
            const all = db
              .prepare("SELECT group_concat(a.value, ' ') FROM analysis a JOIN calls c ON c.id = a.call WHERE c.call_id = ?")
              .pluck()
              .get(c.call_id) as string | null
            if (!foldText(all ?? '').includes(foldText(input.text))) return false
          }
          return (input.analysis ?? []).every((f) =>
            items(c.call_id, f.key).some((a) =>
              f.kind === 'equals'
                ? foldText(a.value) === foldText(f.value)
                : a.num !== null && (f.min == null || a.num >= f.min) && (f.max == null || a.num <= f.max)
            )
          )
        })
        .map((c) => c.call_id)
        .sort()
      const facets = ['city', 'tag'].map((key) => {
        const n = new Map<string, number>()
        for (const id of ids) for (const a of items(id, key)) n.set(a.value, (n.get(a.value) ?? 0) + 1)
        return [...n].map(([value, count]) => ({ value, count })).sort((a, b) => (a.value < b.value ? -1 : 1))
      })
      return { count: ids.length, ids, facets }
    })
  } finally {
    db.close()
  }
}

/** The answers the records themselves give (what fill() wrote), computed in plain JS. */
function answersOfRecords(): unknown {
  const calls = Array.from({ length: N }, (_, i) => ({ id: `c-${i}`, r: rec(i), items: expected(i) }))
  return QUERIES.map((input) => {
    const ids = calls
      .filter((c) => {
        const words = foldText(`${c.r.title} ${c.r.summary} ${c.items.map((a) => a.value).join(' ')}`)
        if (input.text && !words.includes(foldText(input.text))) return false
        return (input.analysis ?? []).every((f) =>
          c.items.some((a) => {
            if (a.key !== f.key) return false
            if (f.kind === 'equals') return foldText(a.value) === foldText(f.value)
            const n = parseNumeric(a.value)
            return n !== null && (f.min == null || n >= f.min) && (f.max == null || n <= f.max)
          })
        )
      })
      .map((c) => c.id)
      .sort()
    const facets = ['city', 'tag'].map((key) => {
      const n = new Map<string, number>()
      for (const id of ids) for (const a of calls[Number(id.slice(2))]!.items) if (a.key === key) n.set(a.value, (n.get(a.value) ?? 0) + 1)
      return [...n].map(([value, count]) => ({ value, count })).sort((a, b) => (a.value < b.value ? -1 : 1))
    })
    return { count: ids.length, ids, facets }
  })
}

let dir: string
let file: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-lists-'))
  file = join(dir, 'c.db')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('a call list of value ids', () => {
  const ids = [1, 2, 83, 84, 2003, 2004, 0xd800 - 0x2d, 0xd800 - 0x2c, 0xd800 - 0x2b, 65_000, 200_000, SINGLE_MAX - 1, SINGLE_MAX]
  const big = [SINGLE_MAX + 1, SINGLE_MAX + 65_536, SINGLE_MAX + 65_537, SINGLE_MAX + 10_000_000]

  it('reads back every id in order, one code point up to SINGLE_MAX and a pair after', () => {
    expect(decodeList(encodeList([...ids, ...big, 1, 1]))).toEqual([...ids, ...big, 1, 1])
    for (const id of ids) expect([...idCode(id)]).toHaveLength(1)
    for (const id of big) expect([...idCode(id)]).toHaveLength(2)
    // Never the separator of joined lists, never a lone surrogate.
    for (const id of [...ids, ...big]) expect(idCode(id)).not.toContain(',')
    expect(Buffer.from(encodeList([...ids, ...big]), 'utf8').toString('utf8')).toBe(encodeList([...ids, ...big]))
    const seen: Array<[number, number]> = []
    forEachJoinedId(`${encodeList([5, SINGLE_MAX + 3])},${encodeList([7])}`, (list, id) => seen.push([list, id]))
    expect(seen).toEqual([
      [0, 5],
      [0, SINGLE_MAX + 3],
      [1, 7]
    ])
  })

  it('is written by migration 19 in SQL exactly as in JavaScript', () => {
    const db = new Database(':memory:')
    try {
      const sql = db.prepare(`SELECT ${CODE_SQL} FROM (SELECT ? AS id) v`).pluck()
      for (const id of [...ids, ...big]) expect(sql.get(id), String(id)).toBe(idCode(id))
    } finally {
      db.close()
    }
  })
})

describe('analysis items in lists (schema 19)', () => {
  it('keep every value, its type, its order, repeats and empty values; filters and facets answer from them', () => {
    const cache = openCache(file, { checkpointer: false })
    try {
      fill(cache)
      for (let i = 0; i < N; i++) expect(cache.getCall(`c-${i}`)!.analysis, `c-${i}`).toEqual(expected(i))
      const search = createSearch(cache)
      expect(answers(cache)).toEqual(answersOfRecords())
      // Numbers as numbers, text as text: '007' is 7, 'on iki' and '' no number.
      const db = connectionOf(cache)
      const nums = new Map(
        (
          db
            .prepare("SELECT v.value, v.value_num FROM analysis_values v JOIN analysis_keys k ON k.id = v.key_id WHERE k.key = 'score'")
            .raw()
            .all() as Array<[string, number | null]>
        ).map(([v, n]) => [v, n])
      )
      for (const [v, n] of nums) expect(n, v).toBe(parseNumeric(v))
      expect(nums.get('007')).toBe(7)
      expect(nums.get('on iki')).toBeNull()
      expect(nums.get('')).toBeNull()
      // Exports read the same records.
      const it = search.iterate({ kind: 'query', query: SearchQuery.parse({ results: 'all', sort: 'date_asc' }) })
      const exported = [...it.records]
      expect(exported).toHaveLength(N)
      for (const r of exported) expect(r.analysis).toEqual(expected(Number(r.callId.slice(2))))
    } finally {
      cache.close()
    }
  })
})

describe('migration 19', () => {
  it('turns a schema 18 cache into lists that answer every filter, facet and export as the rows did', () => {
    const old = openCache(file, { checkpointer: false, schemaVersion: 18 })
    try {
      fill(old)
    } finally {
      old.close()
    }
    const before = answersFromRows(file)
    const cache = openCache(file, { checkpointer: false })
    try {
      const db = connectionOf(cache)
      expect(db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(19)
      expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'analysis'").pluck().get()).toBe(0)
      expect(answers(cache)).toEqual(before)
      for (let i = 0; i < N; i++) expect(cache.getCall(`c-${i}`)!.analysis, `c-${i}`).toEqual(expected(i))
      // The most frequent pairs got the smallest ids (one byte each).
      const top = db.prepare('SELECT value FROM analysis_values ORDER BY id LIMIT 1').pluck().get()
      expect(['a', '']).toContain(top)
      // Written on after the migration, read back as written.
      cache.writePage({ scopeKey: 'all', records: [rec(500), rec(4, itemsOf(10))], includeAnalysis: true, checkpoint: null })
      expect(cache.getCall('c-500')!.analysis).toEqual(itemsOf(500))
      expect(cache.getCall('c-4')!.analysis).toEqual(itemsOf(10))
    } finally {
      cache.close()
    }
    // The same calls written at schema 19 from the start give the same answers.
    const fresh = join(dir, 'fresh.db')
    const other = openCache(fresh, { checkpointer: false })
    try {
      fill(other)
      expect(answers(other)).toEqual(before)
    } finally {
      other.close()
    }
  })
})

describe("the lead view's agent from an analysis key", () => {
  it('is the first item of the key in the call, in the order the service sent', () => {
    const cache = openCache(file, { checkpointer: false })
    try {
      fill(cache)
      const db = connectionOf(cache)
      const put = db.prepare(
        `INSERT INTO annotations (call_id, id, author, created_at, status_at, tags_at, note_at, total, score_at, updated_at, updated_by)
         VALUES (?, ?, 'a', 0, 0, 0, 0, 5, 0, 0, 'a')`
      )
      for (const i of [1, 4, 5, 7]) put.run(`c-${i}`, `ann-${i}`)
      const rows = new LeadReads(db).scored({ kind: 'analysis', key: 'tag' })
      const firstTag = (i: number): string | null => expected(i).find((a) => a.key === 'tag')?.value ?? null
      expect(rows.map((r) => r.agent).sort()).toEqual([1, 4, 5, 7].map(firstTag).sort())
    } finally {
      cache.close()
    }
  })
})
