import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openCache, SCHEMA_VERSION, type CallCache } from '../../../../src/core/cache'
import type { CallRecord } from '../../../../src/shared/domain'
import { analysisBeforeVersion19, callsBeforeVersion5, itemRowsTable } from './old-layouts'
import { connectionOf } from '../../../../src/core/cache/call-cache'

const HOUR = 3_600_000
const T0 = Date.UTC(2025, 9, 30)

function rec(i: number, at: number, sentiment: string, score: number): CallRecord {
  return {
    callId: `c-${i}`,
    callAt: at,
    callDate: new Date(at).toISOString(),
    title: `görüşme ${i}`,
    summary: 'fatura',
    analysis: [
      { key: 'sentiment', friendlyName: 'Duygu', value: sentiment },
      { key: 'score', friendlyName: 'Skor', value: String(score) }
    ],
    extra: {}
  }
}

/** The totals as stored, and as a GROUP BY over the rows they summarise. */
function stored(cache: CallCache): unknown {
  const q = (sql: string): unknown => connectionOf(cache).prepare(sql).raw(true).all()
  return {
    hours: q('SELECT hour, n FROM agg_hours WHERE n <> 0 ORDER BY hour'),
    scopes: q('SELECT scope, hour, n FROM agg_scope_hours WHERE n <> 0 ORDER BY scope, hour'),
    values: q('SELECT key_id, value, value_num, n FROM agg_values WHERE n <> 0 ORDER BY key_id, value')
  }
}

function recomputed(cache: CallCache): unknown {
  const q = (sql: string): unknown => connectionOf(cache).prepare(sql).raw(true).all()
  // Plain JS floor for the hour, independent of the SQL the migration uses.
  const calls = connectionOf(cache).prepare('SELECT id, call_at FROM calls').raw(true).all() as Array<[number, number]>
  const hourOfCall = new Map(calls.map(([id, at]) => [id, Math.floor(at / HOUR)]))
  const hours = new Map<number, number>()
  for (const h of hourOfCall.values()) hours.set(h, (hours.get(h) ?? 0) + 1)
  const scopes = new Map<string, [number, number, number]>()
  for (const [call, scope] of connectionOf(cache).prepare('SELECT call, scope FROM scope_members').raw(true).all() as Array<
    [number, number]
  >) {
    const h = hourOfCall.get(call)!
    const cur = scopes.get(`${scope}:${h}`) ?? [scope, h, 0]
    cur[2]++
    scopes.set(`${scope}:${h}`, cur)
  }
  itemRowsTable(connectionOf(cache))
  return {
    hours: [...hours].sort((a, b) => a[0] - b[0]),
    scopes: [...scopes.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]),
    values: q('SELECT key_id, value, max(value_num), count(*) FROM analysis GROUP BY key_id, value ORDER BY key_id, value')
  }
}

let dir: string
let file: string
let cache: CallCache

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-totals-'))
  file = join(dir, 'cache.db')
  cache = openCache(file)
  cache.ensureScope('all', { callTypes: [], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: true })
  cache.ensureScope('fatura', { callTypes: ['Fatura'], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: false })
})
afterEach(() => {
  cache.close()
  rmSync(dir, { recursive: true, force: true })
})

const write = (scopeKey: string, records: CallRecord[], includeAnalysis = true): void => {
  cache.writePage({ scopeKey, records, includeAnalysis, checkpoint: null })
}

describe('facet running totals', () => {
  it('follow inserts, moved calls, replaced analysis, repeated pages and new memberships', () => {
    const page = Array.from({ length: 60 }, (_, i) => rec(i, T0 + i * 17 * 60_000 - 7 * HOUR, ['olumlu', 'nötr'][i % 2]!, i % 11))
    write('all', page)
    write('all', page)
    expect(stored(cache)).toEqual(recomputed(cache))
    // Known calls joining a second scope, some twice in the page, one with a moved time.
    write('fatura', [page[3]!, page[4]!, page[3]!, { ...page[5]!, callAt: page[5]!.callAt + 5 * HOUR }], false)
    expect(stored(cache)).toEqual(recomputed(cache))
    // Changed records: time moved across hours, analysis replaced, both.
    write('all', [
      { ...page[5]!, callAt: page[5]!.callAt - 30 * HOUR },
      rec(6, page[6]!.callAt, 'olumsuz', 99),
      rec(7, page[7]!.callAt + 3 * HOUR, 'olumsuz', 5),
      rec(100, T0 + 2 * HOUR, 'nötr', 1),
      rec(100, T0 + 9 * HOUR, 'olumlu', 2)
    ])
    expect(stored(cache)).toEqual(recomputed(cache))
    // A failed page leaves the totals as they were.
    connectionOf(cache).exec(
      "CREATE TEMP TRIGGER boom BEFORE INSERT ON main.scope_members WHEN NEW.call > 60 BEGIN SELECT RAISE(ABORT, 'boom'); END"
    )
    const before = stored(cache)
    expect(() => write('all', [rec(200, T0, 'x', 1), rec(201, T0, 'x', 1)])).toThrow('boom')
    connectionOf(cache).exec('DROP TRIGGER boom')
    expect(stored(cache)).toEqual(before)
    write('all', [rec(200, T0, 'x', 1)])
    expect(stored(cache)).toEqual(recomputed(cache))
  })

  it('are emptied by clear()', () => {
    write('all', [rec(1, T0, 'olumlu', 1), rec(2, T0 + HOUR, 'nötr', 2)])
    cache.clear()
    expect(stored(cache)).toEqual({ hours: [], scopes: [], values: [] })
    cache.ensureScope('all', { callTypes: [], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: true })
    write('all', [rec(3, T0, 'olumlu', 1)])
    expect(stored(cache)).toEqual(recomputed(cache))
  })

  it('are backfilled when a version 1 cache is migrated', () => {
    write(
      'all',
      Array.from({ length: 30 }, (_, i) => rec(i, T0 - 40 * HOUR + i * 3 * HOUR + 1234, 'olumlu', i))
    )
    write('fatura', [rec(2, T0 - 34 * HOUR + 1234, 'olumlu', 2)], false)
    const want = stored(cache)
    cache.close()
    const raw = new Database(file)
    callsBeforeVersion5(raw)
    analysisBeforeVersion19(raw)
    raw.exec('DROP TABLE agg_hours; DROP TABLE agg_scope_hours; DROP TABLE agg_values')
    raw.pragma('user_version = 1')
    raw.close()
    cache = openCache(file)
    expect(connectionOf(cache).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION)
    expect(stored(cache)).toEqual(want)
    expect(stored(cache)).toEqual(recomputed(cache))
  })
})
