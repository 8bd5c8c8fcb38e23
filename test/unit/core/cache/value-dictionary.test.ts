import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createSearchReader, openCache, type CallCache } from '../../../../src/core/cache'
import { valueDictionary } from '../../../../src/core/cache/analysis-lists'
import { connectionOf } from '../../../../src/core/cache/call-cache'
import type { AnalysisItem, CallRecord } from '../../../../src/shared/domain'

// A page's items name their values from the connection's value dictionary. On a connection
// just opened, the first page read only its own values, not the whole dictionary (every
// distinct value the cache holds: read whole, it sat on the first query after opening), and
// what it read stays right as other connections write.
const FILTERS = { callTypes: [], direction: null, results: 'all' as const, hasNewRequest: null, includeAnalysis: true }

function items(i: number): AnalysisItem[] {
  return [
    { key: 'agent', friendlyName: 'Temsilci', value: `temsilci ${i}` },
    { key: 'topic', friendlyName: 'Konu', value: ['iade', 'fatura', 'İptal'][i % 3]! },
    { key: 'score', friendlyName: 'Skor', value: String(i % 10) }
  ]
}

function rec(i: number, analysis = items(i)): CallRecord {
  const at = Date.UTC(2025, 0, 1) + i * 60_000
  return { callId: `c-${i}`, callAt: at, callDate: new Date(at).toISOString(), title: `t ${i}`, summary: `s ${i}`, analysis, extra: {} }
}

let dir: string
let writer: CallCache
let reader: CallCache
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-value-dictionary-'))
  writer = openCache(join(dir, 'cache.db'))
  writer.ensureScope('all', FILTERS)
  writer.writePage({ scopeKey: 'all', records: Array.from({ length: 400 }, (_, i) => rec(i)), includeAnalysis: true, checkpoint: null })
  reader = openCache(join(dir, 'cache.db'), { readonly: true })
})
afterEach(() => {
  reader.close()
  writer.close()
  rmSync(dir, { recursive: true, force: true })
})

const read = (d: ReturnType<typeof valueDictionary>): number => d.valueOf.filter((v) => v !== undefined).length

describe("a connection's value dictionary", () => {
  it("reads a page's values only, once, and names them as stored", () => {
    const rows = createSearchReader(reader).rows
    const ids = ['c-5', 'c-6', 'c-7']
    const got = rows.items(ids)
    for (const id of ids) expect(got.get(id)?.map((n) => n.value)).toEqual(items(Number(id.slice(2))).map((a) => a.value))
    const d = valueDictionary(connectionOf(reader))
    // Three agents, three topics, three scores: nine of the 413 values stored.
    expect(read(d)).toBe(9)
    rows.items(ids)
    expect(read(d)).toBe(9)
  })

  it('names values another connection added or changed after the first read', () => {
    const rows = createSearchReader(reader).rows
    rows.items(['c-1'])
    writer.writePage({
      scopeKey: 'all',
      records: [rec(400), rec(1, [{ key: 'topic', friendlyName: 'Konu', value: 'yeni konu' }])],
      includeAnalysis: true,
      checkpoint: null
    })
    const got = rows.items(['c-1', 'c-400', 'c-2'])
    expect(got.get('c-1')?.map((n) => n.value)).toEqual(['yeni konu'])
    expect(got.get('c-400')?.map((n) => n.value)).toEqual(items(400).map((a) => a.value))
    expect(got.get('c-2')?.map((n) => n.value)).toEqual(items(2).map((a) => a.value))
    // A whole read afterwards (a column, a facet) still finds every value.
    const d = valueDictionary(connectionOf(reader))
    d.refresh()
    expect(read(d)).toBe(400 + 3 + 10 + 1 + 1)
  })
})
