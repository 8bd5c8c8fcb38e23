import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { migrate, openCache, SCHEMA_VERSION, type CallCache, type Migration } from '../../../../src/core/cache'
import { mergeInterval } from '../../../../src/core/cache/sync-state/coverage'
import { parseNumeric } from '../../../../src/core/cache/numeric'
import { CallsightError } from '../../../../src/core/errors'
import type { Clock } from '../../../../src/core/platform'
import type { CallRecord } from '../../../../src/shared/domain'
import { analysisBeforeVersion19, callsBeforeVersion5, callTypesBeforeVersion8, itemRowsTable } from './old-layouts'
import { connectionOf } from '../../../../src/core/cache/call-cache'

const FILTERS = { callTypes: [], direction: null, results: 'answered' as const, hasNewRequest: null, includeAnalysis: true }

function rec(i: number, over: Partial<CallRecord> = {}): CallRecord {
  return {
    callId: `call-${i}`,
    callAt: Date.UTC(2025, 0, 1) + i * 60_000,
    callDate: `2025-01-01T00:${String(i % 60).padStart(2, '0')}:00+03:00`,
    title: `Başlık ${i}`,
    summary: `Özet ${i} fatura`,
    analysis: [
      { key: 'sentiment', friendlyName: 'Duygu', value: i % 2 ? 'olumlu' : 'olumsuz' },
      { key: 'score', friendlyName: 'Skor', value: String(i) }
    ],
    extra: i % 3 === 0 ? { queue: `Q${i}`, nested: { a: [1, 2] } } : {},
    ...over
  }
}

class FakeClock implements Clock {
  t = 1_000_000
  now(): number {
    return this.t
  }
  sleep(): Promise<void> {
    return Promise.resolve()
  }
}

let dir: string
let file: string
let clock: FakeClock
let cache: CallCache

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-cache-'))
  file = join(dir, 'account.db')
  clock = new FakeClock()
  cache = openCache(file, { clock })
  cache.ensureScope('all', FILTERS)
})
afterEach(() => {
  cache.close()
  rmSync(dir, { recursive: true, force: true })
})

const count = (sql: string, ...params: unknown[]): number => {
  // The items as rows (temp.analysis), for the checks that count them.
  if (/\banalysis\b(?!_)/.test(sql)) itemRowsTable(connectionOf(cache))
  return connectionOf(cache)
    .prepare(sql)
    .pluck()
    .get(...params) as number
}
const ftsHits = (term: string): number => count('SELECT count(*) FROM calls_fts WHERE calls_fts MATCH ?', `"${term}"`)

