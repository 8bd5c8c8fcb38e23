import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { migrate, openCache, SCHEMA_VERSION, type CallCache, type Migration } from '../../../src/core/cache'
import { mergeInterval } from '../../../src/core/cache/coverage'
import { parseNumeric } from '../../../src/core/cache/numeric'
import { CallsightError } from '../../../src/core/errors'
import type { Clock } from '../../../src/core/platform'
import type { CallRecord } from '../../../src/shared/domain'

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

const count = (sql: string, ...params: unknown[]): number => cache.db.prepare(sql).pluck().get(...params) as number
const ftsHits = (term: string): number => count('SELECT count(*) FROM calls_fts WHERE calls_fts MATCH ?', `"${term}"`)

describe('migrations', () => {
  it('opens in WAL with foreign keys and the latest schema version', () => {
    expect(cache.db.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(cache.db.pragma('foreign_keys', { simple: true })).toBe(1)
    expect(cache.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
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

describe('writePage', () => {
  it('is idempotent: the same page twice stores each call once', () => {
    const page = [rec(1), rec(2), rec(3)]
    expect(cache.writePage({ scopeKey: 'all', records: page, includeAnalysis: true, checkpoint: { n: 1 } })).toEqual({ inserted: 3, updated: 0, unchanged: 0 })
    expect(cache.writePage({ scopeKey: 'all', records: page, includeAnalysis: true, checkpoint: { n: 2 } })).toEqual({ inserted: 0, updated: 0, unchanged: 3 })
    expect(count('SELECT count(*) FROM calls')).toBe(3)
    expect(count('SELECT count(*) FROM analysis')).toBe(6)
    expect(count('SELECT count(*) FROM scope_members')).toBe(3)
    expect(ftsHits('fatura')).toBe(3)
    expect(cache.getCheckpoint('all')).toEqual({ n: 2 })
  })

  it('returns records exactly as cached, unknown fields and analysis order included', () => {
    const r = rec(3, { analysis: [{ key: 'z', friendlyName: 'Z', value: '1' }, { key: 'a', friendlyName: 'A', value: 'x' }] })
    clock.t = 5000
    cache.writePage({ scopeKey: 'all', records: [r], includeAnalysis: true, checkpoint: null })
    expect(cache.getCall('call-3')).toEqual({ ...r, firstSeenAt: 5000, lastChangedAt: 5000 })
    expect(cache.getCall('nope')).toBeNull()
  })

  it('a page without analysis keeps the analysis stored earlier, in the index too', () => {
    cache.writePage({ scopeKey: 'all', records: [rec(1)], includeAnalysis: true, checkpoint: null })
    const bare = { ...rec(1), analysis: [] }
    expect(cache.writePage({ scopeKey: 'all', records: [bare], includeAnalysis: false, checkpoint: null })).toEqual({ inserted: 0, updated: 0, unchanged: 1 })
    expect(cache.getCall('call-1')?.analysis).toEqual(rec(1).analysis)
    // A changed title in a no-analysis page updates the title and still keeps the analysis.
    expect(cache.writePage({ scopeKey: 'all', records: [{ ...bare, title: 'Yeni başlık' }], includeAnalysis: false, checkpoint: null }).updated).toBe(1)
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
    const counts = cache.writePage({ scopeKey: 'all', records: [rec(1), rec(1, { title: 'ikinci' })], includeAnalysis: true, checkpoint: null })
    expect(counts).toEqual({ inserted: 1, updated: 1, unchanged: 0 })
    expect(cache.getCall('call-1')?.title).toBe('ikinci')
    expect(count('SELECT count(*) FROM calls')).toBe(1)
  })

  it('writes records, membership and checkpoint in one transaction: a failure leaves none of them', () => {
    cache.writePage({ scopeKey: 'all', records: [rec(1)], includeAnalysis: true, checkpoint: { page: 1 } })
    // The checkpoint cannot be serialized: the failure comes after the records were written.
    expect(() =>
      cache.writePage({ scopeKey: 'all', records: [rec(2), rec(3)], includeAnalysis: true, checkpoint: { page: 2n } })
    ).toThrow()
    expect(count('SELECT count(*) FROM calls')).toBe(1)
    expect(count('SELECT count(*) FROM analysis')).toBe(2)
    expect(count('SELECT count(*) FROM scope_members')).toBe(1)
    expect(ftsHits('fatura')).toBe(1)
    expect(cache.getCheckpoint('all')).toEqual({ page: 1 })
    // A failure in the middle of the records (a trigger standing in for a crash).
    cache.db.exec("CREATE TEMP TRIGGER boom BEFORE INSERT ON main.scope_members WHEN NEW.call > 2 BEGIN SELECT RAISE(ABORT, 'boom'); END")
    expect(() => cache.writePage({ scopeKey: 'all', records: [rec(2), rec(3)], includeAnalysis: true, checkpoint: { page: 2 } })).toThrow('boom')
    expect(count('SELECT count(*) FROM calls')).toBe(1)
    expect(cache.getCheckpoint('all')).toEqual({ page: 1 })
    cache.db.exec('DROP TRIGGER boom')
    // The resumed page then lands exactly once.
    expect(cache.writePage({ scopeKey: 'all', records: [rec(2), rec(3)], includeAnalysis: true, checkpoint: { page: 2 } }).inserted).toBe(2)
    expect(count('SELECT count(*) FROM calls')).toBe(3)
  })

  it('stores the run counts with the page', () => {
    const runId = cache.startRun('all', { from: 1 })
    cache.writePage({ scopeKey: 'all', records: [rec(1)], includeAnalysis: true, checkpoint: null, runId, runCounts: { stored: 1, requests: 4 } })
    expect(cache.recentRuns(5)[0]).toMatchObject({ runId, outcome: 'running', stored: 1, requests: 4 })
  })

  it('refuses a scope it does not know', () => {
    expect(() => cache.writePage({ scopeKey: 'nope', records: [rec(1)], includeAnalysis: true, checkpoint: null })).toThrow(CallsightError)
  })
})

describe('scopes, runs, catalog, info', () => {
  it('marks runs still running at open as interrupted', () => {
    const a = cache.startRun('all', { mode: 'full' })
    const b = cache.startRun('all', { mode: 'incremental' })
    cache.finishRun(b, 'failed', { stored: 3, requests: 2 }, { code: 'Network', message: 'The service could not be reached.' })
    cache.close()
    cache = openCache(file, { clock })
    const runs = new Map(cache.recentRuns(10).map((r) => [r.runId, r]))
    expect(runs.get(a)?.outcome).toBe('interrupted')
    expect(runs.get(b)).toMatchObject({ outcome: 'failed', stored: 3, requests: 2, error: { code: 'Network' }, params: { mode: 'incremental' } })
  })

  it('merges coverage intervals and reports scope status', () => {
    expect(mergeInterval([[0, 10], [20, 30]], [10, 20])).toEqual([[0, 30]])
    expect(mergeInterval([[0, 10]], [15, 20])).toEqual([[0, 10], [15, 20]])
    expect(mergeInterval([[5, 10]], [0, 6])).toEqual([[0, 10]])
    cache.addCoverage('all', 100, 200)
    cache.addCoverage('all', 300, 400)
    cache.addCoverage('all', 150, 320)
    expect(cache.coverage('all')).toEqual([[100, 400]])
    cache.writePage({ scopeKey: 'all', records: [rec(1), rec(2)], includeAnalysis: true, checkpoint: { at: 5 } })
    cache.markScopeSuccess('all', 777)
    const run = cache.startRun('all', {})
    cache.finishRun(run, 'done', { stored: 2, requests: 1 })
    expect(cache.scopeStatuses()).toEqual([
      { scopeKey: 'all', filters: FILTERS, coveredFrom: 100, coveredTo: 400, lastSuccessAt: 777, lastOutcome: 'done', calls: 2 }
    ])
    cache.setCheckpoint('all', null)
    expect(cache.getCheckpoint('all')).toBeNull()
  })

  it('upserts the call type catalog', () => {
    cache.upsertCallTypes([{ value: 'B', description: 'bee' }, { value: 'A', description: 'a' }])
    cache.upsertCallTypes([{ value: 'B', description: 'Bee' }])
    expect(cache.callTypes()).toEqual([{ value: 'A', description: 'a' }, { value: 'B', description: 'Bee' }])
  })

  it('reports info and clears everything', () => {
    cache.writePage({ scopeKey: 'all', records: [rec(1), rec(2)], includeAnalysis: true, checkpoint: null })
    cache.markScopeSuccess('all', 999)
    const info = cache.info()
    expect(info).toMatchObject({ path: file, calls: 2, lastSyncAt: 999 })
    expect(info.sizeBytes).toBeGreaterThan(0)
    cache.clear()
    expect(cache.info()).toMatchObject({ calls: 0, lastSyncAt: null })
    expect(ftsHits('fatura')).toBe(0)
    expect(cache.scopeStatuses()).toEqual([])
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
    for (const s of ['', 'abc', '1.000,5', '12 dk', '2025-01-01', '1,2,3', 'NaN', 'Infinity']) expect(parseNumeric(s)).toBeNull()
  })
})
