import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createSearchReader, openCache, type CallCache } from '../../../../src/core/cache'
import { SqliteColumnReads } from '../../../../src/core/cache/read/column-reads'
import { CallColumns } from '../../../../src/core/search/memory/columns'
import { DataWatch } from '../../../../src/core/search/data-watch'
import type { CallRecord } from '../../../../src/shared/domain'
import { connectionOf } from '../../../../src/core/cache/call-cache'

// CallColumns.dateRank(): each id's position in the date order, kept with the order and
// ranked again after a write, against the order SQL gives (call_at, call_id).

const T0 = Date.UTC(2026, 4, 1)
let dir = ''
let cache: CallCache

function calls(n: number, prefix: string, spread: number): CallRecord[] {
  return Array.from({ length: n }, (_, i) => {
    // Not written in date order: ids do not follow time.
    const callAt = T0 + ((i * 7_919) % n) * spread
    return { callId: `${prefix}${i}`, callAt, callDate: new Date(callAt).toISOString(), title: 't', summary: 's', analysis: [], extra: {} }
  })
}

function write(list: CallRecord[]): void {
  cache.writePage({ scopeKey: 'all', records: list, includeAnalysis: true, checkpoint: null })
}

/** Each id's position as SQL orders the calls, −1 for ids no call has, sized to the largest id + 1. */
function expected(): number[] {
  const ids = connectionOf(cache).prepare('SELECT id FROM calls ORDER BY call_at, call_id').pluck().all() as number[]
  const out = new Array<number>(Math.max(...ids) + 1).fill(-1)
  ids.forEach((id, k) => (out[id] = k))
  return out
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-daterank-'))
  cache = openCache(join(dir, 'cache.db'))
  cache.ensureScope('all', { callTypes: [], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: true })
  write(calls(500, 'a', 60_000))
})
afterAll(() => {
  cache.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('the date rank of every call id', () => {
  it('is each id’s position in the date order, kept until a write and ranked again after it', () => {
    const reader = createSearchReader(cache)
    const columns = new CallColumns(reader.columns, new DataWatch(reader.data))
    const first = columns.dateRank()
    expect(Array.from(first)).toEqual(expected())
    // Kept: the same array while nothing is written.
    expect(columns.dateRank()).toBe(first)
    // The write is merged into the order (date-order.ts), not read whole again: the first
    // byDate() read the quarter hours a merge needs (a sorted column reads nothing else).
    const wholeReads = vi.spyOn(SqliteColumnReads.prototype, 'idsByDate')
    // Calls before, among and after the others, and one moved in time.
    write([...calls(40, 'b', 45_000), { ...calls(500, 'a', 60_000)[3]!, callAt: T0 - 1, callDate: new Date(T0 - 1).toISOString() }])
    const after = columns.dateRank()
    expect(after).not.toBe(first)
    expect(Array.from(after)).toEqual(expected())
    expect(after.length).toBe(Math.max(...columns.byDate()) + 1)
    expect(columns.idSpace()).toBe(after.length)
    expect(wholeReads).not.toHaveBeenCalled()
    wholeReads.mockRestore()
  })
})