describe('migrations', () => {
  it('opens in WAL with foreign keys and the latest schema version', () => {
    expect(connectionOf(cache).pragma('journal_mode', { simple: true })).toBe('wal')
    expect(connectionOf(cache).pragma('foreign_keys', { simple: true })).toBe(1)
    expect(connectionOf(cache).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
  })

  it('refuses a database written by a newer version, with a clear message', () => {
    cache.close()
    const raw = new Database(file)
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`)
    raw.close()
    let err: unknown
    try {
      openCache(file)
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(CallsightError)
    expect((err as CallsightError).code).toBe('DatabaseTooNew')
    expect((err as CallsightError).message).toMatch(/newer version of Callsight/)
    cache = openCache(join(dir, 'other.db'))
  })

  it('runs each migration once, in one transaction that rolls back on failure', () => {
    const db = new Database(join(dir, 'm.db'))
    const list: Migration[] = [
      { version: 1, up: (d) => d.exec('CREATE TABLE a (x)') },
      {
        version: 2,
        up: (d) => {
          d.exec('CREATE TABLE b (x)')
          throw new Error('half way')
        }
      }
    ]
    expect(() => migrate(db, list)).toThrow('half way')
    expect(db.pragma('user_version', { simple: true })).toBe(1)
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all()
    expect(tables).toEqual(['a'])
    migrate(db, [list[0]!, { version: 2, up: (d) => d.exec('CREATE TABLE b (x)') }])
    expect(db.pragma('user_version', { simple: true })).toBe(2)
    db.close()
  })
})

describe('migration 3: analysis clustered by call', () => {
  it('moves every item of a version 2 cache, which then reads and writes as before', () => {
    cache.writePage({ scopeKey: 'all', records: [rec(1), rec(2), rec(3)], includeAnalysis: true, checkpoint: null })
    const before = [1, 2, 3].map((i) => cache.getCall(`call-${i}`))
    cache.close()
    // Back to the version 2 layout: clustered by key, with a by-call index.
    const raw = new Database(file)
    callsBeforeVersion5(raw)
    analysisBeforeVersion19(raw)
    raw.exec(`
      CREATE TABLE old (key_id INTEGER NOT NULL, call INTEGER NOT NULL, ord INTEGER NOT NULL, value TEXT NOT NULL, value_num REAL, PRIMARY KEY (key_id, call, ord)) WITHOUT ROWID;
      INSERT INTO old SELECT key_id, call, ord, value, value_num FROM analysis;
      DROP TABLE analysis; ALTER TABLE old RENAME TO analysis; CREATE INDEX analysis_by_call ON analysis(call);
    `)
    raw.pragma('user_version = 2')
    raw.close()
    cache = openCache(file, { clock })
    expect(connectionOf(cache).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
    // Migration 19 then turned the rows into one list per call.
    const tables = connectionOf(cache).prepare("SELECT name FROM sqlite_master WHERE name LIKE 'analysis%' ORDER BY name").pluck().all()
    expect(tables).toEqual(['analysis_keys', 'analysis_lists', 'analysis_values'])
    expect(count("SELECT count(*) FROM sqlite_master WHERE name = 'analysis_by_call'")).toBe(0)
    expect([1, 2, 3].map((i) => cache.getCall(`call-${i}`))).toEqual(before)
    cache.writePage({
      scopeKey: 'all',
      records: [rec(2, { analysis: [{ key: 'score', friendlyName: 'Skor', value: '9' }] }), rec(4)],
      includeAnalysis: true,
      checkpoint: null
    })
    expect(cache.getCall('call-2')!.analysis).toEqual([{ key: 'score', friendlyName: 'Skor', value: '9' }])
    expect(cache.getCall('call-4')!.analysis).toEqual(rec(4).analysis)
  })
})

describe('migration 8: where each call type came from', () => {
  it('marks rows with a Description imported and the rest learnt, and keeps every row', () => {
    cache.upsertCallTypes([
      { value: 'Complaint', description: 'Şikayet' },
      { value: 'İptal', description: '' }
    ])
    cache.close()
    const raw = new Database(file)
    callTypesBeforeVersion8(raw)
    raw.pragma('user_version = 7')
    raw.close()
    cache = openCache(file, { clock })
    expect(connectionOf(cache).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
    expect(cache.callTypeEntries()).toEqual([
      { value: 'Complaint', description: 'Şikayet', source: 'import' },
      { value: 'İptal', description: '', source: 'sync' }
    ])
  })
})

describe('migration 5: no base_hash, analysis_hash as the flag analysis_known', () => {
  const columns = (): string[] =>
    connectionOf(cache).prepare("SELECT name FROM pragma_table_info('calls') ORDER BY cid").pluck().all() as string[]

  it('turns a version 4 cache into the new columns, keeping every call, its id and its index row', () => {
    cache.ensureScope('typed', { ...FILTERS, includeAnalysis: false })
    cache.writePage({ scopeKey: 'all', records: [rec(1), rec(2)], includeAnalysis: true, checkpoint: null })
    // Calls only a page without analysis carried: analysis not known yet.
    cache.writePage({ scopeKey: 'typed', records: [rec(3), rec(4)], includeAnalysis: false, checkpoint: null })
    const before = [1, 2, 3, 4].map((i) => cache.getCall(`call-${i}`))
    const ids = connectionOf(cache).prepare('SELECT call_id, id FROM calls ORDER BY id').raw(true).all()
    cache.close()
    const raw = new Database(file)
    // call-1 as a version 1-2 cache stored it: SHA-1 hashes of its content.
    callsBeforeVersion5(
      raw,
      new Map([['call-1', { base: 'a9993e364706816aba3e25717850c26c9cd0d89d', analysis: '84983e441c3bd26ebaae4aa1f95129e5e54670f1' }]])
    )
    raw.pragma('user_version = 4')
    raw.close()

    cache = openCache(file, { clock })
    expect(connectionOf(cache).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
    expect(columns()).toEqual([
      'id',
      'call_id',
      'call_at',
      'call_date',
      'title',
      'summary',
      'extra',
      'analysis_count',
      'first_seen_at',
      'last_changed_at',
      'analysis_known'
    ])
    expect(connectionOf(cache).prepare('SELECT call_id, analysis_known FROM calls ORDER BY id').raw(true).all()).toEqual([
      ['call-1', 1],
      ['call-2', 1],
      ['call-3', 0],
      ['call-4', 0]
    ])
    expect(connectionOf(cache).prepare('SELECT call_id, id FROM calls ORDER BY id').raw(true).all()).toEqual(ids)
    expect(count("SELECT count(*) FROM sqlite_master WHERE name = 'calls_by_date'")).toBe(1)
    expect([1, 2, 3, 4].map((i) => cache.getCall(`call-${i}`))).toEqual(before)
    expect(ftsHits('fatura')).toBe(4)
    expect(ftsHits('olumsuz')).toBe(1)

    // Known calls compare as before: an unchanged page changes nothing, and a call whose
    // analysis was not known takes it from the first page that carries it.
    expect(cache.writePage({ scopeKey: 'all', records: [rec(1), rec(2)], includeAnalysis: true, checkpoint: null })).toEqual({
      inserted: 0,
      updated: 0,
      unchanged: 2
    })
    expect(cache.writePage({ scopeKey: 'all', records: [rec(3)], includeAnalysis: true, checkpoint: null })).toEqual({
      inserted: 0,
      updated: 1,
      unchanged: 0
    })
    expect(cache.getCall('call-3')!.analysis).toEqual(rec(3).analysis)
    expect(count("SELECT analysis_known FROM calls WHERE call_id = 'call-3'")).toBe(1)
    expect(ftsHits('olumlu')).toBe(2)
  })
})

describe('migration 7: the index rebuilt with prefix indexes', () => {
  const vocab = (): unknown[] => connectionOf(cache).prepare('SELECT term, doc, cnt FROM calls_fts_vocab ORDER BY term').raw(true).all()

  it('indexes every call again as ingest did, now with one- and two-letter prefix indexes (migration 7)', () => {
    cache.close()
    rmSync(file, { force: true })
    // A version 6 cache: calls with and without analysis, one changed later.
    cache = openCache(file, { clock, schemaVersion: 6 })
    cache.ensureScope('all', FILTERS)
    cache.ensureScope('typed', { ...FILTERS, includeAnalysis: false })
    cache.writePage({
      scopeKey: 'all',
      records: [rec(1), rec(2), rec(3, { title: 'İPTAL ışık' })],
      includeAnalysis: true,
      checkpoint: null
    })
    cache.writePage({ scopeKey: 'typed', records: [rec(4), rec(5)], includeAnalysis: false, checkpoint: null })
    cache.writePage({ scopeKey: 'all', records: [rec(2, { summary: 'kargo gecikti' })], includeAnalysis: true, checkpoint: null })
    expect(connectionOf(cache).pragma('user_version', { simple: true })).toBe(6)
    const before = vocab()
    const hits = ['fatura', 'olumsuz', 'iptal', 'isik', 'kargo', 'baslik'].map(ftsHits)
    cache.close()

    // Up to the last schema with FTS5's prefix indexes (17 replaced them: short-prefix-index.test.ts).
    cache = openCache(file, { clock, schemaVersion: 16 })
    expect(connectionOf(cache).pragma('user_version', { simple: true })).toBe(16)
    expect(connectionOf(cache).prepare("SELECT sql FROM sqlite_master WHERE name = 'calls_fts'").pluck().get()).toMatch(/prefix='1 2'/)
    expect(vocab()).toEqual(before)
    expect(['fatura', 'olumsuz', 'iptal', 'isik', 'kargo', 'baslik'].map(ftsHits)).toEqual(hits)
    // Prefix queries answer from the prefix index the same as from the terms.
    for (const p of ['f', 'ka', 'o', 'ol', 'i']) {
      const terms = (before as Array<[string]>).map(([t]) => t).filter((t) => t.startsWith(p))
      expect(terms.length).toBeGreaterThan(0)
      const either = terms.map((t) => `"${t}"`).join(' OR ')
      expect(count('SELECT count(*) FROM calls_fts WHERE calls_fts MATCH ?', `"${p}"*`), p).toBe(
        count('SELECT count(*) FROM calls_fts WHERE calls_fts MATCH ?', either)
      )
    }
    expect(count('SELECT count(*) FROM calls_fts WHERE calls_fts MATCH ?', '"ka"*')).toBe(1)
    expect(count('SELECT count(*) FROM calls_fts WHERE calls_fts MATCH ?', '"o"*')).toBe(5)
    // Later writes index as before.
    cache.writePage({ scopeKey: 'all', records: [rec(4)], includeAnalysis: true, checkpoint: null })
    expect(ftsHits('olumsuz')).toBe(2)
  })
})

describe('writePage', () => {
  it('is idempotent: the same page twice stores each call once', () => {
    const page = [rec(1), rec(2), rec(3)]
    expect(cache.writePage({ scopeKey: 'all', records: page, includeAnalysis: true, checkpoint: { n: 1 } })).toEqual({
      inserted: 3,
      updated: 0,
      unchanged: 0
    })
    expect(cache.writePage({ scopeKey: 'all', records: page, includeAnalysis: true, checkpoint: { n: 2 } })).toEqual({
      inserted: 0,
      updated: 0,
      unchanged: 3
    })
    expect(count('SELECT count(*) FROM calls')).toBe(3)
    expect(count('SELECT count(*) FROM analysis')).toBe(6)
    expect(count('SELECT count(*) FROM scope_members')).toBe(3)
    expect(ftsHits('fatura')).toBe(3)
    expect(cache.sync.getCheckpoint('all')).toEqual({ n: 2 })
  })

  it('returns records exactly as cached, unknown fields and analysis order included', () => {
    const r = rec(3, {
      analysis: [
        { key: 'z', friendlyName: 'Z', value: '1' },
        { key: 'a', friendlyName: 'A', value: 'x' }
      ]
    })
    clock.t = 5000
    cache.writePage({ scopeKey: 'all', records: [r], includeAnalysis: true, checkpoint: null })
    expect(cache.getCall('call-3')).toEqual({ ...r, firstSeenAt: 5000, lastChangedAt: 5000 })
    expect(cache.getCall('nope')).toBeNull()
  })

  it('a page without analysis keeps the analysis stored earlier, in the index too', () => {
    cache.writePage({ scopeKey: 'all', records: [rec(1)], includeAnalysis: true, checkpoint: null })
    const bare = { ...rec(1), analysis: [] }
    expect(cache.writePage({ scopeKey: 'all', records: [bare], includeAnalysis: false, checkpoint: null })).toEqual({
      inserted: 0,
      updated: 0,
      unchanged: 1
    })
    expect(cache.getCall('call-1')?.analysis).toEqual(rec(1).analysis)
    // A changed title in a no-analysis page updates the title and still keeps the analysis.
    expect(
      cache.writePage({ scopeKey: 'all', records: [{ ...bare, title: 'Yeni başlık' }], includeAnalysis: false, checkpoint: null }).updated
    ).toBe(1)
    const got = cache.getCall('call-1')
    expect(got?.title).toBe('Yeni başlık')
    expect(got?.analysis).toEqual(rec(1).analysis)
    expect(ftsHits('olumlu')).toBe(1)
    expect(ftsHits('yeni')).toBe(1)
  })

  it('stores analysis that arrives later for a call first seen without it', () => {
    cache.writePage({ scopeKey: 'all', records: [{ ...rec(2), analysis: [] }], includeAnalysis: false, checkpoint: null })
    expect(ftsHits('olumsuz')).toBe(0)
    expect(cache.writePage({ scopeKey: 'all', records: [rec(2)], includeAnalysis: true, checkpoint: null }).updated).toBe(1)
    expect(cache.getCall('call-2')?.analysis).toHaveLength(2)
    expect(ftsHits('olumsuz')).toBe(1)
  })

  it('detects changes by content: last_changed_at moves, first_seen_at stays, the index follows', () => {
    clock.t = 100
    cache.writePage({ scopeKey: 'all', records: [rec(1)], includeAnalysis: true, checkpoint: null })
    clock.t = 200
    const changed = rec(1, { summary: 'iade talebi', analysis: [{ key: 'sentiment', friendlyName: 'Duygu', value: 'nötr' }] })
    expect(cache.writePage({ scopeKey: 'all', records: [changed, rec(2)], includeAnalysis: true, checkpoint: null })).toEqual({
      inserted: 1,
      updated: 1,
      unchanged: 0
    })
    const got = cache.getCall('call-1')
    expect(got).toMatchObject({ summary: 'iade talebi', firstSeenAt: 100, lastChangedAt: 200 })
    expect(got?.analysis).toEqual([{ key: 'sentiment', friendlyName: 'Duygu', value: 'nötr' }])
    expect(ftsHits('fatura')).toBe(1)
    expect(ftsHits('iade')).toBe(1)
    expect(ftsHits('notr')).toBe(1)
    expect(count('SELECT count(*) FROM analysis WHERE call = (SELECT id FROM calls WHERE call_id = ?)', 'call-1')).toBe(1)
  })

  it('takes the same callId twice in one page as an insert and an update', () => {
    const counts = cache.writePage({
      scopeKey: 'all',
      records: [rec(1), rec(1, { title: 'ikinci' })],
      includeAnalysis: true,
      checkpoint: null
    })
    expect(counts).toEqual({ inserted: 1, updated: 1, unchanged: 0 })
    expect(cache.getCall('call-1')?.title).toBe('ikinci')
    expect(count('SELECT count(*) FROM calls')).toBe(1)
  })

  it('writes records, membership and checkpoint in one transaction: a failure leaves none of them', () => {
    cache.writePage({ scopeKey: 'all', records: [rec(1)], includeAnalysis: true, checkpoint: { page: 1 } })
    // The checkpoint cannot be serialized: the failure comes after the records were written.
    expect(() => cache.writePage({ scopeKey: 'all', records: [rec(2), rec(3)], includeAnalysis: true, checkpoint: { page: 2n } })).toThrow()
    expect(count('SELECT count(*) FROM calls')).toBe(1)
    expect(count('SELECT count(*) FROM analysis')).toBe(2)
    expect(count('SELECT count(*) FROM scope_members')).toBe(1)
    expect(ftsHits('fatura')).toBe(1)
    expect(cache.sync.getCheckpoint('all')).toEqual({ page: 1 })
    // A failure in the middle of the records (a trigger standing in for a crash).
    connectionOf(cache).exec(
      "CREATE TEMP TRIGGER boom BEFORE INSERT ON main.scope_members WHEN NEW.call > 2 BEGIN SELECT RAISE(ABORT, 'boom'); END"
    )
    expect(() => cache.writePage({ scopeKey: 'all', records: [rec(2), rec(3)], includeAnalysis: true, checkpoint: { page: 2 } })).toThrow(
      'boom'
    )
    expect(count('SELECT count(*) FROM calls')).toBe(1)
    expect(cache.sync.getCheckpoint('all')).toEqual({ page: 1 })
    connectionOf(cache).exec('DROP TRIGGER boom')
    // The resumed page then lands exactly once.
    expect(cache.writePage({ scopeKey: 'all', records: [rec(2), rec(3)], includeAnalysis: true, checkpoint: { page: 2 } }).inserted).toBe(2)
    expect(count('SELECT count(*) FROM calls')).toBe(3)
  })

  it('stores the run counts with the page', () => {
    const runId = cache.sync.startRun('all', { from: 1 })
    cache.writePage({
      scopeKey: 'all',
      records: [rec(1)],
      includeAnalysis: true,
      checkpoint: null,
      runId,
      runCounts: { stored: 1, requests: 4 }
    })
    expect(cache.sync.recentRuns(5)[0]).toMatchObject({ runId, outcome: 'running', stored: 1, requests: 4 })
  })

  it('refuses a scope it does not know', () => {
    expect(() => cache.writePage({ scopeKey: 'nope', records: [rec(1)], includeAnalysis: true, checkpoint: null })).toThrow(CallsightError)
  })
})

describe('writePages', () => {
  /** Everything a page write leaves behind, in a comparable form. */
  function snapshot(c: CallCache): unknown {
    const all = (sql: string): unknown[] => connectionOf(c).prepare(sql).raw(true).all()
    itemRowsTable(connectionOf(c))
    return {
      calls: all('SELECT id, call_id, call_at, title, summary, extra, analysis_count, analysis_known FROM calls ORDER BY id'),
      analysis: all(
        'SELECT k.key, a.call, a.ord, a.value, a.value_num FROM analysis a JOIN analysis_keys k ON k.id = a.key_id ORDER BY a.call, a.ord'
      ),
      keys: all('SELECT key, friendly_name, items, numeric_items FROM analysis_keys ORDER BY key, friendly_name'),
      members: all('SELECT m.call, s.scope_key FROM scope_members m JOIN sync_scopes s ON s.id = m.scope ORDER BY 1, 2'),
      hours: all('SELECT hour, n FROM agg_hours WHERE n <> 0 ORDER BY hour'),
      scopeHours: all(
        'SELECT s.scope_key, h.hour, h.n FROM agg_scope_hours h JOIN sync_scopes s ON s.id = h.scope WHERE h.n <> 0 ORDER BY 1, 2'
      ),
      values: all('SELECT key_id, value, n FROM agg_values WHERE n <> 0 ORDER BY key_id, value'),
      checkpoints: all("SELECT scope_key, checkpoint FROM sync_scopes WHERE scope_key <> 'all' ORDER BY scope_key"),
      index: ['fatura', 'olumsuz', 'degisti', 'ozet', 'baslik'].map((w) =>
        all(`SELECT rowid FROM calls_fts WHERE calls_fts MATCH '"${w}"' ORDER BY rowid`)
      )
    }
  }

  it('leaves the same rows, totals, checkpoints and index as writing the pages one by one', () => {
    const pages = [
      { scopeKey: 'a', records: [rec(1), rec(2), rec(3)], includeAnalysis: true, checkpoint: { p: 1 } },
      // A call changed (text, time across an hour, analysis) in a later page of the same group.
      {
        scopeKey: 'b',
        records: [rec(2, { title: 'değişti', callAt: rec(2).callAt + 7_200_000 }), rec(4)],
        includeAnalysis: true,
        checkpoint: { p: 2 }
      },
      { scopeKey: 'a', records: [rec(3, { summary: 'değişti', analysis: [] }), rec(5)], includeAnalysis: false, checkpoint: { p: 3 } },
      {
        scopeKey: 'a',
        records: [rec(2, { analysis: [{ key: 'yeni', friendlyName: 'Yeni', value: '1,5' }] }), rec(6)],
        includeAnalysis: true,
        checkpoint: { p: 4 }
      }
    ]
    const other = openCache(join(dir, 'one-by-one.db'), { clock })
    try {
      for (const c of [cache, other]) {
        c.ensureScope('a', FILTERS)
        c.ensureScope('b', { ...FILTERS, callTypes: ['Fatura'] })
      }
      // Known before the group: updates of stored calls take the other path.
      for (const c of [cache, other])
        c.writePage({ scopeKey: 'a', records: [rec(1, { title: 'eski' }), rec(5)], includeAnalysis: true, checkpoint: null })
      const grouped = cache.writePages(pages)
      const single = pages.map((p) => other.writePage(p))
      expect(grouped).toEqual(single)
      expect(snapshot(cache)).toEqual(snapshot(other))
    } finally {
      other.close()
    }
  })

  it('rolls back the whole group on failure, and a new analysis key of it is stored again later', () => {
    cache.ensureScope('a', FILTERS)
    const withNewKey = rec(1, { analysis: [{ key: 'fresh', friendlyName: 'Fresh', value: 'x' }] })
    expect(() =>
      cache.writePages([
        { scopeKey: 'a', records: [withNewKey], includeAnalysis: true, checkpoint: { p: 1 } },
        { scopeKey: 'unknown', records: [rec(2)], includeAnalysis: true, checkpoint: { p: 2 } }
      ])
    ).toThrow(CallsightError)
    expect(connectionOf(cache).prepare('SELECT count(*) FROM calls').pluck().get()).toBe(0)
    expect(cache.sync.getCheckpoint('a')).toBeNull()
    cache.writePage({ scopeKey: 'a', records: [withNewKey], includeAnalysis: true, checkpoint: { p: 1 } })
    expect(cache.getCall('call-1')!.analysis).toEqual(withNewKey.analysis)
  })
})

describe('scopes, runs, catalog, info', () => {
  it('marks runs still running at open as interrupted', () => {
    const a = cache.sync.startRun('all', { mode: 'full' })
    const b = cache.sync.startRun('all', { mode: 'incremental' })
    cache.sync.finishRun(b, 'failed', { stored: 3, requests: 2 }, { code: 'Network', message: 'The service could not be reached.' })
    cache.close()
    cache = openCache(file, { clock })
    const runs = new Map(cache.sync.recentRuns(10).map((r) => [r.runId, r]))
    expect(runs.get(a)?.outcome).toBe('interrupted')
    expect(runs.get(b)).toMatchObject({
      outcome: 'failed',
      stored: 3,
      requests: 2,
      error: { code: 'Network' },
      params: { mode: 'incremental' }
    })
  })

  it('merges coverage intervals and reports scope status', () => {
    expect(
      mergeInterval(
        [
          [0, 10],
          [20, 30]
        ],
        [10, 20]
      )
    ).toEqual([[0, 30]])
    expect(mergeInterval([[0, 10]], [15, 20])).toEqual([
      [0, 10],
      [15, 20]
    ])
    expect(mergeInterval([[5, 10]], [0, 6])).toEqual([[0, 10]])
    cache.sync.addCoverage('all', 100, 200)
    cache.sync.addCoverage('all', 300, 400)
    cache.sync.addCoverage('all', 150, 320)
    expect(cache.coverage('all')).toEqual([[100, 400]])
    cache.writePage({ scopeKey: 'all', records: [rec(1), rec(2)], includeAnalysis: true, checkpoint: { at: 5 } })
    cache.sync.markScopeSuccess('all', 777)
    const run = cache.sync.startRun('all', {})
    cache.sync.finishRun(run, 'done', { stored: 2, requests: 1 })
    expect(cache.sync.scopeStatuses()).toEqual([
      { scopeKey: 'all', filters: FILTERS, coveredFrom: 100, coveredTo: 400, lastSuccessAt: 777, lastOutcome: 'done', calls: 2 }
    ])
    cache.sync.setCheckpoint('all', null)
    expect(cache.sync.getCheckpoint('all')).toBeNull()
  })

  it('upserts the call type catalog', () => {
    cache.upsertCallTypes([
      { value: 'B', description: 'bee' },
      { value: 'A', description: 'a' }
    ])
    cache.upsertCallTypes([{ value: 'B', description: 'Bee' }])
    expect(cache.callTypes()).toEqual([
      { value: 'A', description: 'a' },
      { value: 'B', description: 'Bee' }
    ])
  })

  it('reports info and clears everything', () => {
    cache.writePage({ scopeKey: 'all', records: [rec(1), rec(2)], includeAnalysis: true, checkpoint: null })
    cache.sync.markScopeSuccess('all', 999)
    const info = cache.info()
    expect(info).toMatchObject({ path: file, calls: 2, lastSyncAt: 999 })
    expect(info.sizeBytes).toBeGreaterThan(0)
    cache.clear()
    expect(cache.info()).toMatchObject({ calls: 0, lastSyncAt: null })
    expect(ftsHits('fatura')).toBe(0)
    expect(cache.sync.scopeStatuses()).toEqual([])
    // Usable again after clearing.
    cache.ensureScope('all', FILTERS)
    expect(cache.writePage({ scopeKey: 'all', records: [rec(1)], includeAnalysis: true, checkpoint: null }).inserted).toBe(1)
    expect(cache.getCall('call-1')?.analysis).toHaveLength(2)
  })

  it('opens read-only without writing', () => {
    cache.writePage({ scopeKey: 'all', records: [rec(1)], includeAnalysis: true, checkpoint: null })
    const ro = openCache(file, { readonly: true })
    expect(ro.getCall('call-1')?.callId).toBe('call-1')
    expect(() => ro.writePage({ scopeKey: 'all', records: [rec(2)], includeAnalysis: true, checkpoint: null })).toThrow(CallsightError)
    ro.close()
  })
})

describe('parseNumeric', () => {
  it('reads plain decimals with a dot or a Turkish decimal comma, nothing else', () => {
    expect(parseNumeric('42')).toBe(42)
    expect(parseNumeric(' -3.5 ')).toBe(-3.5)
    expect(parseNumeric('0,35')).toBe(0.35)
    expect(parseNumeric('1e3')).toBe(1000)
    // Whitespace of any kind before a number, ASCII or not, is trimmed as before.
    expect(parseNumeric('\u00a012')).toBe(12)
    expect(parseNumeric('\t7')).toBe(7)
    expect(parseNumeric('.5')).toBe(0.5)
    for (const s of ['', 'abc', '1.000,5', '12 dk', '2025-01-01', '1,2,3', 'NaN', 'Infinity']) expect(parseNumeric(s)).toBeNull()
  })
})
